/**
 * checkPacts: pacts compared with the contract, no deployment. Table of incompatible interactions, each
 * written by the test into a temporary pact file (JSON), each naming the interaction and a contract location.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkPacts } from '../../src/runner/pact/check.ts';
import { PactInputError } from '../../src/runner/pact/errors.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import {
  COMMITTED_PACTS,
  committedInteraction,
  CONTRACT_FILES,
  ONBOARDING_PACT,
  setIn,
  tempDir,
  TRADE_PACT,
  writePact,
  type Json,
} from './support.ts';

const contract = await loadContract(CONTRACT_FILES);
const CUSTOMER_SPEC = CONTRACT_FILES[0] ?? '';
const TRADE_SPEC = CONTRACT_FILES[1] ?? '';

const READ_FIELD = 'a request for one field of an address type';
const NOT_FOUND = 'a request for a field that does not exist';
const LIST_FIELDS = 'a request for the first page of the fields of an address type';
const CREATE_TYPE = 'a request to create an address type';
const UPDATE_TYPE = 'a request to update an address type';
const GENERATE = 'a request to generate a reference number';

interface Case {
  name: string;
  file: string;
  from: string;
  change: (i: Json) => void;
  /** Expected mismatch message (substring) and the start of its location. */
  message: string | RegExp;
  location: string;
}

const CASES: Case[] = [
  {
    name: 'expects a response field the contract lacks',
    file: ONBOARDING_PACT,
    from: READ_FIELD,
    change: (i) => setIn(i, ['response', 'body', 'content', 'nickname'], 'Street'),
    message: 'response body: the consumer expects property /nickname, which the contract does not declare for status 200 of get-address-type-field-by-id',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}~1fields~1{fieldId}/get/responses/200/content/application~1json/schema`,
  },
  {
    name: 'expects an undocumented status',
    file: ONBOARDING_PACT,
    from: NOT_FOUND,
    change: (i) => setIn(i, ['response', 'status'], 404),
    message: 'response status 404 is not documented for get-address-type-field-by-id (documented: 200, 400, 408, 409, 500, 502)',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}~1fields~1{fieldId}/get/responses`,
  },
  {
    name: 'expects a response field with the wrong type',
    file: ONBOARDING_PACT,
    from: READ_FIELD,
    change: (i) => setIn(i, ['response', 'body', 'content', 'isMandatory'], 'yes'),
    message: 'response body: /isMandatory must be boolean',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}~1fields~1{fieldId}/get/responses/200/content/application~1json/schema`,
  },
  {
    name: 'expects a field inside list items the contract lacks',
    file: ONBOARDING_PACT,
    from: LIST_FIELDS,
    change: (i) => setIn(i, ['response', 'body', 'content', '0', 'label'], 'Street'),
    message: /expects property \/0\/label, which the contract does not declare/,
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}~1fields/get/responses/200/content/application~1json/schema`,
  },
  {
    name: 'expects a field the created record does not declare',
    file: ONBOARDING_PACT,
    from: CREATE_TYPE,
    change: (i) => setIn(i, ['response', 'body', 'content', 'createdBy'], 'HOME'),
    message: /expects property \/createdBy, which the contract does not declare for status 200 of create-address-type \(schema path \/anyOf\/0\)/,
    location: `${CUSTOMER_SPEC}#/paths/~1address-types/post/responses/200/content/application~1json/schema`,
  },
  {
    name: 'expects a body where the contract declares none',
    file: ONBOARDING_PACT,
    from: UPDATE_TYPE,
    change: (i) => setIn(i, ['response', 'body'], { content: { updated: true }, contentType: 'application/json', encoded: false }),
    message: 'response body: the consumer expects a body, but the contract declares none for status 200 of update-address-type',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}/put/responses/200`,
  },
  {
    name: 'sends a path id that is not a uuid',
    file: ONBOARDING_PACT,
    from: READ_FIELD,
    change: (i) => setIn(i, ['request', 'path'], '/address-types/home/fields/8a4e6c2d-1f3b-4d5a-9e7c-2b0d4f6a8c13'),
    message: 'request path parameter id="home": must match format "uuid"',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}~1fields~1{fieldId}/parameters/0/schema`,
  },
  {
    name: 'sends a query parameter with the wrong type',
    file: ONBOARDING_PACT,
    from: LIST_FIELDS,
    change: (i) => setIn(i, ['request', 'query', 'pageSize'], ['twenty']),
    message: 'request query parameter pageSize="twenty": must be integer',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}~1fields/get/parameters/4/schema`,
  },
  {
    name: 'sends an undocumented query parameter',
    file: ONBOARDING_PACT,
    from: LIST_FIELDS,
    change: (i) => setIn(i, ['request', 'query', 'limit'], ['5']),
    message: 'request query parameter "limit" is not documented by get-address-type-field-list',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}~1fields/get/parameters`,
  },
  {
    name: 'leaves out a required request field',
    file: ONBOARDING_PACT,
    from: CREATE_TYPE,
    change: (i) => setIn(i, ['request', 'body', 'content'], { code: 'HOME' }),
    message: "request body: (root) must have required property 'name'",
    location: `${CUSTOMER_SPEC}#/paths/~1address-types/post/requestBody/content/application~1json/schema`,
  },
  {
    name: 'sends a request field the contract does not declare',
    file: ONBOARDING_PACT,
    from: CREATE_TYPE,
    change: (i) => setIn(i, ['request', 'body', 'content', 'colour'], 'blue'),
    message: 'request body: property /colour is not declared by the contract',
    location: `${CUSTOMER_SPEC}#/paths/~1address-types/post/requestBody/content/application~1json/schema`,
  },
  {
    name: 'uses a method the contract does not document on the path',
    file: ONBOARDING_PACT,
    from: UPDATE_TYPE,
    change: (i) => setIn(i, ['request', 'method'], 'PATCH'),
    message: /the contract documents PUT, DELETE on \/address-types\/\{id\}, not PATCH/,
    location: `${CUSTOMER_SPEC}#/paths/~1address-types~1{id}`,
  },
  {
    name: 'calls a path the contract does not have',
    file: TRADE_PACT,
    from: GENERATE,
    change: (i) => setIn(i, ['request', 'path'], '/reference-numbers/next'),
    message: 'POST /reference-numbers/next: no operation of foreign-trade-service matches this path',
    location: 'pact.json#/interactions/0/request/path',
  },
  {
    name: 'sends no credentials to a secured operation',
    file: TRADE_PACT,
    from: GENERATE,
    change: (i) => setIn(i, ['request', 'headers'], { 'Content-Type': ['application/json'] }),
    message: 'request: get-foreign-trade-reference-number requires credentials (Authorization: Bearer ...) but the pact\'s request sends none',
    location: `${TRADE_SPEC}#/paths/~1reference-numbers~1generate/post/security`,
  },
  {
    name: 'expects a response field with a wrong format',
    file: TRADE_PACT,
    from: GENERATE,
    change: (i) => setIn(i, ['response', 'body', 'content', 'Id'], 'REF-1'),
    message: 'response body: /Id must match format "uuid"',
    location: `${TRADE_SPEC}#/paths/~1reference-numbers~1generate/post/responses/200/content/application~1json/schema`,
  },
];

describe('checkPacts', () => {
  test('the committed pacts are compatible with the contract', async () => {
    const result = await checkPacts({ pacts: [COMMITTED_PACTS], contract });
    expect(result.mode).toBe('check');
    expect(result.interactions).toHaveLength(13);
    expect(result.interactions.filter((i) => i.outcome !== 'passed')).toEqual([]);
    expect(result.interactions.every((i) => i.operationId !== undefined)).toBe(true);
  });

  describe('an incompatible interaction fails, naming the interaction and the contract location', () => {
    let tmp: { dir: string; remove: () => Promise<void> };
    beforeAll(async () => {
      tmp = await tempDir('pact-check');
    });
    afterAll(async () => tmp.remove());

    test.each(CASES)('$name', async (c) => {
      const changed = await committedInteraction(c.file, c.from);
      changed['description'] = `${c.from} (${c.name})`;
      c.change(changed);
      const untouched = await committedInteraction(c.file, c.from);
      const provider = c.file === TRADE_PACT ? 'foreign-trade-service' : 'customer-service';
      const consumer = c.file === TRADE_PACT ? 'trade-finance-back-office' : 'onboarding-portal';
      const file = await writePact(tmp.dir, 'pact', consumer, provider, [changed, untouched]);
      const result = await checkPacts({ pacts: [file], contract });
      const failed = result.interactions.filter((i) => i.outcome === 'failed');
      expect(failed.map((i) => i.description)).toEqual([`${c.from} (${c.name})`]);
      const mismatch = failed[0]?.mismatches.find((m) =>
        typeof c.message === 'string' ? m.message.includes(c.message) : c.message.test(m.message),
      );
      expect(mismatch, JSON.stringify(failed[0]?.mismatches, null, 2)).toBeDefined();
      const location = c.location.startsWith('pact.json') ? c.location.replace('pact.json', file) : c.location;
      expect(mismatch?.location).toBe(location);
      expect(failed[0]?.pactFile).toBe(file);
    });
  });

  test('a pact for a provider the contract does not describe fails', async () => {
    const tmp = await tempDir('pact-check-provider');
    try {
      const file = await writePact(tmp.dir, 'pact', 'x', 'payments-service', [await committedInteraction(TRADE_PACT, GENERATE)]);
      const result = await checkPacts({ pacts: [file], contract });
      expect(result.interactions[0]?.outcome).toBe('failed');
      expect(result.interactions[0]?.mismatches[0]?.message).toBe(
        'provider "payments-service" is not described by the contract (services: customer-service, foreign-trade-service)',
      );
    } finally {
      await tmp.remove();
    }
  });

  test('no pacts is a PactInputError unless allowNoPacts', async () => {
    const tmp = await tempDir('pact-check-empty');
    try {
      await expect(checkPacts({ pacts: [tmp.dir], contract })).rejects.toThrow(PactInputError);
      await expect(checkPacts({ pacts: [tmp.dir], contract, allowNoPacts: true })).resolves.toEqual({ mode: 'check', interactions: [] });
    } finally {
      await tmp.remove();
    }
  });
});
