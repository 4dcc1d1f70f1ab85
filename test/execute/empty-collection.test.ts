/**
 * A collection asked empty (lifecycle: empty collection). A flat collection (`/pets`) and one nested under a parent
 * (`/owners/{ownerId}/toys`), each with its list, create, read and delete, on a tiny server written three ways: a
 * faulty one whose list answers 404 with an empty body once a delete has left the collection empty (only 200 is
 * documented), a correct strict one and a correct lenient one (scalars coerced, null as not given, any media type;
 * its lists answer a page, `{"items": [], "total": 0}` when empty). With --allow-irreversible the case deletes what
 * the list serves, records the run did not make too (three seeded pets); without it only the run's own, and the
 * seeded pets are still there after the run. Under three seeds the faulty server fails its lists by
 * status-code-conformance in this case, with words saying what was deleted before; the correct ones are conformant.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadContract } from '../../src/runner/description/load.ts';
import { loadProfiles, profileFor } from '../../src/runner/description/profiles.ts';
import type { RunResults } from '../../src/runner/model.ts';
import { planOperation, type PlanOptions } from '../../src/runner/plan/cases.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

type Mode = 'faulty' | 'strict' | 'lenient';
type Fields = Record<string, unknown>;

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const invalid = { '400': { description: 'invalid', ...json(ERROR) } };
const refusals = { ...invalid, '415': { description: 'not JSON', ...json(ERROR) } };
const notFound = { '404': { description: 'no such record', ...json(ERROR) } };
const id = { type: 'integer', minimum: 1 };
const text = { type: 'string', minLength: 1, maxLength: 40 };
const PET = { type: 'object', required: ['id', 'name'], properties: { id, name: text, tag: { type: 'string', maxLength: 20 } } };
const PET_INPUT = { type: 'object', required: ['name'], properties: { name: text, tag: { type: 'string', maxLength: 20 } } };
const OWNER = { type: 'object', required: ['id', 'name'], properties: { id, name: text } };
const TOY = { type: 'object', required: ['id', 'ownerId', 'label'], properties: { id, ownerId: id, label: text } };
const pathId = (name: string) => ({ name, in: 'path', required: true, schema: id });
const limit = [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } }];

/** The contract: lists answer a bare array, or (the lenient server's) a page. */
function spec(page: boolean): unknown {
  const list = (record: unknown) =>
    page ? { type: 'object', required: ['items', 'total'], properties: { items: { type: 'array', items: record }, total: { type: 'integer', minimum: 0 } } } : { type: 'array', items: record };
  const item = (name: string, record: unknown, params: unknown[]) => ({
    get: { operationId: `get${name}`, parameters: params, responses: { '200': { description: 'one', ...json(record) }, ...invalid, ...notFound } },
    delete: { operationId: `delete${name}`, parameters: params, responses: { '204': { description: 'gone' }, ...invalid, ...notFound } },
  });
  return {
    openapi: '3.1.0',
    info: { title: 'collections asked empty', version: '1' },
    paths: {
      '/pets': {
        get: { operationId: 'listPets', parameters: limit, responses: { '200': { description: 'the first page (20 unless limit says)', ...json(list(PET)) }, ...invalid } },
        post: { operationId: 'createPet', requestBody: { required: true, ...json(PET_INPUT) }, responses: { '201': { description: 'made', ...json(PET) }, ...refusals } },
      },
      '/pets/{petId}': item('Pet', PET, [pathId('petId')]),
      '/owners': { post: { operationId: 'createOwner', requestBody: { required: true, ...json({ type: 'object', required: ['name'], properties: { name: text } }) }, responses: { '201': { description: 'made', ...json(OWNER) }, ...refusals } } },
      '/owners/{ownerId}': item('Owner', OWNER, [pathId('ownerId')]),
      '/owners/{ownerId}/toys': {
        get: { operationId: 'listToys', parameters: [pathId('ownerId'), ...limit], responses: { '200': { description: "the owner's toys (none for an owner not known)", ...json(list(TOY)) }, ...invalid } },
        post: { operationId: 'createToy', parameters: [pathId('ownerId')], requestBody: { required: true, ...json({ type: 'object', required: ['label'], properties: { label: text } }) }, responses: { '201': { description: 'made', ...json(TOY) }, ...refusals, ...notFound } },
      },
      '/owners/{ownerId}/toys/{toyId}': item('Toy', TOY, [pathId('ownerId'), pathId('toyId')]),
    },
  };
}

interface Store {
  pets: Map<number, Fields>;
  owners: Map<number, Fields>;
  toys: Map<number, Fields>;
  /** The collections a delete left empty: the faulty server's lists answer 404 for them while they stay empty. */
  emptied: Set<string>;
  next: number;
}

interface Answer {
  status: number;
  body?: unknown;
}

const say = (status: number, message: string): Answer => ({ status, body: { message } });
const lengthIn = (v: unknown, min: number, max: number) => typeof v === 'string' && [...v].length >= min && [...v].length <= max;

/** A body field as the mode reads it: the lenient one coerces scalars to text and reads null as not given. */
function field(body: Fields, name: string, lenient: boolean): unknown {
  const v = body[name];
  if (!lenient) return v;
  if (v === null) return undefined;
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
}

/** A JSON object body's text fields as the mode reads them, when each is valid (required ones present); else undefined. */
function fields(body: unknown, rules: Record<string, [number, number, boolean]>, lenient: boolean): Fields | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const out: Fields = {};
  for (const [name, [min, max, required]] of Object.entries(rules)) {
    const v = field(body as Fields, name, lenient);
    if (v === undefined && !required) continue;
    if (!lengthIn(v, min, max)) return undefined;
    out[name] = v;
  }
  return out;
}

/** A path id: a positive integer. */
function pathNumber(text: string): number | undefined {
  return /^[1-9]\d{0,15}$/.test(text) ? Number(text) : undefined;
}

/** A list's first page (20 unless `limit` says), or its faulty 404 once a delete left it empty. */
function listAnswer(mode: Mode, store: Store, key: string, records: Fields[], url: URL): Answer {
  const given = url.searchParams.get('limit');
  const size = given === null || (mode === 'lenient' && given.trim() === '') ? 20 : /^\d+$/.test(given.trim()) && (mode === 'lenient' || given === given.trim()) ? Number(given) : NaN;
  if (!(size >= 1 && size <= 100)) return say(400, 'limit: 1 to 100');
  if (mode === 'faulty' && records.length === 0 && store.emptied.has(key)) return { status: 404 };
  const page = records.slice(0, size);
  return { status: 200, body: mode === 'lenient' ? { items: page, total: records.length } : page };
}

/** Removes a record; the faulty server notes a collection the delete left empty. */
function remove(store: Store, map: Map<number, Fields>, key: number, collection: string, left: () => number): Answer {
  if (!map.delete(key)) return say(404, 'no such record');
  if (left() === 0) store.emptied.add(collection);
  return { status: 204 };
}

function answer(mode: Mode, store: Store, method: string, url: URL, body: unknown): Answer {
  const lenient = mode === 'lenient';
  const path = url.pathname.replace(/^\/t/, '');
  const toysOf = (owner: number) => [...store.toys.values()].filter((t) => t['ownerId'] === owner);
  if (path === '/pets' && method === 'GET') return listAnswer(mode, store, 'pets', [...store.pets.values()], url);
  if (path === '/pets' || path === '/owners') {
    const made = fields(body, path === '/pets' ? { name: [1, 40, true], tag: [0, 20, false] } : { name: [1, 40, true] }, lenient);
    if (!made) return say(400, 'invalid body');
    const record = { id: store.next++, ...made };
    (path === '/pets' ? store.pets : store.owners).set(record.id, record);
    return { status: 201, body: record };
  }
  const pet = /^\/pets\/([^/]+)$/.exec(path);
  if (pet) {
    const key = pathNumber(pet[1]!);
    if (key === undefined) return say(400, 'petId: a positive integer');
    if (method === 'GET') return store.pets.has(key) ? { status: 200, body: store.pets.get(key) } : say(404, 'no such pet');
    return remove(store, store.pets, key, 'pets', () => store.pets.size);
  }
  const owner = /^\/owners\/([^/]+)(?:\/toys(?:\/([^/]+))?)?$/.exec(path);
  if (!owner) return say(404, 'no route');
  const ownerId = pathNumber(owner[1]!);
  if (ownerId === undefined) return say(400, 'ownerId: a positive integer');
  const collection = `toys of ${ownerId}`;
  if (!path.includes('/toys')) {
    if (method === 'GET') return store.owners.has(ownerId) ? { status: 200, body: store.owners.get(ownerId) } : say(404, 'no such owner');
    for (const toy of toysOf(ownerId)) store.toys.delete(toy['id'] as number);
    return remove(store, store.owners, ownerId, 'owners', () => store.owners.size);
  }
  if (owner[2] === undefined) {
    if (method === 'GET') return listAnswer(mode, store, collection, toysOf(ownerId), url);
    if (!store.owners.has(ownerId)) return say(404, 'no such owner');
    const made = fields(body, { label: [1, 40, true] }, lenient);
    if (!made) return say(400, 'invalid body');
    const toy = { id: store.next++, ownerId, ...made };
    store.toys.set(toy.id, toy);
    return { status: 201, body: toy };
  }
  const toyId = pathNumber(owner[2]);
  if (toyId === undefined) return say(400, 'toyId: a positive integer');
  const toy = store.toys.get(toyId);
  if (!toy || toy['ownerId'] !== ownerId) return say(404, 'no such toy');
  if (method === 'GET') return { status: 200, body: toy };
  return remove(store, store.toys, toyId, collection, () => toysOf(ownerId).length);
}

/** Which methods each path serves (a 405 with Allow for the others). */
function allowed(path: string): string | undefined {
  if (path === '/t/pets') return 'GET, POST';
  if (path === '/t/owners') return 'POST';
  if (/^\/t\/owners\/[^/]+\/toys$/.test(path)) return 'GET, POST';
  if (/^\/t\/(pets|owners)\/[^/]+$/.test(path) || /^\/t\/owners\/[^/]+\/toys\/[^/]+$/.test(path)) return 'GET, DELETE';
  return undefined;
}

interface Started {
  store: Store;
  url: string;
  close: () => Promise<void>;
}

const SEEDED = [1, 2, 3];

async function start(mode: Mode, seeded: boolean): Promise<Started> {
  const store: Store = { pets: new Map(), owners: new Map(), toys: new Map(), emptied: new Set(), next: 1 };
  for (const n of seeded ? SEEDED : []) store.pets.set(n, { id: n, name: `seeded-${n}` });
  store.next = store.pets.size + 1;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const method = req.method ?? 'GET';
      const methods = allowed(url.pathname);
      let reply: Answer;
      if (methods === undefined) reply = say(404, 'no route');
      else if (!methods.split(', ').includes(method)) return res.writeHead(405, { allow: methods }).end();
      else if (method === 'POST' && mode !== 'lenient' && !/^application\/json\b/.test(req.headers['content-type'] ?? '')) reply = say(415, 'send JSON');
      else {
        let body: unknown;
        try {
          body = method === 'POST' ? JSON.parse(raw) : undefined;
        } catch {
          body = Symbol('malformed');
        }
        reply = typeof body === 'symbol' ? say(400, 'malformed JSON') : answer(mode, store, method, url, body);
      }
      if (reply.body === undefined) return res.writeHead(reply.status).end();
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { store, url: `http://127.0.0.1:${port}/t`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Runs the CLI against the mode under a seed; `probe` looks at the server's records after the run, before it stops. */
async function run(mode: Mode, seed: number, options: { seeded: boolean; irreversible: boolean }, probe?: (store: Store) => void): Promise<RunResults> {
  const file = join(await tempDir(), 'collections.openapi.json');
  await writeFile(file, JSON.stringify(spec(mode === 'lenient')));
  const started = await start(mode, options.seeded);
  try {
    const args = ['--spec', file, '--base-url', started.url, '--quiet', '--seed', String(seed), '--fuzz-examples', '10', ...(options.irreversible ? ['--allow-irreversible'] : [])];
    const results = requireResults(await runCli(args));
    probe?.(started.store);
    return results;
  } finally {
    await started.close();
  }
}

const CASE = 'lifecycle: empty collection';
const SEEDS = [1, 2, 3];
const LISTS = ['listPets', 'listToys'];

function caseOf(results: RunResults, operationId: string) {
  const found = operation(results, operationId).cases.find((c) => c.name === CASE);
  if (!found) throw new Error(`${operationId} has no case "${CASE}"`);
  return found;
}

/** The seeded pets the server still holds. */
const seededLeft = (store: Store) => SEEDED.filter((n) => store.pets.get(n)?.['name'] === `seeded-${n}`);

describe.concurrent('lifecycle: empty collection', () => {
  test.each(SEEDS)('with --allow-irreversible, lists that answer an undocumented 404 once emptied fail by status-code-conformance, records the run did not make deleted too (seed %i)', async (seed) => {
    const results = await run('faulty', seed, { seeded: true, irreversible: true }, (store) => expect(seededLeft(store)).toEqual([]));
    expect(results.verdict, summary(results).join('\n')).toBe('not-conformant');
    for (const list of LISTS) {
      const found = caseOf(results, list);
      expect(found.outcome, `${list}: ${found.skipReason}`).toBe('failed');
      const errors = found.findings.filter((f) => f.severity === 'error');
      expect(errors.map((f) => [f.operationId, f.check])).toEqual([[list, 'status-code-conformance']]);
      expect(errors[0]!.actual).toBe(404);
    }
    const pets = caseOf(results, 'listPets').findings.find((f) => f.check === 'status-code-conformance')!;
    expect(pets.message).toMatch(/^Status 404 is not documented for listPets\. Asked with the collection emptied: after deleting the (\d+) records the list served \((\d+) the run's own\)( and \d+ more of the run's own)?\.$/);
    // The seeded pets the case's first list served (another case may have deleted one before, as --allow-irreversible lets it) are deleted by the case.
    const [, served, own] = /the (\d+) records the list served \((\d+)/.exec(pets.message)!;
    const exchanges = caseOf(results, 'listPets').exchanges.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}${new URL(e.request.url).search} ${e.response?.status}`);
    const seededServed = SEEDED.filter((n) => exchanges.includes(`DELETE /t/pets/${n} 204`));
    expect(seededServed.length).toBeGreaterThan(0);
    expect(Number(served) - Number(own)).toBe(seededServed.length);
    expect(exchanges.at(-1)).toBe('GET /t/pets?limit=100 404');
    // The run's own records the case deleted are off the cleanup ledger, or their cleanup DELETE's 404 tells they are gone.
    expect(results.leftBehind ?? []).toEqual([]);
    const toys = caseOf(results, 'listToys').findings.find((f) => f.check === 'status-code-conformance')!;
    expect(toys.message).toBe("Status 404 is not documented for listToys. Asked with the collection under a parent record made for the case emptied: after deleting the 1 record the list served (1 the run's own).");
  }, 240_000);

  test.each(SEEDS)('without --allow-irreversible, on a server that starts empty, the run deletes its own records and the 404 is found (seed %i)', async (seed) => {
    const results = await run('faulty', seed, { seeded: false, irreversible: false });
    expect(results.verdict, summary(results).join('\n')).toBe('not-conformant');
    for (const list of LISTS) {
      const found = caseOf(results, list);
      expect(found.outcome, `${list}: ${found.skipReason}`).toBe('failed');
      const error = found.findings.find((f) => f.severity === 'error')!;
      expect([error.operationId, error.check, error.actual]).toEqual([list, 'status-code-conformance', 404]);
      expect(error.message).toMatch(new RegExp(`^Status 404 is not documented for ${list}\\. Asked after deleting the run's own \\d+ records? of the collection${list === 'listToys' ? ' under a parent record made for the case' : ''} \\(without --allow-irreversible the run keeps the records it did not make\\)\\.$`));
    }
    expect(results.leftBehind ?? []).toEqual([]);
    // The lists' own failures only: nothing else is at fault.
    expect(allFindings(results).filter((f) => f.severity === 'error' && !LISTS.includes(f.operationId))).toEqual([]);
  }, 240_000);

  // The correct deployments, each under one seed of each kind of run, the three seeds shared among them (the faulty
  // deployment above runs every seed): strict under seeds 1 and 3, lenient under seeds 2 and 1.
  const withIrreversible = [['strict', 1], ['lenient', 2]] as const;
  const withoutIrreversible = [['strict', 3], ['lenient', 1]] as const;
  test.each(withIrreversible)('a %s deployment whose empty lists answer 200 is conformant, every operation passed, with --allow-irreversible (seed %i)', async (mode, seed) => {
    const results = await run(mode, seed, { seeded: true, irreversible: true });
    expect(results.verdict, summary(results).join('\n')).toBe('conformant');
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(results.operations.filter((o) => o.outcome !== 'passed').map((o) => `${o.operationId}: ${o.outcome}`)).toEqual([]);
    for (const list of LISTS) expect(caseOf(results, list).outcome, list).toBe('passed');
  }, 240_000);

  test.each(withoutIrreversible)('a %s deployment is conformant without --allow-irreversible, and the records the run did not make are still there (seed %i)', async (mode, seed) => {
    const results = await run(mode, seed, { seeded: true, irreversible: false }, (store) => expect(seededLeft(store)).toEqual(SEEDED));
    expect(results.verdict, summary(results).join('\n')).toBe('conformant');
    expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
    expect(results.operations.filter((o) => o.outcome !== 'passed').map((o) => `${o.operationId}: ${o.outcome}`)).toEqual([]);
    // The flat collection still holds the seeded pets: no empty list was asked, and the case says so.
    const pets = caseOf(results, 'listPets');
    expect(pets.outcome).toBe('skipped');
    expect(pets.skipReason).toBe('GET /pets still lists 3 records after the deletes (without --allow-irreversible the run deletes only its own records): the empty collection was not reached');
    // The nested one, under a parent made for the case, held only the run's own records.
    expect(caseOf(results, 'listToys').outcome).toBe('passed');
  }, 240_000);
});

describe('which lists get the case', () => {
  const OPTIONS: PlanOptions = { seed: 1, readOnly: false, allowIrreversible: false, otpSource: false };
  async function planned(options: Partial<PlanOptions> = {}) {
    const file = join(await tempDir(), 'collections.openapi.json');
    await writeFile(file, JSON.stringify(spec(false)));
    const contract = await loadContract([file]);
    const profiles = await loadProfiles('generic', contract);
    return contract.operations.flatMap((o) => planOperation(contract, o, profileFor(profiles, o.service), { operations: {} }, { ...OPTIONS, ...options }).cases.filter((c) => c.name === CASE));
  }

  test('each list whose records a DELETE by id removes, a top-level one run last; a nested one on a parent made for it, among the others; none with --sequences 0', async () => {
    const cases = await planned();
    expect(cases.map((c) => [c.operationId, c.kind, c.expectation, c.fixture, c.runsLast, c.skip])).toEqual([
      ['listPets', 'lifecycle', 'empty-collection', 'none', true, undefined],
      ['listToys', 'lifecycle', 'empty-collection', 'fresh', undefined, undefined],
    ]);
    expect(await planned({ sequences: 0 })).toEqual([]);
  });

  test('--read-only sends none of its deletes', async () => {
    const cases = await planned({ readOnly: true });
    expect(cases.map((c) => [c.operationId, c.skipKind])).toEqual([
      ['listPets', 'read-only'],
      ['listToys', 'read-only'],
    ]);
    expect(cases[0]!.skip).toBe('sends DELETE /pets/{petId} (--read-only)');
  });
});
