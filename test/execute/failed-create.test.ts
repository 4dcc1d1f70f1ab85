/**
 * A refused create leaves nothing behind (failed-create-no-side-effects, WFC 104). A collection (`POST /items` with
 * its list, read and delete) and records a PUT creates at the id its path names (`PUT /docs/{docId}`), on a tiny
 * server written five ways: a faulty one that stores the record before it validates the body and then refuses it
 * with 400 (on the POST and on the PUT), and four correct ones that store nothing on a refusal: strict, lenient (scalars
 * coerced, null as not given, unknown properties ignored), one refusing with 422, one whose refusal names the id
 * the record would have had (body and Location), which then answers 404. Under three seeds the faulty one fails
 * exactly its two creates, each by this check; the correct ones are conformant without a finding of it. Below, the body
 * the planning builds (where the marker goes, what is made invalid) and the page size a list is asked for.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { JsonSchema, Operation, RunResults } from '../../src/runner/model.ts';
import { largestPage, refusedBody } from '../../src/runner/plan/refused-create.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const refusals = { '400': { description: 'invalid', ...json(ERROR) }, '415': { description: 'not JSON', ...json(ERROR) }, '422': { description: 'unprocessable', ...json(ERROR) } };
const notFound = { '404': { description: 'no such record', ...json(ERROR) } };
const name = { type: 'string', minLength: 1, maxLength: 40 };
const quantity = { type: 'integer', minimum: 0, maximum: 1000 };
const note = { type: 'string', maxLength: 200 };
const ITEM = { type: 'object', required: ['id', 'name', 'quantity'], properties: { id: { type: 'integer', minimum: 1 }, name, quantity, note } };
const ITEM_INPUT = { type: 'object', required: ['name', 'quantity'], properties: { name, quantity, note } };
const title = { type: 'string', minLength: 1, maxLength: 60 };
const pages = { type: 'integer', minimum: 1, maximum: 500 };
const DOC = { type: 'object', required: ['id', 'title', 'pages'], properties: { id: { type: 'string' }, title, pages } };
const DOC_INPUT = { type: 'object', required: ['title', 'pages'], properties: { title, pages } };
const itemId = [{ name: 'itemId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }];
const docId = [{ name: 'docId', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 40 } }];

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'refused creates', version: '1' },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 } }],
        responses: { '200': { description: 'the first page, oldest first (20 unless limit says)', ...json({ type: 'array', items: ITEM }) }, '400': { description: 'invalid', ...json(ERROR) } },
      },
      post: { operationId: 'createItem', requestBody: { required: true, ...json(ITEM_INPUT) }, responses: { '201': { description: 'made', ...json(ITEM) }, ...refusals } },
    },
    '/items/{itemId}': {
      get: { operationId: 'getItem', parameters: itemId, responses: { '200': { description: 'one', ...json(ITEM) }, '400': { description: 'invalid', ...json(ERROR) }, ...notFound } },
      delete: { operationId: 'deleteItem', parameters: itemId, responses: { '204': { description: 'gone' }, '400': { description: 'invalid', ...json(ERROR) }, ...notFound } },
    },
    '/docs/{docId}': {
      get: { operationId: 'getDoc', parameters: docId, responses: { '200': { description: 'one', ...json(DOC) }, ...notFound } },
      put: { operationId: 'putDoc', parameters: docId, requestBody: { required: true, ...json(DOC_INPUT) }, responses: { '200': { description: 'replaced', ...json(DOC) }, '201': { description: 'made', ...json(DOC) }, ...refusals } },
      delete: { operationId: 'deleteDoc', parameters: docId, responses: { '204': { description: 'gone' }, ...notFound } },
    },
  },
};

type Mode = 'faulty' | 'strict' | 'lenient' | 'unprocessable' | 'names-id';
type Fields = Record<string, unknown>;

/** A field read as its schema's type: the lenient modes coerce scalars and read null as not given. */
function read(value: unknown, type: 'string' | 'integer', lenient: boolean): unknown {
  if (!lenient || value === undefined) return value;
  if (value === null) return undefined;
  if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  if (type === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
  if (type === 'integer' && typeof value === 'boolean') return Number(value);
  return value;
}

const text = (v: unknown, min: number, max: number) => typeof v === 'string' && [...v].length >= min && [...v].length <= max;
const whole = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** The body's fields as the mode reads them, when they are valid (the rules of ITEM_INPUT or DOC_INPUT), else undefined. */
function valid(body: unknown, kind: 'item' | 'doc', lenient: boolean): Fields | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Fields;
  if (kind === 'doc') {
    const [t, p] = [read(b['title'], 'string', lenient), read(b['pages'], 'integer', lenient)];
    return text(t, 1, 60) && whole(p, 1, 500) ? { title: t, pages: p } : undefined;
  }
  const [n, q, o] = [read(b['name'], 'string', lenient), read(b['quantity'], 'integer', lenient), read(b['note'], 'string', lenient)];
  if (!text(n, 1, 40) || !whole(q, 0, 1000) || (o !== undefined && !text(o, 0, 200))) return undefined;
  return { name: n, quantity: q, ...(o !== undefined ? { note: o } : {}) };
}

/** What a faulty mode stores of a body before it validates it: what fits, defaults for the rest (its records still conform). */
function storedAnyway(body: unknown, kind: 'item' | 'doc'): Fields {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Fields;
  if (kind === 'doc') return { title: text(b['title'], 1, 60) ? b['title'] : 'untitled', pages: whole(b['pages'], 1, 500) ? b['pages'] : 1 };
  return { name: text(b['name'], 1, 40) ? b['name'] : 'unnamed', quantity: whole(b['quantity'], 0, 1000) ? b['quantity'] : 0, ...(text(b['note'], 0, 200) ? { note: b['note'] } : {}) };
}

interface Store {
  items: Map<number, Fields>;
  docs: Map<string, Fields>;
  next: number;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

const say = (status: number, message: string): Answer => ({ status, body: { message } });

/** The refusal of an invalid body: 422 in the unprocessable mode; with the would-be id (body and Location) in the names-id mode. */
function refusal(mode: Mode, why: string, would?: number): Answer {
  if (would !== undefined) return { status: 400, body: { message: why, id: would }, headers: { location: `/t/items/${would}` } };
  return say(mode === 'unprocessable' ? 422 : 400, why);
}

/** The answer to one request: routing, media type and JSON first, then the collection, an item, a doc. */
function answer(mode: Mode, store: Store, method: string, url: URL, contentType: string, raw: string): Answer {
  const item = /^\/t\/items\/([^/]+)$/.exec(url.pathname);
  const doc = /^\/t\/docs\/([^/]+)$/.exec(url.pathname);
  const allowed = url.pathname === '/t/items' ? 'GET, POST' : item ? 'GET, DELETE' : doc ? 'GET, PUT, DELETE' : undefined;
  if (allowed === undefined) return { status: 404, body: 'no route', headers: { 'content-type': 'text/plain' } };
  if (!allowed.split(', ').includes(method)) return { status: 405, headers: { allow: allowed } };
  let body: unknown;
  if (method === 'POST' || method === 'PUT') {
    if (mode !== 'lenient' && !/^application\/json\b/.test(contentType)) return say(415, 'send JSON');
    try {
      body = JSON.parse(raw);
    } catch {
      return say(400, 'malformed JSON');
    }
  }
  if (item) return itemAnswer(store, method, item[1]!);
  if (doc) return docAnswer(mode, store, method, decodeLeniently(doc[1]!), body);
  return collectionAnswer(mode, store, method, url, body);
}

/** The list (oldest first, 20 unless `limit` says) and the create (the faulty mode stores before it validates). */
function collectionAnswer(mode: Mode, store: Store, method: string, url: URL, body: unknown): Answer {
  const lenient = mode === 'lenient';
  if (method === 'GET') {
    const given = url.searchParams.get('limit');
    const limit = given === null || (lenient && given === '') ? 20 : /^\d+$/.test(given) ? Number(given) : NaN;
    return whole(limit, 1, 1000) ? { status: 200, body: [...store.items.values()].slice(0, limit) } : say(400, 'limit: 1 to 1000');
  }
  const id = store.next++;
  if (mode === 'faulty') store.items.set(id, { id, ...storedAnyway(body, 'item') });
  const fields = valid(body, 'item', lenient);
  if (!fields) return refusal(mode, 'invalid item', mode === 'names-id' ? id : undefined);
  store.items.set(id, { id, ...fields });
  return { status: 201, body: store.items.get(id) };
}

function itemAnswer(store: Store, method: string, text: string): Answer {
  const id = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!whole(id, 1, Number.MAX_SAFE_INTEGER)) return say(400, 'itemId: a positive integer');
  if (!store.items.has(id)) return say(404, 'no such item');
  if (method === 'GET') return { status: 200, body: store.items.get(id) };
  store.items.delete(id);
  return { status: 204 };
}

/** A doc read, deleted, or put at the id its path names (the faulty mode stores before it validates). */
function docAnswer(mode: Mode, store: Store, method: string, key: string, body: unknown): Answer {
  if (method === 'GET') return store.docs.has(key) ? { status: 200, body: store.docs.get(key) } : say(404, 'no such doc');
  if (method === 'DELETE') return store.docs.delete(key) ? { status: 204 } : say(404, 'no such doc');
  if ([...key].length < 1 || [...key].length > 40) return refusal(mode, 'docId: 1 to 40 characters');
  const existed = store.docs.has(key);
  if (mode === 'faulty') store.docs.set(key, { id: key, ...storedAnyway(body, 'doc') });
  const fields = valid(body, 'doc', mode === 'lenient');
  if (!fields) return refusal(mode, 'invalid doc');
  store.docs.set(key, { id: key, ...fields });
  return { status: existed ? 200 : 201, body: store.docs.get(key) };
}

interface Started extends Store {
  url: string;
  close: () => Promise<void>;
}

async function start(mode: Mode): Promise<Started> {
  const store: Store = { items: new Map(), docs: new Map(), next: 1 };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const { status, body, headers = {} } = answer(mode, store, req.method ?? 'GET', new URL(req.url ?? '/', 'http://x'), req.headers['content-type'] ?? '', raw);
      if (body === undefined) return res.writeHead(status, headers).end();
      if (typeof body === 'string') return res.writeHead(status, headers).end(body);
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { ...store, url: `http://127.0.0.1:${port}/t`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const MARKER = /refused-[0-9a-f]{8}/;

/** Runs the CLI against the mode under a seed; `probe` looks at the server's records after the run, before it stops. */
async function run(mode: Mode, seed: number, probe?: (started: Started) => void): Promise<RunResults> {
  const spec = join(await tempDir(), 'refused.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const started = await start(mode);
  try {
    const results = requireResults(await runCli(['--spec', spec, '--base-url', started.url, '--quiet', '--seed', String(seed), '--fuzz-examples', '10', '--keep-passed-exchanges']));
    probe?.(started);
    return results;
  } finally {
    await started.close();
  }
}

const CASE = 'lifecycle: refused create leaves nothing';
const SEEDS = [1, 2, 3];

/** The faulty deployment's run under a seed, and the marked records it still held after the run (its clean-up done). */
interface FaultyRun {
  results: RunResults;
  markedItems: unknown[];
  markedDocs: string[];
}

describe.concurrent('failed-create-no-side-effects', () => {
  // The faulty deployment stores before it validates on both its creates: the POST's records and the PUT's are
  // separate collections, neither touches what the other's case lists or reads. One run per seed, read by the two
  // tests below; each asserts the failing operations are exactly the two creates, each by this check alone.
  const faultyRuns = new Map<number, Promise<FaultyRun>>();
  const faulty = (seed: number): Promise<FaultyRun> => {
    if (!faultyRuns.has(seed)) {
      const left: Omit<FaultyRun, 'results'> = { markedItems: [], markedDocs: [] };
      const probe = ({ items, docs }: Started) => {
        left.markedItems = [...items.values()].filter((r) => MARKER.test(String(r['name'])));
        left.markedDocs = [...docs.keys()].filter((k) => MARKER.test(k));
      };
      faultyRuns.set(seed, run('faulty', seed, probe).then((results) => ({ results, ...left })));
    }
    return faultyRuns.get(seed)!;
  };
  const failedCreates = (results: RunResults) => {
    expect(results.verdict, summary(results).join('\n')).toBe('not-conformant');
    expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId).sort()).toEqual(['createItem', 'putDoc']);
    const errors = allFindings(results).filter((f) => f.severity === 'error');
    expect(errors.map((f) => [f.operationId, f.check]).sort()).toEqual([['createItem', 'failed-create-no-side-effects'], ['putDoc', 'failed-create-no-side-effects']]);
    return errors;
  };

  test.each(SEEDS)('a POST that stores the record before it refuses the body fails by this check, its operation no other (seed %i); the record found is deleted', async (seed) => {
    const { results, markedItems } = await faulty(seed);
    // The marked record was found, and the clean-up deleted it (the other refused creates' records stay: nothing names them).
    expect(markedItems).toEqual([]);
    const errors = failedCreates(results).filter((f) => f.operationId === 'createItem');
    const op = operation(results, 'createItem');
    expect(op.cases.filter((c) => c.outcome === 'failed').map((c) => c.name)).toEqual([CASE]);
    expect(errors[0]!.message).toMatch(/^POST \/t\/items answered 400 to an invalid create \((name|quantity) (left out|as an? \w+)\), yet GET \/t\/items lists a record carrying its marker refused-[0-9a-f]{8} \(id \d+\): the refused create was stored\.$/);
    expect(errors[0]!.faultCode).toBe(104);
    // The list was asked for its largest first page: the records the other refused creates left fill the default one.
    const exchanges = op.cases.find((c) => c.name === CASE)!.exchanges;
    expect(exchanges.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search}`)).toEqual(['GET /t/items?limit=1000', 'POST /t/items', 'GET /t/items?limit=1000']);
    expect(results.leftBehind ?? []).toEqual([]);
  }, 240_000);

  test.each(SEEDS)('a PUT that stores the record its path names before it refuses the body fails by this check, its operation no other (seed %i)', async (seed) => {
    const { results, markedDocs } = await faulty(seed);
    expect(markedDocs).toEqual([]);
    const errors = failedCreates(results).filter((f) => f.operationId === 'putDoc');
    expect(errors[0]!.message).toMatch(/^PUT \/t\/docs\/refused-[0-9a-f]{8} answered 400 to an invalid create \((title|pages) (left out|as an? \w+)\), yet GET \/t\/docs\/refused-[0-9a-f]{8} then answered 200: the refused request stored the record it names\.$/);
  }, 240_000);

  // The correct deployments, each under one seed, the three seeds shared among them (the faulty ones above run every seed).
  const correct = [['strict', 1], ['lenient', 2], ['unprocessable', 3], ['names-id', 1]] as const;
  test.each(correct)('a %s deployment that stores nothing on a refusal is conformant, every operation passed (seed %i)', async (mode, seed) => {
    const results = await run(mode, seed);
    expect(results.verdict, summary(results).join('\n')).toBe('conformant');
    expect(results.operations.filter((o) => o.outcome !== 'passed').map((o) => `${o.operationId}: ${o.outcome}`)).toEqual([]);
    expect(allFindings(results).filter((f) => f.check === 'failed-create-no-side-effects' || f.severity === 'error')).toEqual([]);
    for (const id of ['createItem', 'putDoc']) {
      const chain = operation(results, id).cases.find((c) => c.name === CASE);
      expect(chain?.outcome, `${id}: ${chain?.skipReason}`).toBe('passed');
      // The check judged the refusal (a passed case lists no checks: the operation counts them).
      expect(operation(results, id).passedChecks?.['failed-create-no-side-effects'], id).toBe(1);
    }
    if (mode === 'names-id') {
      // The refusal named the would-be id: it was read, and answered 404.
      const reads = operation(results, 'createItem').cases.find((c) => c.name === CASE)!.exchanges.filter((e) => /\/t\/items\/\d+$/.test(e.request.url));
      expect(reads.map((e) => e.response?.status)).toEqual([404]);
    }
  }, 240_000);
});

/** A create of `schema` (a JSON body), or a list with these query parameters: just what the planning reads. */
function op(method: 'POST' | 'GET', schema?: JsonSchema, query: Array<{ name: string; schema: JsonSchema }> = []): Operation {
  return {
    operationId: `${method.toLowerCase()}Things`,
    method,
    path: '/things',
    group: '/things',
    service: 'svc',
    specFile: 'things.json',
    pointer: '',
    parameters: query.map((q) => ({ ...q, in: 'query' as const, required: false, pointer: '' })),
    ...(schema ? { requestBody: { required: true, contentType: 'application/json', schema, pointer: '' } } : {}),
    responses: method === 'GET' ? [{ status: '200', contentTypes: ['application/json'], schema: { type: 'array', items: {} }, pointer: '' }] : [],
    secured: false,
    extensions: {},
  };
}

describe('the refused body and the page asked for', () => {
  const marker = 'refused-0123abcd';

  test('the marker goes into a free-text property, a required one first; another required one is left out', () => {
    const schema = { type: 'object', required: ['code', 'label'], properties: { code: { type: 'string', enum: ['a', 'b'] }, note: { type: 'string' }, label: { type: 'string', maxLength: 30 } } };
    expect(refusedBody(op('POST', schema), { code: 'a', label: 'x', note: 'y' }, marker)).toEqual({ body: { label: marker, note: 'y' }, field: 'label', change: 'code left out', inputClass: 'missing-required' });
  });

  test('where the marked property is the only required one, another is sent as a JSON kind no parser coerces', () => {
    const schema = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, size: { type: 'integer' } } };
    expect(refusedBody(op('POST', schema), { name: 'x', size: 3 }, marker)).toMatchObject({ body: { name: marker, size: [3] }, field: 'name', change: 'size as an array', inputClass: 'wrong-type' });
  });

  test('no property takes the marker (a format, a pattern, too short, a reference), or none other can be made invalid: no case', () => {
    const refusing = { type: 'object', properties: { at: { type: 'string', format: 'date' }, code: { type: 'string', pattern: '^[A-Z]+$' }, tag: { type: 'string', maxLength: 4 }, owner_id: { type: 'string' }, n: { type: 'integer' } } };
    expect(refusedBody(op('POST', refusing), { n: 1 }, marker)).toBeUndefined();
    expect(refusedBody(op('POST', { type: 'object', properties: { name: { type: 'string' } } }), { name: 'x' }, marker)).toBeUndefined();
  });

  test('a list is asked for the largest page its contract declares, and for its default page where it declares no maximum', () => {
    expect(largestPage(op('GET', undefined, [{ name: 'per_page', schema: { type: 'integer', minimum: 1, maximum: 250 } }]))).toEqual({ per_page: 250 });
    expect(largestPage(op('GET', undefined, [{ name: 'pageSize', schema: { type: 'integer', format: 'int32' } }]))).toEqual({});
    expect(largestPage(op('GET', undefined, [{ name: 'offset', schema: { type: 'integer', maximum: 10 } }]))).toEqual({});
  });
});
