/**
 * HTTP's own promises about writes, which a contract does not restate: PUT is idempotent (RFC 9110 §9.2.2: the same
 * PUT sent again leaves the record as the first did) and a 201's Location names the created record (§10.2.2,
 * §15.3.2: a GET of it serves that record). A small real server of an OpenAPI 3.1 contract (POST /items, GET and
 * PUT /items/{id}) under a gateway's base path /base, correct (strict and lenient; a readOnly updatedAt that moves
 * on every write; a Location given relative, absolute, as a full URL, or not at all) and with planted defects: a
 * PUT that counts every write into a property the client does not own, or appends to a list, and a Location that
 * names another record, a path that is not served, or leaves the base path out (a PUT defect and a Location defect
 * may share a deployment: the one is the PUT's, the other the create's, and neither touches what the other judges). The replace takes the name alone, so
 * a write that moves the revision or the tags is no update-persisted defect: only the repeat shows it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { changedByRepeat } from '../../src/runner/checks/put-idempotent.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

type Mode = 'strict' | 'lenient';
/**
 * How the 201 names the created record: a path with the base path, relative to /base/items, a full URL, a full URL
 * of another origin (localhost for the target's 127.0.0.1: the same server, which must not see it followed), none.
 */
type LocationStyle = 'path' | 'relative' | 'url' | 'other-origin' | 'none';
type Fault = 'revision-grows' | 'tags-grow' | 'location-other-record' | 'location-unserved' | 'location-no-base';

const json = (schema: unknown) => ({ 'application/json': { schema } });
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
/** What a create sends: the server keeps the rest (id, revision, updatedAt). */
const INPUT = {
  type: 'object',
  required: ['name', 'tags'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 20 },
    tags: { type: 'array', minItems: 1, maxItems: 5, items: { type: 'string', minLength: 1, maxLength: 10 } },
  },
};
/** What a replace sends: the name (the tags stay as created). */
const RENAME = { type: 'object', required: ['name'], additionalProperties: false, properties: { name: INPUT.properties.name } };
/** The record: its revision counts the writes that changed it (not readOnly), updatedAt the last write (readOnly). */
const ITEM = {
  type: 'object',
  required: ['id', 'name', 'tags', 'revision'],
  properties: {
    id: { type: 'integer', minimum: 1, readOnly: true },
    name: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    revision: { type: 'integer', minimum: 1 },
    updatedAt: { type: 'string', format: 'date-time', readOnly: true },
    views: { type: 'integer', minimum: 0 },
  },
};

function contract(): Record<string, unknown> {
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
  const invalid = { '400': { description: 'invalid', content: json(ERROR) } };
  const missing = { '404': { description: 'no such item', content: json(ERROR) } };
  const body = { required: true, content: json(INPUT) };
  const rename = { required: true, content: json(RENAME) };
  const item = { description: 'the item', content: json(ITEM) };
  return {
    openapi: '3.1.0',
    info: { title: 'items behind a gateway', version: '1' },
    servers: [{ url: 'http://127.0.0.1/base' }],
    paths: {
      '/items': {
        post: {
          operationId: 'createItem',
          requestBody: body,
          responses: { '201': { ...item, headers: { Location: { description: 'the created item', schema: { type: 'string' } } } }, ...invalid },
        },
      },
      '/items/{id}': {
        get: { operationId: 'getItem', parameters: [id], responses: { '200': item, ...invalid, ...missing } },
        put: { operationId: 'replaceItem', parameters: [id], requestBody: rename, responses: { '200': item, ...invalid, ...missing } },
      },
    },
  };
}

/**
 * The input a body describes, or why not: strict takes only what the schema says; lenient coerces scalars and drops
 * nulls. A replace takes the name alone.
 */
function readInput(raw: unknown, mode: Mode, replace: boolean): { name: string; tags?: string[] } | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'the body must be an object';
  const body = { ...(raw as Record<string, unknown>) };
  if (mode === 'lenient') {
    for (const key of Object.keys(body)) if (body[key] === null) delete body[key];
    if (typeof body['name'] === 'number' || typeof body['name'] === 'boolean') body['name'] = String(body['name']);
    if (Array.isArray(body['tags'])) body['tags'] = body['tags'].map((t: unknown) => (typeof t === 'number' || typeof t === 'boolean' ? String(t) : t));
  }
  const extra = Object.keys(body).find((k) => k !== 'name' && (replace || k !== 'tags'));
  if (extra !== undefined) return `${extra} is not a property of an item`;
  const text = (v: unknown, max: number) => typeof v === 'string' && [...v].length >= 1 && [...v].length <= max;
  if (!text(body['name'], 20)) return 'name must be 1 to 20 characters';
  if (replace) return { name: body['name'] as string };
  const tags = body['tags'];
  if (!Array.isArray(tags) || tags.length < 1 || tags.length > 5 || !tags.every((t) => text(t, 10))) return 'tags must be 1 to 5 texts of 1 to 10 characters';
  return { name: body['name'] as string, tags: tags as string[] };
}

interface Variant {
  mode: Mode;
  location: LocationStyle;
  updatedAt?: boolean;
  /** Each read counts itself in the record's `views` (not readOnly): reads differ with no write between them. */
  views?: boolean;
  /** The planted defects: none, one, or a PUT's and a Location's together. */
  fault?: Fault | readonly Fault[];
}

/**
 * The items server under /base: record 1 is there from the start; every answer as documented but the planted fault.
 * `hosts` gets the Host header of every request.
 */
function itemsServer(v: Variant, hosts: string[] = []): Server {
  const has = (fault: Fault) => [v.fault ?? []].flat().includes(fault);
  const items = new Map<string, Record<string, unknown>>([['1', { id: 1, name: 'seed', tags: ['seed'], revision: 1 }]]);
  let next = 2;
  const send = (res: ServerResponse, status: number, value?: unknown, headers: Record<string, string> = {}) => {
    const payload = value === undefined ? '' : JSON.stringify(value);
    res.writeHead(status, { ...(value === undefined ? {} : { 'content-type': 'application/json' }), 'content-length': String(Buffer.byteLength(payload)), ...headers }).end(payload);
  };
  const locationOf = (id: string, port: number): string | undefined => {
    if (has('location-other-record')) return '/base/items/1';
    if (has('location-unserved')) return `/base/item/${id}`;
    if (has('location-no-base')) return `/items/${id}`;
    const url = `http://127.0.0.1:${port}/base/items/${id}`;
    return { path: `/base/items/${id}`, relative: `items/${id}`, url, 'other-origin': url.replace('127.0.0.1', 'localhost'), none: undefined }[v.location];
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hosts.push(req.headers.host ?? '');
      const url = new URL(req.url ?? '/', 'http://x');
      const method = req.method ?? 'GET';
      const route = url.pathname === '/base/items' ? 'collection' : /^\/base\/items\/[^/]+$/.test(url.pathname) ? 'item' : undefined;
      if (route === undefined) return send(res, 404, { message: 'no such route' });
      const allowed = route === 'collection' ? ['POST'] : ['GET', 'PUT'];
      if (!allowed.includes(method)) return send(res, 405, undefined, { allow: allowed.join(', ') });
      let input: ReturnType<typeof readInput> = 'no body';
      if (method !== 'GET') {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (v.mode === 'strict' && type !== 'application/json') return send(res, 400, { message: `unsupported media type ${type}` });
        try {
          input = readInput(JSON.parse(Buffer.concat(chunks).toString('utf8')), v.mode, method === 'PUT');
        } catch {
          return send(res, 400, { message: 'the body is not JSON' });
        }
        if (typeof input === 'string') return send(res, 400, { message: input });
      }
      const stamp = v.updatedAt ? { updatedAt: new Date().toISOString() } : {};
      if (route === 'collection' && typeof input === 'object') {
        const id = String(next++);
        items.set(id, { id: Number(id), ...input, revision: 1, ...stamp });
        const location = locationOf(id, (server.address() as AddressInfo).port);
        return send(res, 201, items.get(id), location === undefined ? {} : { location });
      }
      const raw = url.pathname.split('/')[3] ?? '';
      if (!/^\d+$/.test(raw) || BigInt(raw) < 1n) return send(res, 400, { message: 'the id must be an integer from 1' });
      const stored = items.get(BigInt(raw).toString());
      if (!stored) return send(res, 404, { message: 'no such item' });
      if (method === 'GET' && v.views) stored['views'] = ((stored['views'] as number | undefined) ?? 0) + 1;
      if (method === 'GET' || typeof input !== 'object') return send(res, 200, stored);
      // A write counts as a revision when it changes the item (the faults: on every write, and a tag added by each).
      const tags = has('tags-grow') ? [...(stored['tags'] as string[]), 'edited'] : stored['tags'];
      const changed = JSON.stringify([stored['name'], stored['tags']]) !== JSON.stringify([input.name, tags]);
      const revision = (stored['revision'] as number) + (changed || has('revision-grows') ? 1 : 0);
      const record = { id: stored['id'], name: input.name, tags, revision, ...stamp, ...(stored['views'] !== undefined ? { views: stored['views'] } : {}) };
      items.set(String(stored['id']), record);
      return send(res, 200, record);
    });
  });
  return server;
}

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

async function runOn(variant: Variant, seed: number, hosts: string[] = []): Promise<RunResults> {
  const server = itemsServer(variant, hosts);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const spec = join(await tempDir(), 'items.json');
  writeFileSync(spec, JSON.stringify(contract()));
  const run = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}/base`, '--quiet', '--seed', String(seed)]);
  const results = requireResults(run);
  const errors = allFindings(results).filter((f) => f.severity === 'error');
  expect(run.code, `${summary(results).join('\n')}\n${errors.map((f) => `${f.operationId} ${f.check}: ${f.message}`).join('\n')}\n${run.stderr}`).toBe(variant.fault ? 1 : 0);
  return results;
}

const OURS = new Set(['put-idempotent', 'location-serves-record']);

/** The cases of the operation in which the check ran and passed (results.json counts them per operation). */
function passedIn(results: RunResults, operationId: string, check: string): number {
  return operation(results, operationId).passedChecks?.[check] ?? 0;
}

// Each correct deployment runs one seed, the seeds varied across them: the planted defects below run seeds 1, 2 and
// 3, and a second seed of a deployment that flags nothing proves nothing the first does not.
describe.concurrent('a correct deployment: nothing found, the record read the same after a repeated PUT, the Location served', () => {
  test.each([
    ['strict, Location with the base path (seed 1)', { mode: 'strict', location: 'path' }, 1],
    ['lenient, Location relative to the collection (seed 2)', { mode: 'lenient', location: 'relative' }, 2],
    ['strict, a readOnly updatedAt moved by every write, Location as a full URL (seed 3)', { mode: 'strict', location: 'url', updatedAt: true }, 3],
    ['lenient, no Location at all (seed 1)', { mode: 'lenient', location: 'none' }, 1],
    ['strict, every read counts itself in views (a reader that differs with no write: the repeat is not judged on it) (seed 2)', { mode: 'strict', location: 'path', views: true }, 2],
  ] as const)('%s', async (_name, variant, only) => {
    for (const seed of [only]) {
      const results = await runOn(variant, seed);
      expect(results.verdict, `seed ${seed}`).toBe('conformant');
      expect(allFindings(results).filter((f) => f.severity === 'error'), `seed ${seed}`).toEqual([]);
      expect(allFindings(results).filter((f) => OURS.has(f.check)), `seed ${seed}`).toEqual([]);
      // The repeat was compared (the check passed a judgement, not an absence of reads); the Location check ran on the create.
      if (!('views' in variant)) expect(passedIn(results, 'replaceItem', 'put-idempotent'), `seed ${seed}`).toBe(1);
      expect(passedIn(results, 'createItem', 'location-serves-record'), `seed ${seed}`).toBe(1);
    }
  }, 300_000);
});

/** A planted defect: the operation it belongs to, the check that finds it, what the finding says. */
const DEFECTS = {
  'revision-grows': ['replaceItem', 'put-idempotent', /revision 2 after the first, 3 after the second/],
  'tags-grow': ['replaceItem', 'put-idempotent', /tags \[.*\] after the first, \[.*\] after the second/],
  'location-other-record': ['createItem', 'location-serves-record', /with Location \/base\/items\/1, which served the record 1, not the created \d+/],
  'location-unserved': ['createItem', 'location-serves-record', /with Location \/base\/item\/\d+, which answered 404\.$/],
  'location-no-base': ['createItem', 'location-serves-record', /with Location \/items\/\d+, which answered 404: the Location leaves out the base path \/base the client sees/],
} as const satisfies Record<Fault, readonly [string, string, RegExp]>;

describe.concurrent('a planted defect is found on its operation, by its check, as an error', () => {
  // A PUT defect and a Location defect share a deployment: the one is the PUT's repeat, the other the create's
  // Location, and neither changes what the other judges; each is found on its own operation, and no other fails.
  test.each([
    ['a PUT that counts every write into revision (not readOnly); a Location that names another record', ['revision-grows', 'location-other-record']],
    ['a PUT that appends to tags (which it does not take); a Location on a path that is not served', ['tags-grow', 'location-unserved']],
    ['a Location without the base path', ['location-no-base']],
  ] as const)('%s', async (_name, faults) => {
    for (const [mode, seed] of [['strict', 1], ['lenient', 2], ['strict', 3]] as const) {
      const results = await runOn({ mode, location: 'path', fault: faults }, seed);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      const planted = faults.map((fault) => DEFECTS[fault]);
      expect(new Set(errors.map((f) => f.operationId)), `${mode} ${seed}`).toEqual(new Set(planted.map(([operationId]) => operationId)));
      for (const [operationId, check, message] of planted) {
        const on = errors.filter((f) => f.operationId === operationId);
        expect(new Set(on.map((f) => f.check)), `${operationId} ${mode} ${seed}`).toEqual(new Set([check]));
        expect(on.map((f) => f.message).join('\n'), `${operationId} ${mode} ${seed}`).toMatch(message);
      }
      expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId).sort()).toEqual(planted.map(([operationId]) => operationId).sort());
    }
  }, 300_000);
});

describe.concurrent('a Location on another origin than the target', () => {
  // One seed: nothing is flagged here, and whether a Location is followed does not depend on the values drawn.
  test('is not followed: a note on the create, nothing else found (seed 3)', async () => {
    for (const seed of [3]) {
      const hosts: string[] = [];
      const results = await runOn({ mode: 'strict', location: 'other-origin' }, seed, hosts);
      expect(results.verdict, `seed ${seed}`).toBe('conformant');
      const ours = allFindings(results).filter((f) => OURS.has(f.check));
      expect(ours.map((f) => [f.operationId, f.check, f.severity]), `seed ${seed}`).toEqual([['createItem', 'location-serves-record', 'info']]);
      expect(ours[0]?.message).toMatch(/^POST \/base\/items answered 201 with Location http:\/\/localhost:\d+\/base\/items\/\d+, on another origin \(http:\/\/localhost:\d+\) than the target's: not followed\.$/);
      expect(hosts.filter((h) => !h.startsWith('127.0.0.1:')), `seed ${seed}`).toEqual([]);
    }
  }, 300_000);
});

describe('what a repeated PUT may change on its own (changedByRepeat)', () => {
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'integer', readOnly: true },
      version: { type: 'integer', readOnly: true },
      count: { type: 'integer' },
      modified: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
      meta: { type: 'object', properties: { etag: { type: 'string', readOnly: true }, label: { type: 'string' } } },
      lines: { type: 'array', items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, text: { type: 'string' } } } },
      free: { type: 'object' },
    },
  };
  const record = { id: 1, version: 1, count: 1, modified: '2024-01-01T00:00:00Z', meta: { etag: 'a', label: 'x' }, lines: [{ at: '2024-01-01T00:00:00Z', text: 't' }], free: { k: 1 }, extra: 1 };

  test('readOnly and date-time properties (nested, in list items, under anyOf) and undeclared ones are not compared', () => {
    const moved = { ...record, version: 2, modified: null, meta: { etag: 'b', label: 'x' }, lines: [{ at: '2024-02-02T00:00:00Z', text: 't' }], extra: 2 };
    expect(changedByRepeat(record, moved, schema)).toEqual({});
  });

  test('a counter that grew, a list that grew, a nested value or a free-form object that changed are', () => {
    const changed = { ...record, count: 2, meta: { etag: 'a', label: 'y' }, lines: [...record.lines, { at: '2024-01-01T00:00:00Z', text: 't' }], free: { k: 2 } };
    expect(Object.keys(changedByRepeat(record, changed, schema)).sort()).toEqual(['count', 'free', 'lines', 'meta']);
    expect(changedByRepeat(record, { ...record, count: 2 }, schema)).toEqual({ count: [1, 2] });
  });
});
