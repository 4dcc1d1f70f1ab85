/**
 * Correct deployments of small generic contracts, one OpenAPI 3.0 and one 3.1, each written twice: strict (it
 * refuses whatever its schema does not describe: another media type, null, coerced scalars, an empty query
 * value) and lenient (it binds as most frameworks do by default: a JSON body whatever its Content-Type says, null
 * as not given, scalars coerced, an empty query value as left out). The contracts carry what trips tools: exclusive
 * bounds in the 3.0 (boolean) and 3.1 (number) styles, required readOnly properties, formats, int64 values,
 * .NET-style date-times with seven fractional digits and an offset. Both kinds are correct: no error finding on
 * any, and only the lenient ones take input of the lenient tier.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSafeNumber, LosslessNumber, parse as parseLossless } from 'lossless-json';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, requireResults, resultsSchemaErrors, runCli, summary, tempDir } from '../support/runs.ts';
import { expectReportsAgree } from '../support/reports-agree.ts';
import { curlLines, expectLinesReplay } from '../support/replay.ts';

afterAll(removeTemps);

type Version = '3.0' | '3.1';
type Mode = 'strict' | 'lenient';

/** The contract of each version: the same API, each bound written in its version's style. */
function contract(version: Version): Record<string, unknown> {
  const nullable = (schema: Record<string, unknown>) => (version === '3.1' ? { ...schema, type: [schema['type'], 'null'] } : { ...schema, nullable: true });
  const exclusiveMin = (n: number) => (version === '3.1' ? { exclusiveMinimum: n } : { minimum: n, exclusiveMinimum: true });
  const exclusiveMax = (n: number) => (version === '3.1' ? { exclusiveMaximum: n } : { maximum: n, exclusiveMaximum: true });
  const item = {
    type: 'object',
    required: ['id', 'name', 'price', 'createdAt'],
    properties: {
      id: { type: 'integer', format: 'int64', readOnly: true },
      name: { type: 'string', minLength: 1, maxLength: 20 },
      price: { type: 'number', ...exclusiveMin(0), ...exclusiveMax(10000) },
      quantity: { type: 'integer', format: 'int32', minimum: 0, maximum: 1000 },
      total: { type: 'integer', format: 'int64' },
      ref: nullable({ type: 'string', format: 'uuid' }),
      note: { type: 'string', maxLength: 50 },
      available: { type: 'boolean' },
      createdAt: { type: 'string', format: 'date-time', readOnly: true },
    },
    additionalProperties: false,
  };
  const error = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
  const errors = { '400': { description: 'invalid input', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } };
  const notFound = { '404': { description: 'no such item', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } };
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64', minimum: 1 } };
  const body = { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } };
  const one = { description: 'the item', headers: { 'X-Item-Version': { required: true, schema: { type: 'integer', minimum: 1 } } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } };
  return {
    openapi: version === '3.1' ? '3.1.0' : '3.0.3',
    info: { title: `tiny ${version}`, version: '1' },
    servers: [{ url: 'http://127.0.0.1/tiny' }],
    paths: {
      '/items': {
        get: {
          operationId: 'listItems',
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', format: 'int32', minimum: 1, ...exclusiveMax(101) } },
            { name: 'since', in: 'query', schema: { type: 'string', format: 'date' } },
          ],
          responses: { '200': { description: 'items', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } } }, ...errors },
        },
        post: { operationId: 'createItem', requestBody: body, responses: { '201': { ...one, description: 'created' }, ...errors } },
      },
      '/items/{id}': {
        get: { operationId: 'getItem', parameters: [id], responses: { '200': one, ...errors, ...notFound } },
        put: { operationId: 'replaceItem', parameters: [id], requestBody: body, responses: { '200': one, ...errors, ...notFound } },
        delete: { operationId: 'deleteItem', parameters: [id], responses: { '204': { description: 'deleted' }, ...errors, ...notFound } },
      },
    },
    components: { schemas: { Item: item, Error: error } },
  };
}

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const FIELDS = ['name', 'price', 'quantity', 'total', 'ref', 'note', 'available'];

/** A .NET DateTimeOffset as System.Text.Json writes it: seven fractional digits and an offset. */
function dotnetDate(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}.${String(ms % 1000).padStart(3, '0')}0000+00:00`;
}

/** The item a request body describes, or why it does not: each rule as the contract states it. */
function readItem(raw: unknown, mode: Mode): { item: Record<string, unknown> } | { problem: string } {
  if (mode === 'lenient' && raw === null) raw = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'the body must be an object' };
  const body = { ...(raw as Record<string, unknown>) };
  for (const key of Object.keys(body)) {
    if (key === 'id' || key === 'createdAt') delete body[key]; // readOnly: ignored in a request
    else if (!FIELDS.includes(key)) return { problem: `${key} is not a property of an item` };
  }
  if (mode === 'lenient') {
    for (const key of Object.keys(body)) if (body[key] === null && key !== 'ref') delete body[key];
    for (const key of ['name', 'note']) if (typeof body[key] === 'number' || typeof body[key] === 'boolean') body[key] = String(body[key]);
    for (const key of ['price', 'quantity', 'total']) {
      const v = body[key];
      if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) body[key] = new LosslessNumber(v.trim());
      if (typeof v === 'boolean') body[key] = new LosslessNumber(v ? '1' : '0');
    }
    if (body['available'] === 'true' || body['available'] === 'false') body['available'] = body['available'] === 'true';
    if (body['available'] === 0 || body['available'] === 1) body['available'] = body['available'] === 1;
  }
  const text = (key: string, max: number, min = 0) => typeof body[key] === 'string' && [...(body[key] as string)].length >= min && [...(body[key] as string)].length <= max;
  const number = (key: string) => (body[key] instanceof LosslessNumber ? (body[key] as LosslessNumber).value : undefined);
  const integer = (key: string, lo: bigint, hi: bigint) => {
    const v = number(key);
    if (v === undefined || !/^-?\d+(\.0+)?$/.test(v)) return false;
    const n = BigInt(v.split('.')[0] as string);
    return n >= lo && n <= hi;
  };
  if (!('name' in body) || !text('name', 20, 1)) return { problem: 'name must be 1 to 20 characters' };
  const price = number('price');
  if (price === undefined || !(Number(price) > 0 && Number(price) < 10000)) return { problem: 'price must be above 0 and below 10000' };
  if ('quantity' in body && !integer('quantity', 0n, 1000n)) return { problem: 'quantity must be an integer from 0 to 1000' };
  if ('total' in body && !integer('total', INT64.min, INT64.max)) return { problem: 'total must be an int64' };
  if ('ref' in body && body['ref'] !== null && !(typeof body['ref'] === 'string' && UUID.test(body['ref']))) return { problem: 'ref must be a uuid or null' };
  if ('note' in body && !text('note', 50)) return { problem: 'note must be at most 50 characters' };
  if ('available' in body && typeof body['available'] !== 'boolean') return { problem: 'available must be a boolean' };
  const item: Record<string, unknown> = { name: body['name'], price: new LosslessNumber(price) };
  for (const key of ['quantity', 'total', 'ref', 'note', 'available']) if (key in body) item[key] = body[key];
  return { item };
}

/** A defect on the response side, planted on one operation. */
type Fault = 'plus-json' | 'empty-404' | 'no-header';

/** One deployment of the contract: in-memory items, every answer as documented (but the planted faults). */
function tinyServer(mode: Mode, faults: readonly Fault[] = []): Server {
  const has = (fault: Fault) => faults.includes(fault);
  const items = new Map<string, Record<string, unknown>>();
  const versions = new Map<string, number>();
  let next = 1;
  let operation = '';
  const send = (res: ServerResponse, status: number, value?: unknown, headers: Record<string, string> = {}) => {
    // The faults: getItem answers +json, or its 404 without a body; replaceItem leaves its required header out.
    if (has('empty-404') && operation === 'getItem' && status === 404) value = undefined;
    if (has('no-header') && operation === 'replaceItem') delete headers['x-item-version'];
    const type = has('plus-json') && operation === 'getItem' ? 'application/vnd.item+json' : 'application/json';
    const payload = value === undefined ? '' : (JSON.stringify(value, (_k, v: unknown) => (v instanceof LosslessNumber ? Number(v.value) : v)) ?? '');
    res.writeHead(status, { ...(value === undefined ? {} : { 'content-type': type }), 'content-length': String(Buffer.byteLength(payload)), ...headers }).end(payload);
  };
  const refuse = (res: ServerResponse, message: string) => send(res, 400, { message });
  const present = (res: ServerResponse, status: number, id: string) => send(res, status, { ...items.get(id), id: Number(id) }, { 'x-item-version': String(versions.get(id) ?? 1) });
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname.replace(/^\/tiny/, '');
      const method = req.method ?? 'GET';
      const route = path === '/items' ? 'collection' : /^\/items\/[^/]+$/.test(path) ? 'item' : undefined;
      if (!url.pathname.startsWith('/tiny/') || route === undefined) return send(res, 404, undefined);
      const allowed = route === 'collection' ? ['GET', 'POST'] : ['GET', 'PUT', 'DELETE'];
      operation = route === 'collection' ? (method === 'POST' ? 'createItem' : 'listItems') : ({ GET: 'getItem', PUT: 'replaceItem', DELETE: 'deleteItem' } as Record<string, string>)[method] ?? '';
      if (!allowed.includes(method)) return send(res, 405, undefined, { allow: allowed.join(', ') });
      // A body: JSON under its own media type (strict), or any well-formed JSON (lenient).
      let body: unknown;
      if (method === 'POST' || method === 'PUT') {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (mode === 'strict' && type !== 'application/json') return refuse(res, `unsupported media type ${type}`);
        const raw = Buffer.concat(chunks);
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
          body = parseLossless(text, undefined, (value) => new LosslessNumber(value));
        } catch {
          return refuse(res, 'the body is not JSON');
        }
        if (mode === 'strict' && text.trim() === 'null') return refuse(res, 'the body must be an object');
      }
      if (route === 'collection') {
        if (method === 'POST') {
          const read = readItem(body, mode);
          if ('problem' in read) return refuse(res, read.problem);
          const id = String(next++);
          items.set(id, { ...read.item, createdAt: dotnetDate(Date.now()) });
          versions.set(id, 1);
          return present(res, 201, id);
        }
        for (const [name, value] of url.searchParams) {
          if (!['limit', 'since'].includes(name)) continue;
          if (value === '' && mode === 'lenient') continue;
          if (name === 'limit' && !(/^\d+$/.test(value) && Number(value) >= 1 && Number(value) < 101)) return refuse(res, 'limit must be an integer from 1 to 100');
          if (name === 'since' && !(DATE.test(value) && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString().slice(0, 10) === value)) return refuse(res, 'since must be a date');
        }
        return send(res, 200, [...items].map(([id, item]) => ({ ...item, id: Number(id) })));
      }
      const raw = path.split('/')[2] ?? '';
      if (!/^\d+$/.test(raw) || BigInt(raw) < 1n || BigInt(raw) > INT64.max) return refuse(res, 'the id must be an int64 from 1');
      const id = String(BigInt(raw));
      if (method === 'PUT') {
        const read = readItem(body, mode);
        if ('problem' in read) return refuse(res, read.problem);
        if (!items.has(id)) return send(res, 404, { message: 'no such item' });
        items.set(id, { ...read.item, createdAt: items.get(id)?.['createdAt'] });
        versions.set(id, (versions.get(id) ?? 1) + 1);
        return present(res, 200, id);
      }
      if (!items.has(id)) return send(res, 404, { message: 'no such item' });
      if (method === 'DELETE') {
        items.delete(id);
        return send(res, 204, undefined);
      }
      return present(res, 200, id);
    });
  });
}

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

async function runOn(version: Version, mode: Mode, seed: number, faults: readonly Fault[] = []): Promise<RunResults> {
  const fault = faults.length > 0;
  const server = tinyServer(mode, faults);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const spec = join(await tempDir(), `tiny-${version}.json`);
  writeFileSync(spec, JSON.stringify(contract(version)));
  const run = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}/tiny`, '--token', 'tiny-token', '--quiet', '--seed', String(seed)]);
  const results = requireResults(run);
  expect(resultsSchemaErrors(results)).toEqual([]);
  await expectReportsAgree(run);
  // Every curl line the console printed answers, pasted now, the status the line states.
  await expectLinesReplay(run, { CONFORMANCE_TOKEN: 'tiny-token' });
  // A faulty server's failing finding is printed with a line stating its answer (replayed where it needs no record
  // made first); a correct one prints none.
  if (fault) expect(curlLines(run.stdout).length, run.stdout.slice(0, 4000)).toBeGreaterThan(0);
  else expect(curlLines(run.stdout)).toEqual([]);
  expect(run.code, `${summary(results).join('\n')}\n${allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId} ${f.check}: ${f.message}`).join('\n')}\n${run.stderr}`).toBe(fault ? 1 : 0);
  return results;
}

describe.concurrent.each([['3.0'], ['3.1']] as const)('a correct deployment of a generic OpenAPI %s contract', (version) => {
  // One seed per version and mode, each seed on a strict and a lenient deployment: the faulty deployments below
  // run seeds 1, 2 and 3, and a second seed of the same correct deployment proves nothing the other pairing does not.
  test.each([['strict'], ['lenient']] as const)(
    'written %s: conformant, no error finding, every operation passed',
    async (mode) => {
      for (const seed of [(version === '3.0') === (mode === 'strict') ? 1 : 2]) {
        const results = await runOn(version, mode, seed);
        expect(results.verdict).toBe('conformant');
        expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
        expect(Object.values(results.counts).reduce((a, b) => a + b, 0)).toBe(5);
        expect(results.counts.passed).toBe(5);
        const lenient = new Set(allFindings(results).filter((f) => f.lenient).map((f) => f.inputClass));
        if (mode === 'strict') {
          // A strict deployment refuses what it does not describe (an integer written 2.0 is JSON Schema's integer:
          // it may take it; an upper-case uuid is a uuid, sent as a valid value, never as lenient input).
          expect([...lenient].filter((c) => c !== 'integer-as-decimal')).toEqual([]);
        } else {
          for (const c of ['undeclared-media-type', 'null', 'coercible-type', 'empty-optional-query']) expect([...lenient], c).toContain(c);
        }
      }
    },
    300_000,
  );
});

/** A planted defect: the operation it belongs to and the check that finds it. */
const DEFECTS = {
  'plus-json': ['getItem', 'content-type-conformance'],
  'empty-404': ['getItem', 'response-schema-conformance'],
  'no-header': ['replaceItem', 'response-headers-conformance'],
} as const satisfies Record<Fault, readonly [string, string]>;

describe.concurrent('the response side held to the contract: a planted defect is found on its operation, by its check', () => {
  // The empty 404 (the read's answer to a record it does not hold) and the missing header (the replace's answers)
  // share a deployment: neither touches the other's answers; each is found on its own operation, and no other fails.
  test.each([
    ['a +json media type where application/json is declared', ['plus-json']],
    ['an empty 404 where a JSON error body is declared; a required header left out', ['empty-404', 'no-header']],
  ] as const)('%s', async (_name, faults) => {
    for (const [version, mode, seed] of [['3.0', 'strict', 1], ['3.1', 'lenient', 2], ['3.1', 'strict', 3]] as const) {
      const results = await runOn(version, mode, seed, faults);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      const planted = faults.map((fault) => DEFECTS[fault]);
      expect(new Set(errors.map((f) => f.operationId)), `${version} ${mode}`).toEqual(new Set(planted.map(([operationId]) => operationId)));
      for (const [operationId, check] of planted) expect(new Set(errors.filter((f) => f.operationId === operationId).map((f) => f.check)), `${operationId} ${version} ${mode}`).toEqual(new Set([check]));
      expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId).sort()).toEqual(planted.map(([operationId]) => operationId).sort());
    }
  }, 300_000);
});
