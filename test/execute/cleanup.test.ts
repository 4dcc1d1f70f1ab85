/**
 * Records the run creates are deleted again for any contract, through the DELETE of the same resource: real
 * HTTP servers that count their live records, foreign contracts with integer and with string ids (a POST on
 * a collection with a trailing slash, a nested collection, PUT-to-create), a contract without any DELETE (the
 * records are reported as left behind, in the console and in results.json), a DELETE that fails (left behind,
 * no operation blamed), --read-only (no DELETE sent at all), and the Customer reference service (ends empty).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startReferenceService } from '../../src/reference-service/index.ts';
import type { RunResults } from '../../src/runner/model.ts';
import { json, startHttp, type TestServer } from '../http/servers.ts';
import { pool, removeTemps, requireResults, resultsSchemaErrors, runCli, tempDir, TOKEN, type CliRun } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 240_000;

const err = { '400': { description: 'bad' }, '422': { description: 'invalid' } };
const notFound = { '404': { description: 'not found' } };
const record = (idName: string, idType: 'integer' | 'string', field: string) => ({
  type: 'object',
  required: [idName, field],
  properties: { [idName]: { type: idType }, [field]: { type: 'string' } },
});
const body = (field: string) => ({
  required: true,
  content: { 'application/json': { schema: { type: 'object', required: [field], properties: { [field]: { type: 'string', maxLength: 20 } } } } },
});
const ok = (status: string, schema: unknown) => ({ [status]: { description: 'ok', content: { 'application/json': { schema } } } });

/** Integer ids: POST on `/pets/` (trailing slash) and a nested collection `/pets/{pet_id}/toys`. */
const INTEGER_SPEC = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/pets/': {
      post: { operationId: 'createPet', requestBody: body('name'), responses: { ...ok('201', record('id', 'integer', 'name')), ...err } },
      get: { operationId: 'listPets', responses: ok('200', { type: 'array', items: record('id', 'integer', 'name') }) },
    },
    '/pets/{pet_id}': {
      parameters: [{ name: 'pet_id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'getPet', responses: { ...ok('200', record('id', 'integer', 'name')), ...notFound, ...err } },
      delete: { operationId: 'removePet', responses: { '204': { description: 'gone' }, ...notFound, ...err } },
    },
    '/pets/{pet_id}/toys': {
      parameters: [{ name: 'pet_id', in: 'path', required: true, schema: { type: 'integer' } }],
      post: { operationId: 'addToy', requestBody: body('label'), responses: { ...ok('201', record('toy_id', 'integer', 'label')), ...notFound, ...err } },
    },
    '/pets/{pet_id}/toys/{toy_id}': {
      parameters: [
        { name: 'pet_id', in: 'path', required: true, schema: { type: 'integer' } },
        { name: 'toy_id', in: 'path', required: true, schema: { type: 'integer' } },
      ],
      get: { operationId: 'getToy', responses: { ...ok('200', record('toy_id', 'integer', 'label')), ...notFound, ...err } },
      delete: { operationId: 'dropToy', responses: { '204': { description: 'gone' }, ...notFound, ...err } },
    },
  },
};

/** String ids (OpenAPI 3.1): a POST answering `{noteId}`, and PUT-to-create on `/labels/{name}`. */
const STRING_SPEC = {
  openapi: '3.1.0',
  info: { title: 'Notes', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/notes': {
      post: { operationId: 'writeNote', requestBody: body('text'), responses: { ...ok('200', record('noteId', 'string', 'text')), ...err } },
    },
    '/notes/{noteId}': {
      parameters: [{ name: 'noteId', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'readNote', responses: { ...ok('200', record('noteId', 'string', 'text')), ...notFound } },
      delete: { operationId: 'eraseNote', responses: { '200': { description: 'gone' }, ...notFound } },
    },
    '/labels/{name}': {
      parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]{3,8}$' } }],
      put: { operationId: 'putLabel', requestBody: body('colour'), responses: { ...ok('200', record('name', 'string', 'colour')), ...err } },
      get: { operationId: 'getLabel', responses: { ...ok('200', record('name', 'string', 'colour')), ...notFound } },
      delete: { operationId: 'removeLabel', responses: { '204': { description: 'gone' }, ...notFound } },
    },
  },
};

/** No DELETE at all: every record the run creates stays. */
const NO_DELETE_SPEC = {
  openapi: '3.0.3',
  info: { title: 'Logs', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/logs': { post: { operationId: 'appendLog', requestBody: body('line'), responses: { ...ok('201', record('id', 'integer', 'line')), ...err } } },
    '/logs/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'readLog', responses: { ...ok('200', record('id', 'integer', 'line')), ...notFound } },
    },
  },
};

interface Store {
  /** Live records by "<collection path>/<id>". */
  live: Map<string, Record<string, unknown>>;
  deletes: string[];
  unsafe: string[];
  /** Records created by a POST whose answer left their id out (faults.hideIdEvery), by collection kind. */
  hidden: Map<string, string[]>;
  /** The most DELETEs the server was handling at once. */
  maxDeletesAtOnce: number;
  /** Each DELETE's path and the status it was answered with, in the order they were answered. */
  deleteAnswers: Array<{ key: string; status: number }>;
}

/**
 * A correct server for the three contracts: records are created by POST on a collection (next integer id, or
 * "n-<n>" for notes), by PUT on /labels/{name}, read by GET and removed by DELETE on their item path. A body
 * without the required string field (at most 20 characters) is refused with 422, one that is not JSON with 415. `faults.acceptAll` creates a
 * record for any POST body; `faults.deleteFails` answers 500 to every DELETE; `faults.hideIdEvery` n: every n-th
 * record a POST creates is answered without its id (it is created all the same).
 */
function recordsServer(
  faults: {
    acceptAll?: boolean;
    deleteFails?: boolean;
    hideIdEvery?: number;
    /** Deleting a pet leaves its toys (whose DELETE then answers 404: their pet is gone). */
    noCascade?: boolean;
    /** DELETEs of these kinds are answered this many milliseconds after they arrive. */
    slowDeletes?: { kinds: string[]; ms: number };
    /** A label's DELETE is refused with 409 while any note is live (a tie the contract does not show). */
    labelsWaitForNotes?: boolean;
  } = {},
) {
  const store: Store = { live: new Map(), deletes: [], unsafe: [], hidden: new Map(), maxDeletesAtOnce: 0, deleteAnswers: [] };
  let deleting = 0;
  let next = 1;
  let posted = 0;
  const fields: Record<string, { field: string; idName: string; ids: 'integer' | 'string' }> = {
    pets: { field: 'name', idName: 'id', ids: 'integer' },
    toys: { field: 'label', idName: 'toy_id', ids: 'integer' },
    notes: { field: 'text', idName: 'noteId', ids: 'string' },
    labels: { field: 'colour', idName: 'name', ids: 'string' },
    logs: { field: 'line', idName: 'id', ids: 'integer' },
  };
  const handler = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/svc/, '').replace(/\/+$/, '');
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') store.unsafe.push(`${method} ${path}`);
    const segments = path.split('/').filter(Boolean);
    const kind = segments.length % 2 === 1 ? segments.at(-1)! : segments.at(-2) ?? '';
    const spec = fields[kind];
    if (!spec) return json(res, 404, { detail: 'Not Found' });
    if (segments[0] === 'pets' && segments.length >= 3 && !store.live.has(`/pets/${segments[1]}`)) return json(res, 404, { detail: 'pet not found' });
    // A body in another media type than JSON is refused (415), as web frameworks do.
    if ((method === 'POST' || method === 'PUT') && !faults.acceptAll && !/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      return json(res, 415, { detail: 'Unsupported Media Type' });
    }
    const valid = (): Record<string, unknown> | undefined => {
      try {
        const parsed = JSON.parse(text) as Record<string, unknown>;
        const value = parsed[spec.field];
        if (faults.acceptAll) return { [spec.field]: String(value) };
        return typeof value === 'string' && value.length <= 20 && typeof parsed === 'object' ? { [spec.field]: value } : undefined;
      } catch {
        return faults.acceptAll ? { [spec.field]: 'x' } : undefined;
      }
    };
    if (segments.length % 2 === 1) {
      // A collection.
      if (method === 'POST' && kind !== 'labels') {
        const fieldsSent = valid();
        if (!fieldsSent) return json(res, 422, { detail: 'invalid' });
        const id = spec.ids === 'integer' ? next++ : `n-${next++}`;
        const rec = { [spec.idName]: id, ...fieldsSent };
        store.live.set(`${path}/${id}`, rec);
        if (faults.hideIdEvery && ++posted % faults.hideIdEvery === 0) {
          store.hidden.set(kind, [...(store.hidden.get(kind) ?? []), `${path}/${id}`]);
          return json(res, kind === 'notes' ? 200 : 201, fieldsSent);
        }
        return json(res, kind === 'notes' ? 200 : 201, rec);
      }
      if (method === 'GET' && kind === 'pets') return json(res, 200, [...store.live.entries()].filter(([k]) => /^\/pets\/[^/]+$/.test(k)).map(([, v]) => v));
      return json(res, 405, { detail: 'Method Not Allowed' }, { allow: kind === 'pets' ? 'GET, POST' : 'POST' });
    }
    const id = decodeLeniently(segments.at(-1)!);
    // A path that does not match the integer route is an unknown record (404, as documented).
    if (spec.ids === 'integer' && !/^-?\d+$/.test(id)) return json(res, 404, { detail: 'not found' });
    const key = `${path.split('/').slice(0, -1).join('/')}/${id}`;
    if (method === 'PUT' && kind === 'labels') {
      if (!/^[a-z]{3,8}$/.test(id)) return json(res, 422, { detail: 'bad name' });
      const fieldsSent = valid();
      if (!fieldsSent) return json(res, 422, { detail: 'invalid' });
      const rec = { name: id, ...fieldsSent };
      store.live.set(key, rec);
      return json(res, 200, rec);
    }
    if (method === 'GET') return store.live.has(key) ? json(res, 200, store.live.get(key)) : json(res, 404, { detail: 'not found' });
    if (method === 'DELETE') {
      store.deletes.push(key);
      if (faults.deleteFails) return json(res, 500, { detail: 'cannot delete' });
      if (faults.labelsWaitForNotes && kind === 'labels' && [...store.live.keys()].some((k) => k.startsWith('/notes/'))) {
        return json(res, 409, { detail: 'notes still live' });
      }
      if (!store.live.delete(key)) return json(res, 404, { detail: 'not found' });
      // Deleting a pet deletes its toys.
      if (!faults.noCascade) for (const k of [...store.live.keys()]) if (k.startsWith(`${key}/`)) store.live.delete(k);
      if (kind === 'notes') return json(res, 200, {});
      res.writeHead(204).end();
      return;
    }
    return json(res, 405, { detail: 'Method Not Allowed' }, { allow: kind === 'labels' ? 'GET, PUT, DELETE' : 'GET, DELETE' });
  };
  const answering = (req: IncomingMessage, res: ServerResponse, text: string): void => {
    if (req.method !== 'DELETE') return handler(req, res, text);
    deleting++;
    store.maxDeletesAtOnce = Math.max(store.maxDeletesAtOnce, deleting);
    const key = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/svc/, '');
    res.once('finish', () => {
      deleting--;
      store.deleteAnswers.push({ key, status: res.statusCode });
    });
    const kind = key.split('/').filter(Boolean).at(-2) ?? '';
    if (faults.slowDeletes?.kinds.includes(kind)) setTimeout(() => handler(req, res, text), faults.slowDeletes.ms);
    else handler(req, res, text);
  };
  return { store, handler: answering };
}

async function runAgainst(spec: object, faults: Parameters<typeof recordsServer>[0], extra: string[] = []): Promise<{ run: CliRun; results: RunResults; store: Store }> {
  return limit(async () => {
    const { store, handler } = recordsServer(faults);
    const server: TestServer = await startHttp(handler);
    try {
      const file = join(await tempDir(), 'spec.json');
      await writeFile(file, JSON.stringify(spec));
      const run = await runCli(['--spec', file, '--base-url', `${server.url}/svc`, '--token', TOKEN, '--max-examples', '4', ...extra]);
      return { run, results: requireResults(run), store };
    } finally {
      await server.close();
    }
  });
}

const failedOperations = (results: RunResults) => results.operations.filter((o) => o.outcome === 'failed' || o.outcome === 'errored').map((o) => o.operationId);

describe('records are deleted again through the matching DELETE, for any contract', () => {
  const integer = runAgainst(INTEGER_SPEC, {});
  const strings = runAgainst(STRING_SPEC, {});

  test(
    'integer ids (a trailing-slash collection and a nested one): the run created records and the server ends with none',
    async () => {
      const { run, results, store } = await integer;
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(failedOperations(results)).toEqual([]);
      const created = store.unsafe.filter((u) => u.startsWith('POST')).length;
      expect(created).toBeGreaterThan(3);
      expect([...store.live.keys()]).toEqual([]);
      // The run's own deletes went to both item paths, with integer ids.
      expect(store.deletes.some((d) => /^\/pets\/\d+$/.test(d))).toBe(true);
      expect(store.deletes.some((d) => /^\/pets\/\d+\/toys\/\d+$/.test(d))).toBe(true);
      expect(results.leftBehind).toBeUndefined();
      expect(run.stdout).not.toContain('Left behind');
      expect(resultsSchemaErrors(results)).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  test(
    'string ids (a POST answering {noteId}, PUT-to-create): the server ends with none',
    async () => {
      const { run, results, store } = await strings;
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(failedOperations(results)).toEqual([]);
      expect(store.unsafe.some((u) => u.startsWith('PUT /labels/'))).toBe(true);
      expect(store.unsafe.some((u) => u.startsWith('POST /notes'))).toBe(true);
      expect([...store.live.keys()]).toEqual([]);
      expect(store.deletes.some((d) => /^\/notes\/n-\d+$/.test(d))).toBe(true);
      expect(store.deletes.some((d) => /^\/labels\/[a-z]{3,8}$/.test(d))).toBe(true);
      expect(results.leftBehind).toBeUndefined();
    },
    RUN_TIMEOUT,
  );

  test(
    'a deployment that wrongly accepts every body: the records its negative cases made are deleted too',
    async () => {
      const { results, store } = await runAgainst(INTEGER_SPEC, { acceptAll: true });
      // The negative cases fail (that is the finding); the records they created are gone all the same.
      expect(results.operations.find((o) => o.operationId === 'createPet')?.outcome).toBe('failed');
      expect([...store.live.keys()]).toEqual([]);
      expect(results.leftBehind).toBeUndefined();
    },
    RUN_TIMEOUT,
  );
});

describe('records that cannot be deleted are reported as left behind, never blamed on an operation', () => {
  test(
    'a contract without a DELETE: the note names how many records were left and where (console and results.json)',
    async () => {
      const { run, results, store } = await runAgainst(NO_DELETE_SPEC, {});
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(results.verdict).toBe('conformant');
      const left = results.leftBehind ?? [];
      expect(store.live.size).toBeGreaterThan(0);
      expect(left).toHaveLength(store.live.size);
      for (const r of left) {
        expect(r).toMatchObject({ operationId: 'appendLog', method: 'POST', path: '/logs' });
        expect(r.reason).toContain('no DELETE');
        expect(r.createdBy).toMatch(/\/svc\/logs$/);
        expect(store.live.has(`/logs/${r.id}`)).toBe(true);
      }
      expect(run.stdout).toContain(`Left behind: ${left.length} record`);
      expect(run.stdout).toMatch(/note {2}\d+ × appendLog \(POST \/logs\): the contract describes no DELETE/);
      expect(resultsSchemaErrors(results)).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  test(
    'creates answered without an id: counted per operation with one example (not one entry per record), and every record that has an id is still deleted',
    async () => {
      const { run, results, store } = await runAgainst(INTEGER_SPEC, { hideIdEvery: 2 });
      const hiddenPets = store.hidden.get('pets') ?? [];
      const hiddenToys = store.hidden.get('toys') ?? [];
      expect(hiddenPets.length).toBeGreaterThan(1);
      expect(hiddenToys.length).toBeGreaterThan(1);
      // Only records whose id the server kept to itself are still there (a toy of a deleted pet went with it).
      const hidden = new Set([...hiddenPets, ...hiddenToys]);
      expect([...store.live.keys()].filter((k) => !hidden.has(k))).toEqual([]);
      for (const pet of hiddenPets) expect(store.live.has(pet)).toBe(true);
      expect(store.deletes.some((d) => /^\/pets\/\d+$/.test(d))).toBe(true);
      expect(store.deletes.some((d) => /^\/pets\/\d+\/toys\/\d+$/.test(d))).toBe(true);
      // One entry per create operation, with how many records its creates left and the first call as the example.
      const left = results.leftBehind ?? [];
      expect(left.map((r) => r.operationId).sort()).toEqual(['addToy', 'createPet']);
      const pets = left.find((r) => r.operationId === 'createPet')!;
      expect(pets).toMatchObject({ method: 'POST', path: '/pets/', count: hiddenPets.length, reason: 'the answer (201) named no id for {pet_id} of DELETE /pets/{pet_id}' });
      expect(pets.createdBy).toMatch(/\/svc\/pets\/$/);
      expect(pets).not.toHaveProperty('id');
      const toys = left.find((r) => r.operationId === 'addToy')!;
      expect(toys).toMatchObject({ method: 'POST', path: '/pets/{pet_id}/toys', count: hiddenToys.length });
      expect(toys.createdBy).toMatch(/\/svc\/pets\/\d+\/toys$/);
      expect(run.stdout).toContain(`Left behind: ${hiddenPets.length + hiddenToys.length} records`);
      expect(run.stdout).toContain(`note  ${hiddenPets.length} × createPet (POST /pets/): the answer (201) named no id`);
      expect(resultsSchemaErrors(results)).toEqual([]);
      // The answers without an id are the deployment's defect (the schema requires it), nothing else changes.
      expect(results.operations.find((o) => o.operationId === 'createPet')?.outcome).toBe('failed');
    },
    RUN_TIMEOUT,
  );

  test(
    'a DELETE that fails during cleanup: left behind with its answer, the verdict untouched',
    async () => {
      // The DELETEs are not selected, so only the cleanup calls them: none of their 500s may become a finding.
      const { run, results, store } = await runAgainst(STRING_SPEC, { deleteFails: true }, ['--exclude', 'method:DELETE']);
      expect(run.code, run.stderr + run.stdout).toBe(0);
      expect(results.operations.some((o) => o.operationId === 'eraseNote' || o.operationId === 'removeLabel')).toBe(false);
      expect(results.operations.every((o) => o.cases.every((c) => c.findings.every((f) => f.severity !== 'error')))).toBe(true);
      expect(store.deletes.length).toBeGreaterThan(0);
      const left = results.leftBehind ?? [];
      expect(left).toHaveLength(store.live.size);
      expect(left.every((r) => /answered 500$/.test(r.reason))).toBe(true);
      expect(run.stdout).toContain('Left behind');
    },
    RUN_TIMEOUT,
  );

  test(
    '--read-only sends no DELETE: what a faulty deployment created from a probe is reported as left behind',
    async () => {
      const { results, store } = await runAgainst(INTEGER_SPEC, { acceptAll: true }, ['--read-only']);
      // The only DELETEs are probes that name no record (the cleanup sends none): nothing the server holds is touched.
      const deletes = store.unsafe.filter((u) => u.startsWith('DELETE'));
      expect(deletes.length).toBeGreaterThan(0);
      // A value valid for the integer id that no sequence reaches (2147483647, or -2147483647 where negatives are allowed).
      expect(deletes.every((d) => /\/conformance-unknown-route-|^DELETE \/pets\/(-?2147483647)(\/toys\/(-?2147483647))?$/.test(d)), deletes.join('\n')).toBe(true);
      // The probes reach the handler (their ids are valid integers) and name no record it holds.
      expect(store.deletes.every((d) => /\/-?2147483647$/.test(d)), store.deletes.join('\n')).toBe(true);
      expect(store.unsafe.filter((u) => u.startsWith('PUT') || u.startsWith('PATCH'))).toEqual([]);
      const left = results.leftBehind ?? [];
      expect(left).toHaveLength(store.live.size);
      expect(left.length).toBeGreaterThan(0);
      expect(left.every((r) => r.reason.includes('--read-only'))).toBe(true);
    },
    RUN_TIMEOUT,
  );
});

describe('the clean-up sends several deletes at a time, never a record before those that name it', () => {
  test(
    'a toy is deleted before its pet even when its DELETE is slow, on a server that does not delete a pet\'s toys with it',
    async () => {
      // Only the clean-up deletes records: each toy's DELETE waits 80 ms, and a toy whose pet is gone answers 404
      // while it stays stored. A pet's DELETE sent beside its toy's would leave the toy behind unseen.
      const { run, results, store } = await runAgainst(INTEGER_SPEC, { noCascade: true, slowDeletes: { kinds: ['toys'], ms: 80 } }, ['--exclude', 'method:DELETE']);
      expect(run.code, run.stderr + run.stdout).toBe(0);
      const toys = store.deleteAnswers.filter((d) => /^\/pets\/\d+\/toys\/\d+$/.test(d.key));
      expect(toys.length).toBeGreaterThan(0);
      expect([...store.live.keys()]).toEqual([]);
      expect(toys.every((d) => d.status === 204), JSON.stringify(toys)).toBe(true);
      expect(results.leftBehind).toBeUndefined();
      // Several at a time: the server handled more than one DELETE at once.
      expect(store.maxDeletesAtOnce).toBeGreaterThan(1);
    },
    RUN_TIMEOUT,
  );

  test(
    'a delete refused while other records were still being deleted is sent again when they are gone',
    async () => {
      // A label cannot be deleted while any note is live (nothing in the contract or the calls says so); each
      // note's DELETE waits 80 ms, so labels' DELETEs sent beside them are refused with 409.
      const { run, results, store } = await runAgainst(STRING_SPEC, { labelsWaitForNotes: true, slowDeletes: { kinds: ['notes'], ms: 80 } }, ['--exclude', 'method:DELETE']);
      expect(run.code, run.stderr + run.stdout).toBe(0);
      const refused = store.deleteAnswers.filter((d) => d.status === 409);
      expect(refused.length).toBeGreaterThan(0);
      // Each refused label was deleted afterwards, once, with nothing left.
      for (const { key } of refused) expect(store.deleteAnswers.filter((d) => d.key === key).at(-1)?.status, key).toBe(204);
      expect([...store.live.keys()]).toEqual([]);
      expect(results.leftBehind).toBeUndefined();
    },
    RUN_TIMEOUT,
  );

  test(
    'a delete that fails whatever else is deleted is sent once, not again',
    async () => {
      const { results, store } = await runAgainst(STRING_SPEC, { deleteFails: true }, ['--exclude', 'method:DELETE']);
      expect(store.deletes.length).toBeGreaterThan(0);
      expect(new Set(store.deletes).size).toBe(store.deletes.length);
      expect(results.leftBehind).toHaveLength(store.live.size);
    },
    RUN_TIMEOUT,
  );
});

test(
  'the Customer reference service ends with none of the address types and fields the run created',
  async () => {
    await limit(async () => {
      // Live records as the service's own handlers saw them created and deleted.
      const live = new Map<string, string | undefined>();
      let created = 0;
      const idOf = (reply: { status: number; body?: unknown }) => (reply.status < 300 ? (reply.body as { id?: unknown } | undefined)?.id : undefined);
      const svc = await startReferenceService({
        token: TOKEN,
        port: 0,
        variant: {
          handlers: {
            'create-address-type': async (_req, next) => {
              const reply = await next();
              const id = idOf(reply);
              if (typeof id === 'string') (live.set(id, undefined), created++);
              return reply;
            },
            'create-address-type-field': async (req, next) => {
              const reply = await next();
              const id = idOf(reply);
              if (typeof id === 'string') (live.set(id, req.params['id']?.toLowerCase()), created++);
              return reply;
            },
            // A Guid in any case names the same record (the service reads uuids case-insensitively, as .NET does).
            'delete-address-type': async (req, next) => {
              const reply = await next();
              const id = (req.params['id'] ?? '').toLowerCase();
              if (reply.status < 300) for (const [k, parent] of [...live]) if (k === id || parent === id) live.delete(k);
              return reply;
            },
            'delete-address-type-field': async (req, next) => {
              const reply = await next();
              if (reply.status < 300) live.delete((req.params['fieldId'] ?? '').toLowerCase());
              return reply;
            },
          },
        },
      });
      try {
        // The whole run: generated cases and the scenario suites, irreversible operations included.
        const run = await runCli([
          '--base-url', svc.customerBaseUrl, '--foreign-trade-base-url', svc.foreignTradeBaseUrl, '--token', TOKEN,
          '--allow-irreversible', '--otp-source-url', `${svc.url}/__reference/otp/{transactionId}`, '--max-examples', '3',
        ], { killAfterMs: RUN_TIMEOUT - 20_000 });
        const results = requireResults(run);
        expect(run.code, run.stderr + run.stdout).toBe(0);
        expect(created).toBeGreaterThan(5);
        expect([...live.keys()]).toEqual([]);
        expect(results.leftBehind).toBeUndefined();
      } finally {
        await svc.close();
      }
    });
  },
  RUN_TIMEOUT,
);
