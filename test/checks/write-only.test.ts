/**
 * write-only-not-returned: a response property the schema marks writeOnly that the server does return is a
 * warning (OpenAPI: SHOULD NOT), never a failure; a server that omits it gets nothing. OpenAPI 3.0 and 3.1
 * each by their own rules: a writeOnly beside a $ref is ignored in 3.0 and applies in 3.1.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { CheckContext } from '../../src/runner/checks/types.ts';
import { writeOnlyNotReturned } from '../../src/runner/checks/write-only-not-returned.ts';
import type { JsonSchema, Operation, RunResults } from '../../src/runner/model.ts';
import { loadProfile } from '../../src/runner/description/profile.ts';
import { GENERIC_PROFILE } from '../../src/runner/description/profiles.ts';
import { json, startHttp } from '../http/servers.ts';
import { pool, removeTemps, requireResults, resultsSchemaErrors, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 240_000;

function spec(version: '3.0.3' | '3.1.0') {
  return {
    openapi: version,
    info: { title: `Accounts ${version}`, version: '1' },
    servers: [{ url: 'http://localhost/svc' }],
    components: {
      schemas: {
        Token: { type: 'string' },
        Account: {
          type: 'object',
          required: ['name', 'password'],
          properties: {
            name: { type: 'string' },
            password: { type: 'string', writeOnly: true },
            // writeOnly beside a $ref: ignored in 3.0, applies in 3.1.
            secret: { $ref: '#/components/schemas/Token', writeOnly: true },
          },
        },
      },
    },
    paths: {
      '/profile': {
        get: { operationId: 'getProfile', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Account' } } } } } },
      },
      '/team': {
        get: {
          operationId: 'getTeam',
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { type: 'object', properties: { members: { type: 'array', items: { $ref: '#/components/schemas/Account' } } } } } },
            },
          },
        },
      },
    },
  };
}

function server(returnsWriteOnly: boolean) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const account = returnsWriteOnly ? { name: 'ann', password: 'hunter2', secret: 's3' } : { name: 'ann' };
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/svc/profile') return json(res, 200, account);
    if (req.method === 'GET' && path === '/svc/team') return json(res, 200, { members: [account, { name: 'bob' }] });
    return json(res, 404, { detail: 'Not Found' });
  };
}

async function run(version: '3.0.3' | '3.1.0', returnsWriteOnly: boolean): Promise<RunResults> {
  return limit(async () => {
    const svc = await startHttp(server(returnsWriteOnly));
    try {
      const file = join(await tempDir(), 'accounts.json');
      await writeFile(file, JSON.stringify(spec(version)));
      const r = await runCli(['--spec', file, '--base-url', `${svc.url}/svc`, '--token', TOKEN, '--max-examples', '0']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const results = requireResults(r);
      expect(resultsSchemaErrors(results)).toEqual([]);
      return results;
    } finally {
      await svc.close();
    }
  });
}

/** "<operation> <severity> <check>: <paths>" of every finding of the positive cases. */
function findings(results: RunResults): string[] {
  return results.operations.flatMap((o) =>
    o.cases.filter((c) => c.name === 'positive').flatMap((c) => c.findings.map((f) => `${f.operationId} ${f.severity} ${f.check}: ${JSON.stringify(f.actual)}`)),
  );
}

describe('a writeOnly property in a response', () => {
  test(
    '3.0, returned: a warning naming each returned writeOnly property (not the one beside a $ref), on the right operation; the run is conformant',
    async () => {
      const results = await run('3.0.3', true);
      expect(findings(results).sort()).toEqual([
        'getProfile warning write-only-not-returned: ["/password"]',
        'getTeam warning write-only-not-returned: ["/members/0/password"]',
      ]);
      expect(results.verdict).toBe('conformant');
      expect(results.operations.find((o) => o.operationId === 'getProfile')?.outcome).toBe('passed');
    },
    RUN_TIMEOUT,
  );

  test(
    '3.1, returned: the writeOnly beside a $ref counts too',
    async () => {
      const results = await run('3.1.0', true);
      expect(findings(results).sort()).toEqual([
        'getProfile warning write-only-not-returned: ["/password","/secret"]',
        'getTeam warning write-only-not-returned: ["/members/0/password","/members/0/secret"]',
      ]);
      expect(results.verdict).toBe('conformant');
    },
    RUN_TIMEOUT,
  );

  test.each(['3.0.3', '3.1.0'] as const)(
    '%s, omitted (though "required"): nothing flagged',
    async (version) => {
      const results = await run(version, false);
      expect(findings(results)).toEqual([]);
      expect(results.verdict).toBe('conformant');
    },
    RUN_TIMEOUT,
  );
});

describe('which returned properties count as writeOnly (the schema walk)', async () => {
  const profile = await loadProfile(GENERIC_PROFILE);
  const validator = new SchemaValidator();
  const judge = (schema: JsonSchema, body: unknown): unknown => {
    const operation: Operation = {
      operationId: 'op', method: 'GET', path: '/x', group: '/x', service: 's', specFile: 'x.json', pointer: '/paths/~1x/get',
      parameters: [], responses: [{ status: '200', contentTypes: ['application/json'], schema, pointer: '/paths/~1x/get/responses/200' }], secured: false, extensions: {},
    };
    const text = JSON.stringify(body);
    const ctx: CheckContext = {
      exchange: { request: { method: 'GET', url: 'http://127.0.0.1:1/x', headers: {} }, response: { status: 200, headers: { 'content-type': 'application/json' }, body: text, json: body, truncated: false, size: text.length }, durationMs: 1 },
      operation, profile, validator, expectation: 'success', expect: [],
    };
    return writeOnlyNotReturned.run(ctx).map((f) => f.actual);
  };
  const secret = { type: 'string', writeOnly: true };

  test('nested objects, arrays, allOf: each returned writeOnly property by its path', () => {
    const schema = { type: 'object', properties: { user: { allOf: [{ type: 'object', properties: { pin: secret } }] }, list: { type: 'array', items: { type: 'object', properties: { pin: secret } } } } };
    expect(judge(schema, { user: { pin: '1' }, list: [{}, { pin: '2' }] })).toEqual([['/user/pin', '/list/1/pin']]);
    expect(judge(schema, { user: {}, list: [{}] })).toEqual([]);
  });

  test('oneOf/anyOf: only a property every declaring alternative marks writeOnly; a nullable wrapper keeps it', () => {
    const both = { oneOf: [{ type: 'object', properties: { pin: secret } }, { type: 'object', properties: { pin: { type: 'string' } } }] };
    expect(judge(both, { pin: '1' })).toEqual([]);
    const one = { anyOf: [{ type: 'object', properties: { pin: secret } }, { type: 'null' }] };
    expect(judge(one, { pin: '1' })).toEqual([['/pin']]);
  });

  test('a schema with no writeOnly anywhere, an undeclared status, a body that is not JSON: nothing', () => {
    expect(judge({ type: 'object', properties: { pin: { type: 'string' } } }, { pin: '1' })).toEqual([]);
    expect(judge({ type: 'string' }, 'text')).toEqual([]);
  });
});
