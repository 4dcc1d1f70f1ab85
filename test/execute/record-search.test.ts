/**
 * Any success is a record. A create whose example names a parent record that does not exist (`folderId: 4242`, the
 * first of its property examples) is refused, and so is its required part; the cases that need a note then take one
 * the run made (the coverage phase's variants were answered 201), or one a bounded search makes with another body
 * (the property's other example, a body answered 201 earlier). Behind the record, the faults are found on the
 * operations they belong to: a read by id that crashes on a stored note, an update that takes a date outside its
 * format, a patch that crashes. A correct deployment (strict, lenient) is conformant and its notes are made and read
 * all the same; one where no create succeeds says in each skip what was tried. A shared record whose making failed
 * is made again once another case made one it may take. Below, the search itself against a scripted create: the
 * order of the bodies tried, the budget, one search per create, and what the lines say.
 */
import { createServer } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Contract, Exchange, Operation, RunResults } from '../../src/runner/model.ts';
import { MadeRecords } from '../../src/runner/execute/records/made.ts';
import { RecordSearch, SEARCH_BUDGET, type SearchCall } from '../../src/runner/execute/records/search.ts';
import { ValuePool } from '../../src/runner/execute/records/value-pool.ts';
import { namedCandidate, otherExamples, referenceFields } from '../../src/runner/execute/records/candidates.ts';
import { Random } from '../../src/runner/plan/random.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { Session } from '../../src/runner/execute/session.ts';
import { CaseRun } from '../../src/runner/execute/case-run.ts';
import { Skip } from '../../src/runner/execute/skip.ts';
import type { RunConfig } from '../../src/runner/execute/config.ts';
import { allFindings, listening, removeTemps, ROOT, requireResults, resultsSchemaErrors, runCli, summary, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };
const title = { type: 'string', minLength: 1, maxLength: 60, examples: ['Groceries'] };
const due = { type: 'string', format: 'date', examples: ['2025-06-01'] };
const INPUT = { type: 'object', required: ['title', 'folderId'], properties: { title, folderId: { type: 'integer', minimum: 1, maximum: 100000, examples: [4242, 2] }, due } };
const UPDATE = { type: 'object', required: ['title'], properties: { title, due } };
const PATCH = { type: 'object', properties: { title, due } };
const NOTE = {
  type: 'object',
  required: ['id', 'title', 'folder'],
  properties: { id: { type: 'integer', minimum: 1 }, title: { type: 'string' }, due: { type: 'string', format: 'date' }, folder: { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } } },
};
const SUMMARY = { type: 'object', required: ['id', 'title'], properties: { id: { type: 'integer' }, title: { type: 'string' } } };
const noteId = [{ name: 'noteId', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: 2147483647 } }];
const invalid = { '400': { description: 'invalid', ...json(ERROR) } };
const none = { '404': { description: 'no such note', ...json(ERROR) } };

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'notes', version: '1' },
  paths: {
    '/notes': {
      get: { operationId: 'listNotes', responses: { '200': { description: 'all', ...json({ type: 'array', items: SUMMARY }) } } },
      post: { operationId: 'createNote', requestBody: { required: true, ...json(INPUT) }, responses: { '201': { description: 'made', ...json(NOTE) }, ...invalid, '422': { description: 'no such folder', ...json(ERROR) } } },
    },
    '/notes/{noteId}': {
      get: { operationId: 'getNote', parameters: noteId, responses: { '200': { description: 'one', ...json(NOTE) }, ...invalid, ...none } },
      put: { operationId: 'updateNote', parameters: noteId, requestBody: { required: true, ...json(UPDATE) }, responses: { '200': { description: 'updated', ...json(NOTE) }, ...invalid, ...none } },
      patch: { operationId: 'patchNote', parameters: noteId, requestBody: { required: true, ...json(PATCH) }, responses: { '200': { description: 'patched', ...json(NOTE) }, ...invalid, ...none } },
      delete: { operationId: 'deleteNote', parameters: noteId, responses: { '204': { description: 'deleted' }, ...invalid, ...none } },
    },
  },
};

/**
 * faulty: the faults above; strict and lenient: correct (lenient coerces scalars, reads null as not given); closed: no
 * create succeeds; picky: correct, with one folder only (1).
 */
type Mode = 'faulty' | 'strict' | 'lenient' | 'closed' | 'picky';
type Fields = Record<string, unknown>;
const FOLDERS = new Map([[1, 'Inbox'], [2, 'Work'], [3, 'Home']]);

function isDate(v: unknown): boolean {
  const m = typeof v === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(v) : null;
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** A field as the mode reads it (lenient: "2" is 2, true is "true", null is not given). */
function read(mode: Mode, value: unknown, type: 'string' | 'integer'): unknown {
  if (mode !== 'lenient' || value === undefined) return value;
  if (value === null) return undefined;
  if (type === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
  if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  return value;
}

/** The fields of a body when valid (undefined: a 400): a create's (title and folderId), an update's (title), a patch's. */
function valid(mode: Mode, body: unknown, kind: 'POST' | 'PUT' | 'PATCH'): Fields | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Fields;
  const [t, f, d] = [read(mode, b['title'], 'string'), kind === 'POST' ? read(mode, b['folderId'], 'integer') : undefined, read(mode, b['due'], 'string')];
  if ((kind !== 'PATCH' || t !== undefined) && !(typeof t === 'string' && t.length >= 1 && [...t].length <= 60)) return undefined;
  if (kind === 'POST' && !(typeof f === 'number' && Number.isInteger(f) && f >= 1 && f <= 100000)) return undefined;
  // The faulty update takes any text for a date.
  if (d !== undefined && !(mode === 'faulty' && kind === 'PUT' ? typeof d === 'string' : isDate(d))) return undefined;
  return { ...(t !== undefined ? { title: t } : {}), ...(f !== undefined ? { folderId: f } : {}), ...(d !== undefined ? { due: d } : {}) };
}

async function start(mode: Mode) {
  const notes = new Map<number, Fields>();
  let next = 1;
  const shown = (id: number) => {
    const { folderId, ...rest } = notes.get(id)!;
    return { id, ...rest, folder: { id: folderId, name: FOLDERS.get(folderId as number) } };
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => answer(req.method ?? 'GET', req.url ?? '/', req.headers['content-type'] ?? '', raw, (status, value, headers = {}) => {
      res.writeHead(status, { ...(value === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
      res.end(value === undefined ? undefined : JSON.stringify(value));
    }));
  });
  function answer(method: string, url: string, contentType: string, raw: string, reply: (status: number, value?: unknown, headers?: Record<string, string>) => void): void {
    const path = new URL(url, 'http://x').pathname.replace(/^\/svc/, '');
    let body: unknown;
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      if (!/^application\/json\b/.test(contentType)) return reply(415, { message: 'send JSON' });
      try {
        body = JSON.parse(raw);
      } catch {
        return reply(400, { message: 'malformed JSON' });
      }
    }
    if (path === '/notes') {
      if (method === 'GET') return reply(200, [...notes.keys()].map((id) => ({ id, title: notes.get(id)!['title'] })));
      if (method !== 'POST') return reply(405, { message: 'GET, POST' }, { allow: 'GET, POST' });
      const fields = valid(mode, body, 'POST');
      if (!fields) return reply(400, { message: 'invalid note' });
      if (mode === 'closed') return reply(500, { message: 'the store is closed' });
      if (!FOLDERS.has(fields['folderId'] as number) || (mode === 'picky' && fields['folderId'] !== 1)) return mode === 'faulty' ? reply(500, { message: 'folder is null' }) : reply(422, { message: 'no such folder' });
      const id = next++;
      notes.set(id, fields);
      return reply(201, shown(id));
    }
    const m = /^\/notes\/([^/]+)$/.exec(path);
    if (!m) return reply(404, { message: 'no route' });
    const id = /^[1-9]\d{0,9}$/.test(m[1]!) && Number(m[1]) <= 2147483647 ? Number(m[1]) : undefined;
    if (!['GET', 'PUT', 'PATCH', 'DELETE'].includes(method)) return reply(405, { message: 'GET, PUT, PATCH, DELETE' }, { allow: 'GET, PUT, PATCH, DELETE' });
    if (id === undefined) return reply(400, { message: 'noteId: a positive integer' });
    const fields = method === 'PUT' || method === 'PATCH' ? valid(mode, body, method) : {};
    if (!fields) return reply(400, { message: 'invalid note' });
    if (!notes.has(id)) return reply(404, { message: 'no such note' });
    if (method === 'GET') return mode === 'faulty' ? reply(500, { message: 'cannot render the note' }) : reply(200, shown(id));
    if (method === 'DELETE') return notes.delete(id) ? reply(204) : reply(404, { message: 'no such note' });
    if (method === 'PATCH' && mode === 'faulty') return reply(500, { message: 'patch failed' });
    const { title: _t, due: _d, ...kept } = notes.get(id)!;
    notes.set(id, { ...(method === 'PATCH' ? notes.get(id) : kept), ...fields });
    return reply(200, shown(id));
  }
  return { notes, ...(await listening(server)) };
}

async function run(mode: Mode, seed: number): Promise<{ results: RunResults; left: number; junit: string }> {
  const spec = join(await tempDir(), 'notes.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const server = await start(mode);
  const { url, close } = server;
  try {
    const cli = await runCli(['--spec', spec, '--base-url', url, '--quiet', '--seed', String(seed)]);
    const results = requireResults(cli);
    return { results, left: server.notes.size, junit: await readFile(join(cli.out, 'junit.xml'), 'utf8') };
  } finally {
    await close();
  }
}

const SEEDS = [1, 2, 3];
const errors = (r: RunResults) => [...new Set(allFindings(r).filter((f) => f.severity === 'error').map((f) => `${f.operationId} ${f.check}`))].sort();
const notes = (r: RunResults) => r.operations.flatMap((o) => o.cases.flatMap((c) => (c.notes ?? []).map((n) => `${o.operationId} › ${c.name}: ${n}`)));
const ran = (r: RunResults, operationId: string) => r.operations.find((o) => o.operationId === operationId)?.cases.filter((c) => c.outcome !== 'skipped').map((c) => c.name) ?? [];

describe.concurrent('a record made by another body where the example names a parent that does not exist', () => {
  test.each(SEEDS)('faulty: the faults behind the record are found on their operations (seed %i)', async (seed) => {
    const { results, junit } = await run('faulty', seed);
    const found = errors(results);
    expect(found, summary(results).join('\n')).toEqual(expect.arrayContaining(['createNote not-a-server-error', 'getNote not-a-server-error', 'patchNote not-a-server-error', 'updateNote negative-data-rejected']));
    expect(found.filter((e) => !/^(createNote|getNote|patchNote|updateNote) /.test(e))).toEqual([]);
    // The cases on a note said how they got one: a record the search made, or one the run had made.
    const said = notes(results);
    expect(said.some((n) => /: setup: createNote answered 500 to the body sent for the record \(500 to its required part\); a record was made with .+ \(201\)/.test(n)), said.join('\n')).toBe(true);
    for (const n of said) expect(n).toMatch(/: setup: createNote answered 500 to the body sent for the record( \(500 to its required part\))?; (a record was made with .+ \(201\)|the case takes a record createNote made earlier in the run \(\{noteId\} = \d+\))/);
    for (const id of ['patchNote', 'updateNote', 'deleteNote']) expect(ran(results, id), id).toContain('positive');
    // results.json keeps the notes (as its schema says), and JUnit shows them with their cases.
    expect(resultsSchemaErrors(results)).toEqual([]);
    expect(junit).toMatch(/\[\[PROPERTY\|setup-note=setup: createNote answered 500 to the body sent for the record/);
  }, 240_000);

  // Each correct server under one seed (strict 2, lenient 3): the faulty one above runs seeds 1, 2 and 3, and a
  // second seed of a server that flags nothing proves nothing the first does not.
  const correct = [['strict', 2], ['lenient', 3]] as const;
  test.each(correct)('%s: conformant, and the notes are made, used and deleted all the same (seed %i)', async (mode, seed) => {
    const { results, left } = await run(mode, seed);
    expect(results.verdict, summary(results).join('\n')).toBe('conformant');
    expect(errors(results)).toEqual([]);
    for (const id of ['getNote', 'updateNote', 'patchNote', 'deleteNote']) expect(ran(results, id), id).toContain('positive');
    expect(notes(results).length).toBeGreaterThan(0);
    expect(left).toBe(0);
    expect(results.leftBehind ?? []).toEqual([]);
  }, 240_000);

  test('no create succeeds: each case that needs a note is skipped with what was tried', async () => {
    const { results } = await run('closed', 1);
    const skipped = results.operations.find((o) => o.operationId === 'getNote')!.cases.find((c) => c.name === 'positive')!;
    expect(skipped.outcome).toBe('skipped');
    expect(skipped.skipReason).toMatch(/^setup: createNote answered 500 without a record id; tried besides: the contract's other example \(500\), (the body with folderId drawn afresh \(500\), )?\d bodies drawn from its schema \((500, )*500\)$/);
  }, 240_000);
});

describe('a shared record whose making failed', () => {
  test('is made again once the run made a record it may take; a fresh one then comes from the body that made it', async () => {
    const dir = await tempDir();
    const spec = join(dir, 'notes.json');
    await writeFile(spec, JSON.stringify(SPEC));
    const server = await start('picky');
    try {
      const contract = await loadContract([spec]);
      const config: RunConfig = {
        contractFiles: [spec], profileFile: join(ROOT, 'contract/profile.yaml'), baseUrls: { [contract.operations[0]!.service]: server.url }, token: '', timeoutMs: 10_000,
        concurrency: 2, bodyCapBytes: 1 << 20, readOnly: false, allowIrreversible: false, seed: 1, include: [], exclude: [], runId: 'record-search',
      };
      const session = await Session.forContract(config, contract);
      const op = (id: string) => contract.operations.find((o) => o.operationId === id)!;
      const runOf = (id: string, fixture: 'shared' | 'fresh') => new CaseRun(session, { operationId: id, name: 'positive', kind: 'positive', expectation: 'success', request: { pathParams: {}, query: {}, auth: 'valid', setup: [] }, fixture, expect: [] }, op(id));
      const first = runOf('getNote', 'shared');
      const failed = await session.fixtures.fixture(op('getNote'), false, first).catch((e: unknown) => e as Error);
      expect(failed).toBeInstanceOf(Skip);
      expect((failed as Skip).message).toBe("setup: createNote answered 422 without a record id; tried besides: the contract's other example (422), the body with folderId drawn afresh (422), 3 bodies drawn from its schema (422, 422, 422)");
      // Another case (a coverage request, say) makes a note, and finishes.
      const coverage = runOf('createNote', 'shared');
      const made = await coverage.send(op('createNote'), { pathParams: {}, body: { title: 'Inbox note', folderId: 1 } });
      expect(made.response?.status).toBe(201);
      session.made.settle([made.request]);
      const later = runOf('getNote', 'shared');
      expect(await session.fixtures.fixture(op('getNote'), false, later)).toEqual({ noteId: '1' });
      expect(later.result().notes).toEqual(['setup: createNote answered 422 to the body sent for the record (422 to its required part); the case takes a record createNote made earlier in the run ({noteId} = 1)']);
      // A delete takes no record another case has: the search sends the body that made one again (its last request).
      const fresh = runOf('deleteNote', 'fresh');
      expect(await session.fixtures.fixture(op('deleteNote'), true, fresh)).toEqual({ noteId: '2' });
      expect(fresh.result().notes?.[0]).toMatch(/; a record was made with a body it answered with success earlier in the run, sent again \(201\) \(tried before: the contract's other example \(422\), .*\)$/);
      await session.cleanup();
      expect(server.notes.size).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------------
// The search against a scripted create

async function contract(): Promise<Contract> {
  const dir = await tempDir();
  const withList = { ...SPEC, paths: { ...SPEC.paths, '/folders': { get: { operationId: 'listFolders', responses: { '200': { description: 'all', ...json({ type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } }) } } } } } };
  await writeFile(join(dir, 'notes.json'), JSON.stringify(withList));
  return loadContract([join(dir, 'notes.json')]);
}

/** A search host over the contract, and a case's call whose create answers `answer(body)` (201 with an id, else the status). */
function scripted(c: Contract, answer: (op: Operation, body: unknown) => number) {
  const pool = new ValuePool();
  const made = new MadeRecords(c, () => ({}) as never);
  const search = new RecordSearch({ contract: c, pool, made, seed: '1', declaredParams: () => ({ query: {}, headers: {}, cookies: {} }) });
  const create = c.operations.find((o) => o.operationId === 'createNote')!;
  const sent: Array<{ op: string; body: unknown }> = [];
  let next = 1;
  const call = (first: unknown): SearchCall => ({
    producer: create,
    pathParams: {},
    declared: { query: {}, headers: {}, cookies: {} },
    sent: [first],
    idOf: (e) => String((e.response?.json as { id?: number } | undefined)?.id ?? ''),
    send: async (op, request) => {
      sent.push({ op: op.operationId, body: request.body });
      const status = answer(op, request.body);
      const value = op.operationId === 'listFolders' ? [{ id: 3 }] : status === 201 ? { id: next++ } : { message: 'no' };
      const exchange = { request: { method: op.method, url: `http://x/svc${op.path}`, headers: {} }, response: { status, headers: {}, json: value, body: JSON.stringify(value) } } as unknown as Exchange;
      if (status === 200) pool.harvest(op, exchange);
      return exchange;
    },
  });
  return { search, call, sent, pool, made, create };
}

describe('the record search', () => {
  const example = { title: 'Groceries', folderId: 4242, due: '2025-06-01' };

  test("reads the referenced collection's list, fills the field from it, and stops at the first success", async () => {
    const c = await contract();
    const s = scripted(c, (op, body) => (op.operationId === 'listFolders' ? 200 : (body as { folderId: number }).folderId === 3 ? 201 : 500));
    const result = await s.search.find(s.call(example));
    expect(s.sent.map((x) => x.op)).toEqual(['listFolders', 'createNote']);
    expect(s.sent[1]!.body).toEqual({ ...example, folderId: 3 });
    expect(result.made?.how).toBe('folderId from GET /folders (201)');
    expect(result.tried).toBe('read GET /folders (200)');
  });

  test("the property's other example, then drawn bodies; never over the budget, one search per create for the run", async () => {
    const c = await contract();
    const s = scripted(c, (op) => (op.operationId === 'listFolders' ? 500 : 500));
    const [a, b] = await Promise.all([s.search.find(s.call(example)), s.search.find(s.call(example))]);
    expect(s.sent.length).toBe(SEARCH_BUDGET);
    expect(s.sent[1]!.body).toEqual({ ...example, folderId: 2 });
    expect(a.made).toBeUndefined();
    expect(b.tried).toBe(a.tried);
    expect(a.tried).toMatch(/^read GET \/folders \(500\), the contract's other example \(500\), the body with folderId drawn afresh \(500\), 3 bodies drawn from its schema \(500, 500, 500\) \(its 6 requests for createNote in this run are spent\)$/);
    // Spent: a later case's search sends nothing.
    await s.search.find(s.call(example));
    expect(s.sent.length).toBe(SEARCH_BUDGET);
  });

  test('a body that made a record is sent again for the next case (its unique-looking text drawn afresh)', async () => {
    const c = await contract();
    const s = scripted(c, (op, body) => (op.operationId === 'listFolders' ? 500 : (body as { folderId: number }).folderId === 2 ? 201 : 500));
    const first = await s.search.find(s.call({ ...example, title: 'Groceries 0a1b2c3d' }));
    expect(first.made?.how).toBe("the contract's other example (201)");
    const second = await s.search.find(s.call({ ...example, title: 'Groceries 0a1b2c3d' }));
    expect(second.made?.id).toBe('2');
    expect(s.sent.length).toBe(3);
  });

  test('the reference fields of a body: by their name, or named as a collection is; the media type examples', async () => {
    const c = await contract();
    const create = c.operations.find((o) => o.operationId === 'createNote')!;
    expect(referenceFields(c, create).map((f) => [f.name, f.stem, f.required])).toEqual([['folderId', 'folder', true]]);
    const media = { ...SPEC, paths: { '/notes': { post: { ...SPEC.paths['/notes'].post, requestBody: { required: true, content: { 'application/json': { schema: INPUT, examples: { a: { value: example }, b: { value: { title: 'Other', folderId: 1 } } } } } } } }, '/notes/{noteId}': SPEC.paths['/notes/{noteId}'] } };
    const dir = await tempDir();
    await writeFile(join(dir, 'media.json'), JSON.stringify(media));
    const loaded = await loadContract([join(dir, 'media.json')]);
    const op = loaded.operations.find((o) => o.operationId === 'createNote')!;
    expect(otherExamples(op, example).map((x) => x.body)).toEqual([example, { title: 'Other', folderId: 1 }, { ...example, folderId: 2 }]);
  });
});

describe('a string whose name suggests a format the contract does not declare', () => {
  test('the search sends the body with an e-mail address for `email` before drawn bodies, and says so', async () => {
    const spec = {
      openapi: '3.0.3',
      info: { title: 'users', version: '1' },
      paths: {
        '/users': {
          post: {
            operationId: 'createUser',
            requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name', 'email'], properties: { name: { type: 'string' }, email: { type: 'string' } } } } } },
            responses: { '201': { description: 'created', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'integer' } } } } } } },
          },
        },
      },
    };
    const dir = await tempDir();
    await writeFile(join(dir, 'users.json'), JSON.stringify(spec));
    const loaded = await loadContract([join(dir, 'users.json')]);
    const create = loaded.operations.find((o) => o.operationId === 'createUser')!;
    const base = { name: 'Ann', email: 'xyz' };
    const named = namedCandidate(create, base, new Random('1'));
    expect(named?.kind).toBe('named');
    expect((named?.body as { email: string }).email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    expect((named?.body as { name: string }).name).toBe('Ann');
    expect(named?.label).toMatch(/^the body with email as its name suggests \(".+@.+"\)$/);
    // A body without the field gets it too; a field of no such name is left as it was.
    expect(Object.keys((namedCandidate(create, { name: 'Ann' }, new Random('1'))?.body ?? {}) as object).sort()).toEqual(['email', 'name']);
  });
});
