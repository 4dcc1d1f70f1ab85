/**
 * The coverage classes of a path parameter (plan/path-classes.ts, plan/coverage-classes.ts): the encoding edges,
 * encoded separators and a dot segment behind an encoded `/`, sent as raw segments and judged for their answer
 * only; 2^63 in a string id, first; no bare dot segment; the raw segment as the URL carries it (request-builder,
 * WHATWG URL as undici parses it, and a node:http server's req.url); the path of a read by id fuzzed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import type { JsonSchema, Operation, ParameterSpec } from '../../src/runner/model.ts';
import { coverageRequests, type CoverageRequest } from '../../src/runner/plan/coverage-classes.ts';
import { INPUT_CLASSES } from '../../src/runner/plan/input-tiers.ts';
import { RAW_SEGMENTS } from '../../src/runner/plan/path-classes.ts';
import { fuzzedPath } from '../../src/runner/plan/fuzz-inputs.ts';
import { fuzzes } from '../../src/runner/plan/cases.ts';
import { Random } from '../../src/runner/plan/random.ts';
import { RequestBuilder } from '../../src/runner/execute/request-builder.ts';
import { itemRequest } from '../../src/runner/execute/phases/coverage.ts';
import { request } from '../../src/runner/http/undici.ts';
import { Agent } from '../../src/runner/http/undici.ts';

function op(over: Partial<Operation> & Pick<Operation, 'method' | 'path'>): Operation {
  return { operationId: `${over.method} ${over.path}`, group: '/', service: 'svc', specFile: 'spec.json', pointer: '', parameters: [], responses: [], secured: false, extensions: {}, ...over };
}
const param = (name: string, where: ParameterSpec['in'], schema: JsonSchema): ParameterSpec => ({ name, in: where, required: where === 'path', schema, pointer: '' });
const items = (schema: JsonSchema, method: Operation['method'] = 'GET', max = 400) =>
  coverageRequests(op({ method, path: '/items/{id}', parameters: [param('id', 'path', schema)] }), { pathParams: { id: '7' }, query: {} }, new Random('1'), max);
const RAW_CLASSES = ['invalid-percent-encoding', 'encoded-separator', 'dot-segment'];

describe('the path classes', () => {
  test.each([[{ type: 'integer' }], [{ type: 'string' }], [{ type: 'string', format: 'uuid' }], [{ type: 'integer', format: 'int64', minimum: 1 }]])('every raw segment for a path parameter %j, as it is, judged for its answer only', (schema) => {
    const raw = items(schema).filter((i) => RAW_CLASSES.includes(i.class));
    // Each once (in the round robin's order: the first of each kind first).
    expect(raw.map((i) => `${i.class} ${i.rawPathParams?.['id']}`).sort()).toEqual(RAW_SEGMENTS.map((s) => `${s.class} ${s.raw}`).sort());
    expect(raw.slice(0, 3).map((i) => i.class)).toEqual(RAW_CLASSES);
    for (const i of raw) {
      expect(i.judgeAs, i.label).toBe('response');
      expect(i.pathParams, i.label).toBeUndefined();
      expect(i.label).toMatch(/^path\.id = \S+ \(.*sent raw\)$/);
      expect(INPUT_CLASSES[i.class as keyof typeof INPUT_CLASSES]).toBe('response-only');
    }
    expect(raw.map((i) => i.label)).toContain('path.id = %C0%AF (an overlong UTF-8 sequence for "/", sent raw)');
  });

  test('not for a query, header or cookie parameter, nor a body field', () => {
    for (const where of ['query', 'header', 'cookie'] as const) {
      const list = coverageRequests(op({ method: 'GET', path: '/items', parameters: [param('p', where, { type: 'string' })] }), { pathParams: {}, query: {} }, new Random('1'), 400);
      expect(list.filter((i) => RAW_CLASSES.includes(i.class) || i.rawPathParams), where).toEqual([]);
    }
  });

  test('a small budget still sends a raw segment for the path parameter, before a second item of a kind it sent', () => {
    const first = items({ type: 'integer' }, 'GET', 8).map((i) => i.class);
    expect(first[0]).toBe('beyond-int64');
    expect(first).toEqual(expect.arrayContaining(RAW_CLASSES));
  });

  test('a string id that takes digits gets 2^63 first, on every method, as a probe; a uuid, an enum or a pattern without digits none', () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const [first] = items({ type: 'string' }, method);
      expect(first, method).toMatchObject({ class: 'beyond-int64', pathParams: { id: '9223372036854775808' }, judgeAs: 'response', valid: true, label: 'path.id = "9223372036854775808" (beyond int64, in a string)' });
    }
    for (const schema of [{ type: 'string', format: 'uuid' }, { type: 'string', enum: ['a', 'b'] }, { type: 'string', pattern: '^[a-z]+$' }, { type: 'string', maxLength: 8 }]) {
      expect(items(schema).filter((i) => i.class === 'beyond-int64' && typeof i.pathParams?.['id'] === 'string' && i.pathParams['id'] === '9223372036854775808'), JSON.stringify(schema)).toEqual([]);
    }
    // An integer keeps its own: 2^63 first, then the others.
    expect(items({ type: 'integer' }).filter((i) => i.class === 'beyond-int64').map((i) => i.pathParams?.['id'])).toEqual(['9223372036854775808', '-9223372036854775809', '18446744073709551616', '-18446744073709551616']);
  });

  test('no bare dot segment is ever sent: a value "." or ".." is left out', () => {
    const dots = items({ type: 'string', pattern: '^\\.{1,2}$' }).filter((i) => ['.', '..'].includes(i.pathParams?.['id'] ?? ''));
    expect(dots).toEqual([]);
  });
});

describe('a raw segment on the wire', () => {
  const operation = op({ method: 'GET', path: '/items/{id}/parts', parameters: [param('id', 'path', { type: 'integer' })] });
  const builder = new RequestBuilder({ baseUrls: { svc: 'http://127.0.0.1:1/api' }, runId: 'r', token: () => '', profileOf: () => ({ auth: { header: 'Authorization', everyOperation: false } }) as never });

  test('the builder puts it in verbatim, over the encoded value, and WHATWG URL keeps it; a bare dot segment it would resolve', () => {
    const item: CoverageRequest = { label: 'x', valid: false, class: 'encoded-separator', judgeAs: 'response', rawPathParams: { id: 'a%2Fb' } };
    const request = itemRequest(operation, { pathParams: { id: '7' }, query: {} }, item);
    expect(request.location).toBe('path');
    const url = builder.build(operation, request).url;
    expect(url).toBe('http://127.0.0.1:1/api/items/a%2Fb/parts');
    for (const s of RAW_SEGMENTS) expect(new URL(builder.url(operation, {}, {}, { id: s.raw })).pathname).toBe(`/api/items/${s.raw}/parts`);
    // What the classes leave out: the parser resolves every dot segment, encoded ones too.
    for (const dots of ['..', '%2E%2E', '.%2e']) expect(new URL(`http://h/api/items/${dots}/parts`).pathname).toBe('/api/parts');
    // The encoded value, as before, where no raw segment is given.
    expect(builder.url(operation, { id: 'a/b' })).toBe('http://127.0.0.1:1/api/items/a%2Fb/parts');
  });

  test('undici sends it unchanged: the server reads it in req.url', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    const agent = new Agent();
    try {
      const local = new RequestBuilder({ baseUrls: { svc: base }, runId: 'r', token: () => '', profileOf: () => ({ auth: { header: 'Authorization', everyOperation: false } }) as never });
      for (const s of RAW_SEGMENTS) {
        const answer = await request(local.url(operation, {}, {}, { id: s.raw }), { dispatcher: agent });
        await answer.body.dump();
      }
    } finally {
      await agent.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(seen).toEqual(RAW_SEGMENTS.map((s) => `/api/items/${s.raw}/parts`));
  });
});

describe('the fuzzing of a path', () => {
  const id = param('id', 'path', { type: 'integer' });
  test('a safe read that takes nothing but its path has it drawn; an unsafe method, or one with other inputs, keeps the record', () => {
    expect(fuzzedPath(op({ method: 'GET', path: '/items/{id}', parameters: [id] }))).toEqual(['id']);
    expect(fuzzes(op({ method: 'GET', path: '/items/{id}', parameters: [id] }))).toBe(true);
    expect(fuzzedPath(op({ method: 'GET', path: '/items/{id}', parameters: [id, param('q', 'query', { type: 'string' })] }))).toEqual([]);
    expect(fuzzedPath(op({ method: 'PUT', path: '/items/{id}', parameters: [id] }))).toEqual([]);
    expect(fuzzes(op({ method: 'DELETE', path: '/items/{id}', parameters: [id] }))).toBe(false);
    expect(fuzzes(op({ method: 'POST', path: '/items/{id}/archive', parameters: [id] }))).toBe(false);
  });
});
