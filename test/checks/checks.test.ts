/**
 * The pure core, without HTTP: the registered checks judged on hand-built exchanges against the real
 * contract and profile, and the planner's cases (names, bodies, read-only skips).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { runChecks } from '../../src/runner/checks/registry.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { CheckContext } from '../../src/runner/checks/types.ts';
import type { CheckId, Contract, Exchange, HttpMethod, Operation, RecordedResponse, Severity } from '../../src/runner/model.ts';
import { planOperation, testName, type Expectation_, type OperationPlan, type PlanOptions } from '../../src/runner/plan/cases.ts';
import { loadExamples, type Examples, type Expectation } from '../../src/runner/description/examples.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfile, type Profile } from '../../src/runner/description/profile.ts';
import { DESCRIBED, ROOT } from '../support/runs.ts';

const SPECS = ['contract/customer-service.openapi.yaml', 'contract/foreign-trade-service.openapi.yaml'].map((f) => `${ROOT}${f}`);
const ID = '3f1c2a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69';
const JSON_TYPE = 'application/json; charset=utf-8';

let contract: Contract;
let profile: Profile;
let examples: Examples;
const validator = new SchemaValidator();

beforeAll(async () => {
  [contract, profile, examples] = await Promise.all([
    loadContract(SPECS),
    loadProfile(`${ROOT}contract/profile.yaml`),
    loadExamples(`${ROOT}contract/examples.yaml`),
  ]);
});

function op(operationId: string): Operation {
  const found = contract.operations.find((o) => o.operationId === operationId);
  if (!found) throw new Error(`the contract describes no ${operationId}`);
  return found;
}

/** What came back: a status, a body (JSON-serialised unless a string) and the content type. */
interface Given {
  operation: string;
  expectation: Expectation_;
  status: number;
  body?: unknown;
  /** Default: application/json when there is a body. null sends none. */
  contentType?: string | null;
  expect?: Expectation[];
  /** Lifecycle cases: what the update sent, and the read that followed. */
  lifecycle?: { sent?: unknown; readBack: { status: number; body?: unknown } };
}

function response(status: number, body: unknown, contentType: string | null | undefined): RecordedResponse {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = {};
  const type = contentType === undefined ? (text === '' ? null : JSON_TYPE) : contentType;
  if (type !== null) headers['content-type'] = type;
  // A 401 challenges, as HTTP says it must (unauthorized-challenge: test/checks/http-musts-run.test.ts).
  if (status === 401) headers['www-authenticate'] = 'Bearer';
  let json: unknown;
  try {
    json = text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    json = undefined;
  }
  return { status, headers, body: text, ...(json !== undefined ? { json } : {}), truncated: false, size: Buffer.byteLength(text) };
}

function exchange(method: HttpMethod, path: string, res: RecordedResponse): Exchange & { response: RecordedResponse } {
  return {
    request: { method, url: `http://127.0.0.1:1/customer-service${path.replace(/\{[^}]+\}/g, ID)}`, headers: { accept: 'application/json' } },
    response: res,
    durationMs: 1,
  };
}

function context(given: Given): CheckContext {
  const operation = op(given.operation);
  const ctx: CheckContext = {
    exchange: exchange(operation.method, operation.path, response(given.status, given.body, given.contentType)),
    operation,
    profile,
    validator,
    expectation: given.expectation,
    expect: given.expect ?? [],
  };
  if (given.lifecycle) {
    const reader = contract.operations.find((o) => o.method === 'GET' && o.path === operation.path && o.service === operation.service);
    ctx.lifecycle = {
      ...(given.lifecycle.sent !== undefined ? { sent: given.lifecycle.sent } : {}),
      readBack: exchange('GET', reader?.path ?? operation.path, response(given.lifecycle.readBack.status, given.lifecycle.readBack.body, undefined)),
    };
  }
  return ctx;
}

type Want = Array<`${CheckId}:${Severity}`>;

function judged(given: Given): Want {
  const { findings } = runChecks(context(given));
  return [...new Set(findings.map((f) => `${f.check}:${f.severity}` as const))].sort();
}

const envelope = (code: string) => ({ error: { code, message: 'm' } });
const field = { id: ID, typeId: ID, fieldKey: 'street', isMandatory: true, isVisible: true, isActive: true, sequenceNumber: 1 };
const addressType = { id: ID, code: 'HOME', name: 'Home', isActive: true };
const reference = { Id: ID, Description: 'd', Counter: 1, LastReference: 'Export-LC-F-000001', Direction: 'Export' };

describe('checks', () => {
  const table: Array<[string, { given: Given; want: Want }]> = [
    // Error envelope (profile: statuses, 400 envelope optional, open code set)
    ['400 without envelope is tolerated', { given: { operation: 'create-address-type', expectation: 'rejected', status: 400, body: { message: 'bad' } }, want: [] }],
    ['400 with an empty body is tolerated', { given: { operation: 'create-address-type', expectation: 'rejected', status: 400, body: '' }, want: [] }],
    ['400 with a documented code', { given: { operation: 'update-address-type', expectation: 'rejected', status: 400, body: envelope('VALIDATION_ERROR') }, want: [] }],
    [
      '409 without envelope is an envelope error',
      {
        given: { operation: 'update-address-type', expectation: 'rejected', status: 409, body: { message: 'conflict' } },
        want: ['error-envelope-conformance:error', 'negative-data-rejected:warning', 'response-schema-conformance:error'],
      },
    ],
    [
      '500 without envelope is an envelope error and a server error',
      {
        given: { operation: 'create-user', expectation: 'success', status: 500, body: { message: 'boom' } },
        want: ['error-envelope-conformance:error', 'not-a-server-error:error', 'response-schema-conformance:error'],
      },
    ],
    ['500 with the ERROR envelope is a server error only', { given: { operation: 'create-user', expectation: 'success', status: 500, body: envelope('ERROR') }, want: ['not-a-server-error:error'] }],
    ['an unknown code is a warning', { given: { operation: 'create-address-type', expectation: 'rejected', status: 400, body: envelope('ERR_NEW_99') }, want: ['error-envelope-conformance:warning'] }],
    ['a code documented under another status is accepted', { given: { operation: 'create-address-type', expectation: 'rejected', status: 400, body: envelope('ERR_PLAT_1') }, want: [] }],
    ['an operation-specific code is accepted for its operation', { given: { operation: 'send-forget-password-otp', expectation: 'rejected', status: 400, body: envelope('ERR_CORE_161') }, want: [] }],
    [
      "another operation's specific code is unknown",
      { given: { operation: 'create-address-type', expectation: 'rejected', status: 400, body: envelope('ERR_CORE_161') }, want: ['error-envelope-conformance:warning'] },
    ],
    [
      'an error code that is not a string is an error',
      { given: { operation: 'create-address-type', expectation: 'rejected', status: 400, body: { error: { code: 42 } } }, want: ['error-envelope-conformance:error'] },
    ],
    ['the foreign-trade service has no envelope rule', { given: { operation: 'validate-reference-number', expectation: 'rejected', status: 400, body: { message: 'bad' } }, want: [] }],

    // Create shape (seed 4.1: record, bare array, page)
    ['create shape: a record', { given: { operation: 'create-address-type', expectation: 'success', status: 200, body: addressType }, want: [] }],
    ['create shape: a bare array', { given: { operation: 'create-address-type', expectation: 'success', status: 200, body: [addressType] }, want: [] }],
    ['create shape: a page', { given: { operation: 'create-address-type', expectation: 'success', status: 200, body: { total: 1, data: [addressType] } }, want: [] }],
    ['create shape: a page without total', { given: { operation: 'create-address-type-field', expectation: 'success', status: 200, body: { data: [field] } }, want: [] }],
    [
      'create shape: a page without data',
      { given: { operation: 'create-address-type', expectation: 'success', status: 200, body: { total: 1 } }, want: ['create-shape:error', 'response-schema-conformance:error'] },
    ],
    [
      'create shape: a record without id',
      { given: { operation: 'create-address-type', expectation: 'success', status: 200, body: { code: 'HOME', name: 'Home' } }, want: ['create-shape:error', 'response-schema-conformance:error'] },
    ],
    [
      'create shape: an array with a record without id',
      { given: { operation: 'create-address-type-field', expectation: 'success', status: 200, body: [field, { fieldKey: 'x' }] }, want: ['create-shape:error', 'response-schema-conformance:error'] },
    ],
    [
      'create shape: a page whose total is not an integer',
      { given: { operation: 'create-address-type', expectation: 'success', status: 200, body: { total: 'one', data: [addressType] } }, want: ['create-shape:error', 'response-schema-conformance:error'] },
    ],
    ['create shape: a cache refresh result needs no id', { given: { operation: 'customer-refresh-cache', expectation: 'success', status: 200, body: { isSuccess: true, key: 'parameters' } }, want: [] }],
    ['create shape: a user creation page', { given: { operation: 'create-user', expectation: 'success', status: 200, body: { total: 1, data: [{ identityProviderUserId: ID, userPassword: 'p' }] } }, want: [] }],

    // Auth
    ['auth: a call without credentials that succeeds', { given: { operation: 'customer-get-cache-key-list', expectation: 'auth-rejected', status: 200, body: [] }, want: ['auth-enforced:error'] }],
    ['auth: a redirect counts as success', { given: { operation: 'customer-get-cache-key-list', expectation: 'auth-rejected', status: 302, body: '' }, want: ['auth-enforced:error', 'status-code-conformance:error'] }],
    ['auth: 401', { given: { operation: 'customer-get-cache-key-list', expectation: 'auth-rejected', status: 401, body: envelope('UNAUTHORIZED') }, want: [] }],
    ['auth: 403', { given: { operation: 'create-address-type', expectation: 'auth-rejected', status: 403, body: '' }, want: [] }],
    ['auth: rejected with 400', { given: { operation: 'create-address-type', expectation: 'auth-rejected', status: 400, body: envelope('VALIDATION_ERROR') }, want: ['auth-enforced:warning'] }],
    ['auth: rejected with 500', { given: { operation: 'create-address-type', expectation: 'auth-rejected', status: 500, body: envelope('ERROR') }, want: ['auth-enforced:warning', 'not-a-server-error:error'] }],

    // Property casing (seed 2: names are exact and case-sensitive)
    [
      'property casing: ID for Id',
      {
        given: { operation: 'get-foreign-trade-reference-number', expectation: 'success', status: 200, body: { ...reference, Id: undefined, ID: ID } },
        want: ['property-casing:error', 'response-schema-conformance:error'],
      },
    ],
    [
      'property casing: username for Username',
      {
        given: { operation: 'send-forget-password-otp', expectation: 'success', status: 200, body: { username: 'u', Username: 'u', TransactionId: ID } },
        want: ['property-casing:error'],
      },
    ],
    [
      'property casing: inside the items of a list',
      { given: { operation: 'get-address-type-field-list', expectation: 'success', status: 200, body: [{ ...field, FieldKey: 'street' }] }, want: ['property-casing:error'] },
    ],
    ['property casing: an unrelated extra property', { given: { operation: 'get-address-type-field-list', expectation: 'success', status: 200, body: [{ ...field, colour: 'blue' }] }, want: [] }],

    // Status and content type
    ['status 418 is not documented', { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 418, body: [] }, want: ['positive-data-accepted:error', 'status-code-conformance:error'] }],
    // A redirect is no refusal: only its status is judged.
    ['an undocumented redirect to a valid request', { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 302, body: '' }, want: ['status-code-conformance:error'] }],
    ['status 201 is not documented', { given: { operation: 'create-address-type', expectation: 'success', status: 201, body: addressType }, want: ['status-code-conformance:error'] }],
    [
      '404 with the envelope is not documented',
      { given: { operation: 'get-address-type-field-by-id', expectation: 'success', status: 404, body: envelope('ERR_PLAT_4') }, want: ['positive-data-accepted:error', 'status-code-conformance:error'] },
    ],
    ['a `default` response documents any status', { given: { operation: 'get-foreign-trade-reference-number', expectation: 'rejected', status: 418, body: { message: 'teapot' } }, want: [] }],
    [
      'text/plain on a JSON response',
      { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 200, body: [{ key: 'parameters' }], contentType: 'text/plain' }, want: ['content-type-conformance:error'] },
    ],
    ['no content type on a JSON response', { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 200, body: [], contentType: null }, want: ['content-type-conformance:error'] }],
    // A structured-syntax suffix is a media type of its own: a client of application/json may not read it.
    ['a +json media type where application/json is declared is another media type', { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 200, body: [], contentType: 'application/vnd.x+json' }, want: ['content-type-conformance:error'] }],
    ['application/json with parameters is application/json', { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 200, body: [], contentType: 'Application/JSON; charset=utf-8' }, want: [] }],
    ['an undeclared 200 body may be anything', { given: { operation: 'update-address-type', expectation: 'success', status: 200, body: 'done', contentType: 'text/plain' }, want: [] }],
    [
      // The body is judged by the media type it is answered in: an HTML page is no JSON that failed to parse.
      'an HTML page where JSON is declared: the media type is wrong',
      { given: { operation: 'get-address-type-field-by-id', expectation: 'success', status: 200, body: '<html></html>', contentType: 'text/html' }, want: ['content-type-conformance:error'] },
    ],

    // Schema
    ['a wrong field type', { given: { operation: 'get-address-type-field-by-id', expectation: 'success', status: 200, body: { ...field, sequenceNumber: '1' } }, want: ['response-schema-conformance:error'] }],
    ['a non-uuid id', { given: { operation: 'get-address-type-field-by-id', expectation: 'success', status: 200, body: { ...field, id: 'field-1' } }, want: ['response-schema-conformance:error'] }],
    ['an int32 out of range', { given: { operation: 'get-address-type-field-by-id', expectation: 'success', status: 200, body: { ...field, sequenceNumber: 2 ** 31 } }, want: ['response-schema-conformance:error'] }],
    ['a missing non-nullable field', { given: { operation: 'get-foreign-trade-reference-number', expectation: 'success', status: 200, body: { ...reference, Counter: undefined } }, want: ['response-schema-conformance:error'] }],
    ['null where the seed makes a field non-nullable', { given: { operation: 'get-foreign-trade-reference-number', expectation: 'success', status: 200, body: { ...reference, Counter: null } }, want: ['response-schema-conformance:error'] }],
    ['a nullable field may be null', { given: { operation: 'send-forget-password-otp', expectation: 'success', status: 200, body: { Username: 'u', TransactionId: ID, EndDate: null } }, want: [] }],

    // Server errors, positive and negative data
    ['500 is a server error', { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 500, body: envelope('ERROR') }, want: ['not-a-server-error:error'] }],
    ['502 is a server error, even documented', { given: { operation: 'customer-get-cache-key-list', expectation: 'success', status: 502, body: envelope('ERR_PLAT_41') }, want: ['not-a-server-error:error'] }],
    ['a valid request rejected with 400', { given: { operation: 'create-address-type', expectation: 'success', status: 400, body: envelope('VALIDATION_ERROR') }, want: ['positive-data-accepted:error'] }],
    [
      'an expected value differs',
      { given: { operation: 'validate-reference-number', expectation: 'success', status: 200, body: { IsValid: false }, expect: [{ pointer: '/IsValid', equals: true }] }, want: ['positive-data-accepted:error'] },
    ],
    ['an expected value matches', { given: { operation: 'validate-reference-number', expectation: 'success', status: 200, body: { IsValid: true }, expect: [{ pointer: '/IsValid', equals: true }] }, want: [] }],
    ['invalid input accepted', { given: { operation: 'create-address-type', expectation: 'rejected', status: 200, body: addressType }, want: ['negative-data-rejected:error'] }],
    [
      'invalid input rejected with 422, not the documented 400',
      { given: { operation: 'create-address-type', expectation: 'rejected', status: 422, body: envelope('VALIDATION_ERROR') }, want: ['negative-data-rejected:warning', 'status-code-conformance:error'] },
    ],
    ['invalid input rejected with any 4xx where 400 is not documented', { given: { operation: 'validate-reference-number', expectation: 'rejected', status: 422, body: '' }, want: [] }],

    // Presence (profile: gateway statuses without envelope mean missing)
    ['presence: 404 without envelope is missing', { given: { operation: 'customer-get-cache-key-list', expectation: 'presence', status: 404, body: { message: 'no Route matched with those values' } }, want: ['operation-present:error'] }],
    ['presence: 405 without envelope is missing', { given: { operation: 'create-address-type', expectation: 'presence', status: 405, body: { message: 'method not allowed' } }, want: ['operation-present:error'] }],
    ['presence: 501 without envelope is missing', { given: { operation: 'create-address-type', expectation: 'presence', status: 501, body: '' }, want: ['operation-present:error'] }],
    // Present, but the 404 is not documented: every answer is judged, a presence probe's too.
    ['presence: 404 with the envelope is the service itself', { given: { operation: 'get-address-type-field-by-id', expectation: 'presence', status: 404, body: envelope('ERR_PLAT_4') }, want: ['status-code-conformance:error'] }],
    ['presence: 400 is present', { given: { operation: 'create-address-type', expectation: 'presence', status: 400, body: envelope('VALIDATION_ERROR') }, want: [] }],

    // Lifecycle
    [
      'update persisted: a field did not change',
      {
        given: { operation: 'update-address-type-field', expectation: 'update-persisted', status: 200, lifecycle: { sent: { fieldKey: 'new', sequenceNumber: 2 }, readBack: { status: 200, body: { ...field, fieldKey: 'old', sequenceNumber: 2 } } } },
        want: ['update-persisted:error'],
      },
    ],
    [
      'update persisted: every field changed',
      {
        given: { operation: 'update-address-type-field', expectation: 'update-persisted', status: 200, lifecycle: { sent: { fieldKey: 'new', sequenceNumber: 2 }, readBack: { status: 200, body: { ...field, fieldKey: 'new', sequenceNumber: 2 } } } },
        want: [],
      },
    ],
    [
      'update persisted: the record cannot be read back',
      { given: { operation: 'update-address-type-field', expectation: 'update-persisted', status: 200, lifecycle: { sent: { fieldKey: 'new' }, readBack: { status: 400, body: envelope('ERR_PLAT_4') } } }, want: ['update-persisted:error'] },
    ],
    ['use after delete: still served', { given: { operation: 'delete-address-type-field', expectation: 'use-after-delete', status: 200, lifecycle: { readBack: { status: 200, body: field } } }, want: ['use-after-delete:error'] }],
    ['use after delete: gone', { given: { operation: 'delete-address-type-field', expectation: 'use-after-delete', status: 200, lifecycle: { readBack: { status: 400, body: envelope('ERR_PLAT_4') } } }, want: [] }],
  ];

  test.each(table)('%s', (_name, { given, want }) => {
    expect(judged(given)).toEqual([...want].sort());
  });

  test('every finding names its check, operation, method and path, and a plain message', () => {
    const { findings } = runChecks(context({ operation: 'update-address-type', expectation: 'rejected', status: 409, body: { message: 'conflict' } }));
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(f).toMatchObject({ operationId: 'update-address-type', method: 'PUT', path: '/address-types/{id}' });
      expect(f.message).toMatch(/\S/);
      expect(f.message).not.toContain('\n');
    }
  });

  test('each check reports a status in the results of the checks that apply', () => {
    const { checks } = runChecks(context({ operation: 'customer-get-cache-key-list', expectation: 'success', status: 200, body: [], contentType: 'text/plain' }));
    expect(checks.find((c) => c.id === 'content-type-conformance')?.status).toBe('failed');
    expect(checks.find((c) => c.id === 'not-a-server-error')?.status).toBe('passed');
    expect(checks.map((c) => c.id)).not.toContain('auth-enforced');
    const warned = runChecks(context({ operation: 'create-address-type', expectation: 'rejected', status: 400, body: envelope('ERR_NEW_99') })).checks;
    expect(warned.find((c) => c.id === 'error-envelope-conformance')?.status).toBe('warning');
  });
});

// -----------------------------------------------------------------------------------------------------------
// Plan

const OPTIONS: PlanOptions = { seed: 1, readOnly: false, allowIrreversible: true, otpSource: true };

function plans(options: Partial<PlanOptions> = {}): OperationPlan[] {
  return [...contract.operations]
    .sort((a, b) => (a.operationId < b.operationId ? -1 : 1))
    .map((o) => planOperation(contract, o, profile, examples, { ...OPTIONS, ...options }));
}

/** Bodies of every planned case, keyed by test name. */
function bodies(options: Partial<PlanOptions>): Record<string, unknown> {
  return Object.fromEntries(plans(options).flatMap((p) => p.cases.map((c) => [testName(c), c.request.body ?? c.request.rawBody ?? null])));
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

describe('plan', () => {
  test('the case names of the real contract are stable', async () => {
    const names = plans().flatMap((p) => p.cases.map((c) => testName(c)));
    expect(new Set(names).size).toBe(names.length);
    await expect(`${names.join('\n')}\n`).toMatchFileSnapshot('__snapshots__/case-names.txt');
  });

  test('every described operation has a presence case and a positive case', () => {
    const byOp = new Map(plans().map((p) => [p.operation.operationId, p.cases.map((c) => c.name)]));
    expect([...byOp.keys()].sort()).toEqual([...DESCRIBED]);
    for (const names of byOp.values()) expect(names.slice(0, 2)).toEqual(['presence', 'positive']);
  });

  test('case names follow the documented forms', () => {
    const forms = [
      /^presence$/,
      /^positive(: .+)?$/,
      /^auth: (no token|empty bearer token|Basic scheme|malformed token|wrong token|valid token truncated|valid token with one character changed)$/,
      /^negative: (missing body field|wrong type for body field|int32 (out of|below) range in body field|non-uuid path id|int32 (out of|below) range in query) \S+$/,
      /^negative: .+$/,
      /^semantic: .+$/,
      /^lifecycle: (update persisted|use after delete|created record readable|refused create leaves nothing|mass assignment|ownership|sequences|empty collection|reads after edge writes|repeated create)$/,
      /^coverage$/,
      /^fuzzing$/,
      /^paging$/,
    ];
    for (const p of plans()) for (const c of p.cases) expect(forms.some((f) => f.test(c.name)), c.name).toBe(true);
  });

  test('the same seed gives the same bodies', () => {
    expect(bodies({ seed: 7 })).toEqual(bodies({ seed: 7 }));
  });

  test('a different seed gives different generated bodies', () => {
    const a = bodies({ seed: 7 });
    const b = bodies({ seed: 8 });
    const differing = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    expect(differing).toContain('create-address-type › positive');
    expect(differing).toContain('create-address-type-field › positive');
    // Examples (contract/examples.yaml) are data, not generated: the seed does not change them.
    expect(differing).not.toContain('send-forget-password-otp › positive');
  });

  test('--read-only skips every positive and lifecycle case of an unsafe method, with a reason', () => {
    for (const p of plans({ readOnly: true })) {
      for (const c of p.cases) {
        if ((c.kind === 'positive' || c.kind === 'lifecycle') && !SAFE.has(p.operation.method)) {
          expect(c.skip, testName(c)).toMatch(/read-only/);
        }
      }
    }
  });

  test('--read-only sends no body with an auth case of an unsafe method', () => {
    for (const p of plans({ readOnly: true })) {
      if (SAFE.has(p.operation.method)) continue;
      for (const c of p.cases.filter((x) => x.kind === 'auth')) {
        expect(c.request.body, testName(c)).toBeUndefined();
        expect(c.request.auth).not.toBe('valid');
      }
    }
  });

  test('--read-only keeps the presence probes and the safe positive cases that need no records', () => {
    const cases = plans({ readOnly: true }).flatMap((p) => p.cases.map((c) => ({ ...c, method: p.operation.method })));
    expect(cases.filter((c) => c.kind === 'presence').every((c) => c.skip === undefined)).toBe(true);
    expect(cases.find((c) => c.operationId === 'customer-get-cache-key-list' && c.name === 'positive')?.skip).toBeUndefined();
  });

  test('without --allow-irreversible the irreversible positives are skipped with a reason', () => {
    const cases = plans({ allowIrreversible: false }).flatMap((p) => p.cases);
    for (const id of ['send-forget-password-otp', 'create-user', 'get-foreign-trade-reference-number', 'customer-refresh-cache']) {
      expect(cases.find((c) => c.operationId === id && c.name === 'positive')?.skip, id).toMatch(/irreversible/);
    }
    expect(cases.find((c) => c.operationId === 'create-address-type' && c.name === 'positive')?.skip).toBeUndefined();
  });

  test('without an OTP source the case that needs a one-time password is skipped', () => {
    const c = plans({ otpSource: false }).flatMap((p) => p.cases).find((x) => x.operationId === 'verify-forget-password-otp' && x.name === 'positive');
    expect(c?.skip).toMatch(/one-time password/);
  });

  test('a case runs only the setup its request uses: validate-reference-number auth cases need no generated reference', () => {
    const cases = plans({ allowIrreversible: false }).flatMap((p) => p.cases).filter((c) => c.operationId === 'validate-reference-number');
    for (const c of cases.filter((x) => x.kind === 'auth')) {
      expect(c.request.setup, c.name).toEqual([]);
      expect(c.skip, c.name).toBeUndefined();
      expect(JSON.stringify(c.request.body), c.name).not.toContain('{{');
    }
    // The example case with its own reference inherits no setup; the positive case proper keeps it.
    expect(cases.find((c) => c.name === 'semantic: unknown reference is not valid')?.request.setup).toEqual([]);
    expect(cases.find((c) => c.name === 'positive')?.request.setup.map((s) => s.as)).toEqual(['generated']);
    expect(cases.find((c) => c.name === 'positive')?.skip).toMatch(/irreversible/);
  });
});

describe('hostile bodies fail their case, never pass unexamined', () => {
  const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const judged = (res: RecordedResponse) => {
    const operation = op('customer-get-cache-key-list');
    return runChecks({ exchange: exchange(operation.method, operation.path, res), operation, profile, validator, expectation: 'success', expect: [] });
  };

  test('a body larger than the body cap is judged for its status, media type and headers; its body is not, a warning', () => {
    const res = { ...response(200, [], JSON_TYPE), body: '[', truncated: true, size: 5_000_000 };
    const found = judged(res).findings;
    expect(found.map((f) => [f.check, f.severity, f.message])).toEqual([['response-body-readable', 'warning', 'Response 200 body is more than 1 bytes: not judged past 1 bytes (--max-body-size); its status, media type and headers were.']]);
    // With a Content-Length, the size it declares.
    const declared = { ...res, headers: { ...res.headers, 'content-length': '2700000' } };
    expect(judged(declared).findings.map((f) => f.message)).toEqual(['Response 200 body is 2700000 bytes (Content-Length): not judged past 1 bytes (--max-body-size); its status, media type and headers were.']);
  });

  test('a body declared JSON that is not JSON fails response-body-readable', () => {
    const res = { ...response(200, '{"a":', JSON_TYPE), jsonError: 'the body is not valid JSON: Unexpected end of JSON input' };
    expect(judged(res).findings.map((f) => f.check)).toContain('response-body-readable');
  });

  test('the HTTP client keeps no JSON nested deeper than the limit, and says why', async () => {
    const { nestingDepth, MAX_JSON_DEPTH } = await import('../../src/runner/http/client.ts');
    expect(nestingDepth(JSON.parse(deep(100_000)), MAX_JSON_DEPTH)).toBeGreaterThan(MAX_JSON_DEPTH);
    expect(nestingDepth({ a: [{ b: 1 }] }, MAX_JSON_DEPTH)).toBe(3);
  });

  test('arrays nested past the limit are known too deep without parsing, exactly where parsing would say so', async () => {
    const { arraysDeeperThan, nestingDepth } = await import('../../src/runner/http/client.ts');
    // What the client concluded by parsing: valid JSON, deeper than the limit.
    const parsedTooDeep = (text: string, limit: number): boolean => {
      try {
        return nestingDepth(JSON.parse(text), limit) > limit;
      } catch {
        return false;
      }
    };
    expect(arraysDeeperThan(deep(100_000), 512)).toBe(true);
    expect(arraysDeeperThan(deep(512), 512)).toBe(false);
    expect(arraysDeeperThan(` [1, "a\\u00e9\\n", [true, null, -0.5e+3, ${deep(600)}], []]\n`, 512)).toBe(true);
    expect(arraysDeeperThan(`["\\u0010", ${deep(600)}]`, 512)).toBe(true);
    // Not certain without parsing: an object anywhere (a repeated key drops a value), anything that is not JSON.
    for (const text of [`[{"a":1},${deep(600)}]`, `${deep(600)},`, `[${deep(600)}`, `${deep(600)}]`, `[01,${deep(600)}]`, `["\\u12",${deep(600)}]`, `["\u0010",${deep(600)}]`, `[1,]`, '\ufeff[[]]']) {
      expect(arraysDeeperThan(text, 512), text.slice(0, 20)).toBe(false);
    }
    // Never true where parsing would not conclude "too deep": JSON texts and broken ones, at small limits.
    const texts = fc.oneof(
      fc.json({ maxDepth: 6 }),
      fc.json({ maxDepth: 6 }).map((t) => t.replace(/[{}:]/g, (c) => (c === '{' ? '[' : c === '}' ? ']' : ','))),
      fc.tuple(fc.json({ maxDepth: 6 }), fc.nat(), fc.constantFrom('', ',', ']', '[', '"', '\\', '0', '-', 'e', ' ', '\u0000', 'tru')).map(([t, at, c]) => t.slice(0, at % (t.length + 1)) + c + t.slice(at % (t.length + 1))),
      // Nested arrays of scalars, some of them malformed.
      fc.letrec<{ node: string }>((tie) => ({
        node: fc.oneof(
          { depthSize: 'small' },
          fc.oneof(
            fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
            fc.constantFrom('1e', '-', '01', '1.', '.5', '1e+', '-a', '1E5', '-0', '0.0e-0', 'tru', 'nul', 'true', 'null', 'false', '"a"', '"\\u12"', '"\\u00e9"', '"\\x"', '"\u0001"', '"\\""', '"', '{}', '[,]', '[1,]', ''),
          ),
          fc.tuple(fc.array(tie('node'), { maxLength: 3 }), fc.constantFrom('', ' ', '\n')).map(([items, ws]) => `[${ws}${items.join(`,${ws}`)}]`),
        ),
      })).node,
    );
    fc.assert(
      fc.property(texts, fc.integer({ min: 0, max: 4 }), (text, limit) => {
        const quick = arraysDeeperThan(text, limit);
        if (quick) expect(parsedTooDeep(text, limit), text).toBe(true);
        // Arrays only: the same answer as parsing.
        if (!/[{}]/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) expect(quick, text).toBe(parsedTooDeep(text, limit));
      }),
      { numRuns: 5000, seed: 7 },
    );
  });

  test('the schema validator answers a body it cannot walk with an error, never a throw', () => {
    const v = new SchemaValidator();
    const schema = { $ref: '#/$defs/n', $defs: { n: { type: 'array', items: { $ref: '#/$defs/n' } } } };
    const errors = v.validate('deep', schema, JSON.parse(deep(100_000)));
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('redaction by header name', () => {
  test('Authorization keeps its scheme; a one-letter token becomes $CONFORMANCE_TOKEN, other credentials [redacted]', async () => {
    const { redactHeaders } = await import('../../src/runner/http/redact.ts');
    expect(redactHeaders({ Authorization: 'Bearer T', accept: 'T' }, ['T'])).toEqual({ Authorization: 'Bearer $CONFORMANCE_TOKEN', accept: 'T' });
    expect(redactHeaders({ authorization: 'Bearer not a valid token' }, ['T'])).toEqual({ authorization: 'Bearer [redacted]' });
    expect(redactHeaders({ 'x-secret': 'abc' }, ['T'], ['X-Secret'])).toEqual({ 'x-secret': '[redacted]' });
    expect(redactHeaders({ 'proxy-authorization': 'Basic dXNlcjpwYXNz' }, [])).toEqual({ 'proxy-authorization': 'Basic [redacted]' });
  });
});
