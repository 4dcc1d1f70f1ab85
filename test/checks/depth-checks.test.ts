import { randomUUID } from 'node:crypto';
/**
 * The checks between operations, on the wire and around credentials, judged on hand-built exchanges against
 * the real contract and profile; the HTTP client's decoding against a real server; the auth matrix's tokens.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runChecks } from '../../src/runner/checks/registry.ts';
import { SchemaValidator } from '../../src/runner/checks/schema.ts';
import type { CheckContext, RelatedRead } from '../../src/runner/checks/types.ts';
import { combineAttempts, isDocumentedTransient, repeatPolicy } from '../../src/runner/execute/repeat.ts';
import { AUTH_VARIANTS, authorization, changedToken, derivedSecrets, truncatedToken } from '../../src/runner/http/auth-variants.ts';
import { HttpClient } from '../../src/runner/http/client.ts';
import { redactText } from '../../src/runner/http/redact.ts';
import type { CaseResult, CheckId, Contract, Exchange, Operation, RecordedResponse, Severity } from '../../src/runner/model.ts';
import type { Expectation_ } from '../../src/runner/plan/cases.ts';
import { comparableFields, createOf, listOf, ownerField, readersOfCreated, recordSchema } from '../../src/runner/plan/relations.ts';
import { assignable, writtenRecordSchema } from '../../src/runner/plan/mass-assignment.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfile, type Profile } from '../../src/runner/description/profile.ts';
import { ROOT } from '../support/runs.ts';

const SPECS = ['contract/customer-service.openapi.yaml', 'contract/foreign-trade-service.openapi.yaml'].map((f) => `${ROOT}${f}`);
const A = '3f1c2a9e-8b7d-4c6e-9a5f-1e2d3c4b5a69';
const B = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const F1 = '0b6f1c1e-1111-4c6e-9a5f-1e2d3c4b5a69';
const F2 = '0b6f1c1e-2222-4c6e-9a5f-1e2d3c4b5a69';
const F3 = '0b6f1c1e-3333-4c6e-9a5f-1e2d3c4b5a69';

let contract: Contract;
let profile: Profile;
const validator = new SchemaValidator();

beforeAll(async () => {
  [contract, profile] = await Promise.all([loadContract(SPECS), loadProfile(`${ROOT}contract/profile.yaml`)]);
});

function op(id: string): Operation {
  const found = contract.operations.find((o) => o.operationId === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
}

function res(status: number, body: unknown, extra: Partial<RecordedResponse> = {}, contentType = 'application/json'): RecordedResponse {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers: { 'content-type': contentType }, body: text, ...(json !== undefined ? { json } : {}), truncated: false, size: text.length, ...extra };
}

function ex(path: string, response: RecordedResponse): Exchange & { response: RecordedResponse } {
  return { request: { method: 'GET', url: `http://127.0.0.1:1/customer-service${path}`, headers: {} }, response, durationMs: 1 };
}

function judge(operationId: string, expectation: Expectation_, response: RecordedResponse, reads?: RelatedRead[]): Array<`${CheckId}:${Severity}`> {
  const ctx: CheckContext = { exchange: ex('/x', response), operation: op(operationId), profile, validator, expectation, expect: [], ...(reads ? { reads } : {}) };
  return [...new Set(runChecks(ctx).findings.map((f) => `${f.check}:${f.severity}` as const))].sort();
}

const field = (id: string, typeId: string, extra: Record<string, unknown> = {}) => ({ id, typeId, fieldKey: 'street', isMandatory: true, isVisible: true, isActive: true, sequenceNumber: 1, ...extra });

describe('json-wellformed: a body labelled JSON is exactly one JSON text', () => {
  test.each<[string, RecordedResponse, boolean]>([
    ['a byte-order mark before the JSON', res(200, '\uFEFF[]'), true],
    ['a second JSON text after the first', res(200, '[] []'), true],
    ['text after the JSON', res(200, '[]garbage'), true],
    ['bytes that are not UTF-8', res(200, '[]', { invalidUtf8: true }), true],
    ['pretty-printed JSON with reordered keys', res(200, '[\n  {\n    "mode": "m",\n    "key": "k"\n  }\n]\n'), false],
    ['an empty body', res(200, ''), false],
    ['a non-JSON media type', res(200, 'hello', {}, 'text/plain'), false],
    ['a +json media type with a defect', res(200, '[]x', {}, 'application/problem+json'), true],
  ])('%s', (_name, response, flagged) => {
    expect(judge('customer-get-cache-key-list', 'success', response).includes('json-wellformed:error')).toBe(flagged);
  });
});

describe('success-not-error-envelope: a success that carries the error envelope is a failure', () => {
  test('200 with error.code fails', () => {
    expect(judge('customer-get-cache-key-list', 'success', res(200, { error: { code: 'ERROR' } }))).toContain('success-not-error-envelope:error');
  });
  test('200 with a record passes', () => {
    expect(judge('customer-get-cache-key-list', 'success', res(200, [{ key: 'k' }]))).toEqual([]);
  });
  test('the foreign-trade service has no envelope rule', () => {
    expect(judge('validate-reference-number', 'success', res(200, { IsValid: true, error: { code: 'X' } }))).not.toContain('success-not-error-envelope:error');
  });
});

describe('the created record is the resource: a create answer is typed by the record schema', () => {
  test.each<[string, unknown]>([
    ['a record', { id: A, code: 'HOME', name: 'Home', country: 'TR' }],
    ['a bare array', [{ id: A, country: 'TR' }]],
    ['a page', { total: 1, data: [{ id: A, country: 'TR' }] }],
  ])('country as a string in %s fails', (_name, body) => {
    expect(judge('create-address-type', 'success', res(200, body))).toContain('response-schema-conformance:error');
  });
  test('a field create answering sequenceNumber as a string fails; a well-typed one passes', () => {
    expect(judge('create-address-type-field', 'success', res(200, field(F1, A, { sequenceNumber: '1' })))).toContain('response-schema-conformance:error');
    expect(judge('create-address-type-field', 'success', res(200, field(F1, A)))).toEqual([]);
  });
  test('id stays required; the rest optional', () => {
    expect(judge('create-address-type', 'success', res(200, { code: 'HOME' }))).toContain('response-schema-conformance:error');
    expect(judge('create-address-type', 'success', res(200, { id: A }))).toEqual([]);
  });
});

describe('relations derived from the contract', () => {
  test('readers of created records: by id, nested under the id, in the list', () => {
    const of = (id: string) => readersOfCreated(contract, op(id)).map((r) => `${r.role}:${r.operation.operationId}`).sort();
    expect(of('create-address-type')).toEqual(['nested:get-address-type-field-list']);
    expect(of('create-address-type-field')).toEqual(['item:get-address-type-field-by-id', 'list:get-address-type-field-list']);
    expect(of('create-user')).toEqual([]);
    expect(of('get-foreign-trade-reference-number')).toEqual([]);
  });
  test('the owner field of a child record is its one uuid field besides id', () => {
    expect(ownerField(op('create-address-type-field'), recordSchema(op('get-address-type-field-by-id')))).toEqual({ field: 'typeId', parentParam: 'id' });
    expect(ownerField(op('create-address-type-field'), recordSchema(op('get-address-type-field-list')))).toEqual({ field: 'typeId', parentParam: 'id' });
  });
  test('creates, lists and comparable fields', () => {
    expect(createOf(contract, op('get-address-type-field-by-id'))?.operationId).toBe('create-address-type-field');
    expect(listOf(contract, op('delete-address-type-field'))?.operationId).toBe('get-address-type-field-list');
    expect(listOf(contract, op('delete-address-type'))).toBeUndefined();
    const sent = { fieldKey: 'k', isMandatory: true, sequenceNumber: 3, separatorMark: ',', unknown: 1 };
    expect(comparableFields(sent, recordSchema(op('get-address-type-field-by-id'))).sort()).toEqual(['fieldKey', 'isMandatory', 'separatorMark', 'sequenceNumber']);
  });
});

function read(operationId: string, role: RelatedRead['role'], status: number, body: unknown, over: Partial<RelatedRead> = {}): RelatedRead {
  return { operation: op(operationId), role, exchange: ex('/address-types/x', res(status, body)), id: F1, parentIds: { id: A }, ...over };
}

describe('created-resource-readable: read-your-writes, on the create', () => {
  const sent = { fieldKey: 'street', isMandatory: true, sequenceNumber: 1 };
  const judgeCreate = (reads: RelatedRead[]) => judge('create-address-type-field', 'created-readable', res(200, field(F1, A)), reads);
  test('served by id and listed, fields equal: nothing', () => {
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 200, field(F1, A), { sent }), read('get-address-type-field-list', 'list', 200, [field(F1, A)], { sent })])).toEqual([]);
  });
  test('the created id is not served (400 with the envelope)', () => {
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 400, { error: { code: 'ERR_PLAT_4' } })])).toEqual(['created-resource-readable:error']);
  });
  test('a nested reader does not serve the id', () => {
    expect(judge('create-address-type', 'created-readable', res(200, { id: A }), [read('get-address-type-field-list', 'nested', 400, { error: { code: 'ERR_PLAT_4' } }, { id: A })])).toEqual([
      'created-resource-readable:error',
    ]);
  });
  test('a field reads back different', () => {
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 200, field(F1, A, { fieldKey: 'other' }), { sent })])).toEqual(['created-resource-readable:error']);
  });
  test('missing from the list', () => {
    expect(judgeCreate([read('get-address-type-field-list', 'list', 200, [field(F2, A)])])).toEqual(['created-resource-readable:error']);
  });
  test('missing from the first page of a longer list (a total beyond the page, or a full page of a paged list): nothing, a page proves nothing', () => {
    expect(judgeCreate([read('get-address-type-field-list', 'list', 200, { data: [field(F2, A)], total: 25 })])).toEqual([]);
    const full = Array.from({ length: 10 }, () => field(randomUUID(), A));
    expect(judgeCreate([read('get-address-type-field-list', 'list', 200, full)])).toEqual([]);
  });
  test('another record answered', () => {
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 200, field(F2, A))])).toEqual(['created-resource-readable:error']);
  });
  test("a reader's own server error or missing route is not the create's fault", () => {
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 500, { error: { code: 'ERROR' } }), read('get-address-type-field-list', 'list', 404, { message: 'no route' })])).toEqual([]);
  });
});

describe('ownership: on the reader', () => {
  const owner = { field: 'typeId', value: A };
  test('a list holding only its parent’s children, owner fields right: nothing', () => {
    expect(judge('get-address-type-field-list', 'ownership', res(200, []), [read('get-address-type-field-list', 'list', 200, [field(F1, A), field(F2, A)], { members: [F1, F2], foreign: [F3], owner })])).toEqual([]);
  });
  test("a list holding another parent's child", () => {
    expect(judge('get-address-type-field-list', 'ownership', res(200, []), [read('get-address-type-field-list', 'list', 200, [field(F1, A), field(F2, A), field(F3, B)], { members: [F1, F2], foreign: [F3] })])).toEqual(['ownership:error']);
  });
  test('an owner field that does not name the parent', () => {
    expect(judge('get-address-type-field-by-id', 'ownership', res(200, {}), [read('get-address-type-field-by-id', 'item', 200, field(F1, B), { owner })])).toEqual(['ownership:error']);
  });
  test('get-by-id answering another record', () => {
    expect(judge('get-address-type-field-by-id', 'ownership', res(200, {}), [read('get-address-type-field-by-id', 'item', 200, field(F2, A), { owner })])).toEqual(['ownership:error']);
  });
  test('a child served under another parent', () => {
    expect(judge('get-address-type-field-by-id', 'ownership', res(200, {}), [read('get-address-type-field-by-id', 'item', 200, field(F1, A), { crossParent: true, parentIds: { id: B } })])).toEqual(['ownership:error']);
    expect(judge('get-address-type-field-by-id', 'ownership', res(200, {}), [read('get-address-type-field-by-id', 'item', 400, { error: { code: 'ERR_PLAT_4' } }, { crossParent: true })])).toEqual([]);
  });
});

describe('use-after-delete: gone from get-by-id and from the parent list', () => {
  const ctx = (listBody: unknown): CheckContext => ({
    exchange: ex('/x', res(200, {})),
    operation: op('delete-address-type-field'),
    profile,
    validator,
    expectation: 'use-after-delete',
    expect: [],
    lifecycle: { readBack: ex('/x', res(400, { error: { code: 'ERR_PLAT_4' } })) },
    reads: [read('get-address-type-field-list', 'list', 200, listBody)],
  });
  test('still listed', () => {
    expect(runChecks(ctx([field(F1, A)])).findings.map((f) => f.check)).toEqual(['use-after-delete']);
  });
  test('not listed', () => {
    expect(runChecks(ctx([field(F2, A)])).findings).toEqual([]);
  });
  test('a list of ids (bare, or the one array of a wrapper) that still names the deleted id still lists it', () => {
    expect(runChecks(ctx({ field_ids: [F2, F1] })).findings.map((f) => f.check)).toEqual(['use-after-delete']);
    expect(runChecks(ctx([F1])).findings.map((f) => f.check)).toEqual(['use-after-delete']);
    expect(runChecks(ctx({ field_ids: [F2] })).findings).toEqual([]);
  });
});

describe('auth matrix tokens and their redaction', () => {
  const token = 'tok-abcdefghijklmnop-1234';
  test('seven refused credentials, each different from the valid header', () => {
    expect(AUTH_VARIANTS.map(([mode]) => mode)).toEqual(['none', 'empty', 'basic', 'malformed', 'wrong', 'truncated', 'changed']);
    for (const [mode] of AUTH_VARIANTS) expect(authorization(mode, token)).not.toBe(`Bearer ${token}`);
    expect(truncatedToken(token)).toBe(token.slice(0, -1));
    expect(changedToken(token)).toHaveLength(token.length);
    expect(changedToken(token)).not.toBe(token);
  });
  test('the token and the tokens derived from it are redacted, each to its own placeholder', () => {
    const text = ['Bearer', token, truncatedToken(token), changedToken(token), `Basic ${token}`].join(' ');
    const out = redactText(text, derivedSecrets(token));
    for (const secret of [token, truncatedToken(token), changedToken(token)]) expect(out).not.toContain(secret);
    expect(out).toContain('$CONFORMANCE_TOKEN~truncated');
    expect(out).toContain('$CONFORMANCE_TOKEN~changed');
  });
});

describe('identical calls: transient retry and flaky counts', () => {
  const c = (outcome: CaseResult['outcome']): CaseResult => ({ name: 'positive', kind: 'positive', outcome, durationMs: 1, checks: [], findings: [], exchanges: [] });
  test('a mix of passed and failed is flaky with the counts', () => {
    expect(combineAttempts([c('passed'), c('failed'), c('passed')])).toMatchObject({ outcome: 'flaky', flaky: { attempts: 3, failed: 1 } });
  });
  test('the same status with other bodies once the state changed is failed, not flaky; the same body answered differently is flaky', () => {
    const empty = { status: 200, body: '[]' };
    const listed = { status: 200, body: '[{"id":1,"day":"2026-11-27T10:00:00Z"}]' };
    const changed = combineAttempts([c('passed'), c('failed'), c('failed')], [empty, listed, listed]);
    expect(changed.outcome).toBe('failed');
    expect(changed.flaky).toBeUndefined();
    expect(combineAttempts([c('passed'), c('failed'), c('passed')], [listed, { status: 500, body: '' }, listed])).toMatchObject({ outcome: 'flaky', flaky: { attempts: 3, failed: 1 } });
  });
  test('all passed or all failed is not flaky', () => {
    expect(combineAttempts([c('passed'), c('passed'), c('passed')]).outcome).toBe('passed');
    expect(combineAttempts([c('failed'), c('failed'), c('failed')]).outcome).toBe('failed');
  });
  test('a documented 408 with its envelope is transient; without it, or undocumented, it is not', () => {
    expect(isDocumentedTransient(op('customer-get-cache-key-list'), { status: 408, json: { error: { code: 'ERR_PLAT_33' } } }, profile)).toBe(true);
    expect(isDocumentedTransient(op('customer-get-cache-key-list'), { status: 408, json: { message: 'slow' } }, profile)).toBe(false);
    expect(isDocumentedTransient(op('customer-get-cache-key-list'), { status: 503, json: { error: { code: 'X' } } }, profile)).toBe(false);
  });
  test('what may be repeated', () => {
    expect(repeatPolicy(op('customer-get-cache-key-list'), profile)).toBe('always');
    expect(repeatPolicy(op('update-address-type'), profile)).toBe('on-failure');
    expect(repeatPolicy(op('create-address-type'), profile)).toBe('on-failure');
    expect(repeatPolicy(op('delete-address-type'), profile)).toBe('never');
    expect(repeatPolicy(op('create-user'), profile)).toBe('never');
  });
});

describe('the HTTP client decodes what it asked for, the cap after decoding', () => {
  let server: Server;
  let base: string;
  const json = Buffer.from(JSON.stringify([{ key: 'k', mode: 'm' }]));
  beforeAll(async () => {
    server = createServer((req, res) => {
      const accepted = req.headers['accept-encoding'] ?? '';
      const route = req.url ?? '/';
      if (route === '/gzip') res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-accepted': accepted }).end(gzipSync(json));
      else if (route === '/deflate') res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' }).end(deflateSync(json));
      else if (route === '/br') res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' }).end(brotliCompressSync(json));
      else if (route === '/bomb') res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(BOMB);
      else if (route === '/latin1') res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from([0x5b, 0x22, 0xe9, 0x22, 0x5d]));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  // 64 MiB of zeros compress to about 64 KiB: far over the cap once decoded.
  const BOMB = gzipSync(Buffer.alloc(64 * 1024 * 1024));
  const client = () => new HttpClient({ timeoutMs: 10_000, bodyCapBytes: 1024 * 1024, connections: 2, secrets: [] });

  test.each(['gzip', 'deflate', 'br'])('%s is decoded', async (coding) => {
    const c = client();
    const e = await c.send({ method: 'GET', url: `${base}/${coding}`, headers: {} });
    await c.close();
    expect(e.response?.json).toEqual([{ key: 'k', mode: 'm' }]);
    expect(e.request.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  test('a compression bomb is cut after decoding, without reading it whole', async () => {
    const c = client();
    const e = await c.send({ method: 'GET', url: `${base}/bomb`, headers: {} });
    await c.close();
    expect(e.response?.truncated).toBe(true);
    expect(e.response?.body.length).toBe(1024 * 1024);
    expect(e.response?.size).toBeLessThan(8 * 1024 * 1024);
  });

  test('bytes that are not UTF-8 are flagged', async () => {
    const c = client();
    const e = await c.send({ method: 'GET', url: `${base}/latin1`, headers: {} });
    await c.close();
    expect(e.response?.invalidUtf8).toBe(true);
  });
});

describe('semantic-expectation: what the interface states an answer means', () => {
  const judgeSemantic = (status: number, body: unknown) => {
    const ctx: CheckContext = {
      exchange: ex('/x', res(status, body)),
      operation: op('validate-reference-number'),
      profile,
      validator,
      expectation: 'semantic',
      expect: [{ pointer: '/IsValid', notEquals: true }],
    };
    return runChecks(ctx).findings.map((f) => `${f.check}:${f.severity}`);
  };
  test('a value never issued judged valid fails', () => {
    expect(judgeSemantic(200, { IsValid: true })).toEqual(['semantic-expectation:error']);
  });
  test('judged not valid, or refused with a 4xx, passes', () => {
    expect(judgeSemantic(200, { IsValid: false })).toEqual([]);
    expect(judgeSemantic(400, { message: 'bad' })).toEqual([]);
  });
  test('a server error is not-a-server-error, not a semantic failure', () => {
    expect(judgeSemantic(500, { message: 'boom' })).toEqual(['not-a-server-error:error']);
  });
});

describe('mass assignment: what an update does not accept is sent apart, and applying it fails', () => {
  // An address type with a reader, as a fuller contract would describe it (this one has no GET by id).
  const record = { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, code: { type: 'string' }, name: { type: 'string' }, isActive: { type: 'boolean' } } };
  test('the record fields absent from the update schema are found, the record\'s own id left out', () => {
    expect(assignable(op('update-address-type'), record).map((a) => [a.name, a.why])).toEqual([['code', 'not-accepted']]);
  });
  test('without a reader, the record is the one its collection\'s create answers: code is found there too', () => {
    expect(assignable(op('update-address-type'), writtenRecordSchema(contract, op('update-address-type'))).map((a) => a.name)).toEqual(['code']);
  });
  test('a create is sent what its schema lacks of the record it answers (isActive), never its id', () => {
    expect(assignable(op('create-address-type'), writtenRecordSchema(contract, op('create-address-type'))).map((a) => [a.name, a.why])).toEqual([['isActive', 'not-accepted']]);
  });
  const judgeUpdate = (status: number, readBody: unknown) =>
    runChecks({
      exchange: ex('/x', res(status, status < 300 ? {} : { error: { code: 'ERR_PLAT_1', message: 'invalid' } })),
      operation: op('update-address-type'),
      profile,
      validator,
      expectation: 'mass-assignment',
      expect: [],
      massAssignment: { sent: [{ name: 'code', value: 'x7k2m9q4z1a', why: 'not-accepted' }], record: readBody, shownBy: 'read' },
    }).findings.filter((f) => f.check === 'mass-assignment').map((f) => `${f.severity}: ${f.message}`);
  test('code applied by the update fails, on the update, naming code', () => {
    expect(judgeUpdate(200, { id: A, code: 'x7k2m9q4z1a', name: 'Work', isActive: false })).toEqual([
      'error: PUT /address-types/{id} applied `code`, which its request schema does not accept (as the record read after it shows).',
    ]);
  });
  test('code left as it was, absent from the record, or the update refused: nothing', () => {
    expect(judgeUpdate(200, { id: A, code: 'HOME', name: 'Work', isActive: false })).toEqual([]);
    expect(judgeUpdate(200, { id: A, name: 'Work' })).toEqual([]);
    expect(judgeUpdate(400, undefined)).toEqual([]);
  });
});

describe('a broken reader is not blamed on the create', () => {
  const sent = { fieldKey: 'street', isMandatory: true, sequenceNumber: 1 };
  const judgeCreate = (reads: RelatedRead[]) => judge('create-address-type-field', 'created-readable', res(200, field(F1, A)), reads);
  test('an undocumented 404 with the envelope is the reader’s', () => {
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 404, { error: { code: 'ERR_PLAT_4' } })])).toEqual([]);
  });
  test('a reader body that breaks its own schema is the reader’s', () => {
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 200, field(F1, A, { sequenceNumber: '1' }), { sent })])).toEqual([]);
    expect(judgeCreate([read('get-address-type-field-by-id', 'item', 200, field('field-1', A), { sent })])).toEqual([]);
  });
});
