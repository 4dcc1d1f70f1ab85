/**
 * Path parameters get their coverage on a server of their own: segments sent already percent-encoded (`%ZZ`, an
 * overlong UTF-8 `/` as `%C0%AF`, `%FF`, an encoded `/`, `?`, `#`, `..%2F`) reach the wire as they are and only the
 * answer is judged; an id beyond int64 reaches every method, DELETE included; a read by id has its path fuzzed; and
 * results.json and `conformance plan` count the requests by the location of the input each varies.
 *  - a framework answering the encoding edges with a 400 the contract does not document: status-code-conformance
 *    on the operations that answered it;
 *  - a DELETE that breaks (500) on an id beyond int64: not-a-server-error on the DELETE;
 *  - a router whose decoder throws on `%ZZ` (500): not-a-server-error on the GET and the DELETE, whose message calls
 *    it a request whose acceptance the contract does not settle (no value of the id's schema is `%ZZ`);
 *  - a correct strict server (400 for what is no id, 404 for an id it does not hold, both documented) and a correct
 *    lenient one (404 for anything it does not hold, the only refusal documented): nothing, under one seed each (the
 *    faulty servers run seeds 1, 2 and 3).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Finding, RunResults } from '../../src/runner/model.ts';
import { json, startHttp } from '../http/servers.ts';
import { pool, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const limit = pool(2);
const RUN_TIMEOUT = 240_000;
const SEEDS = [1, 2, 3];
const INT64_MAX = 2n ** 63n - 1n;

/** delete-overflow-string: the same fault behind a string id (`type: string`, the digits a database casts). */
type Variant = 'strict' | 'lenient' | 'encoding-400' | 'decode-500' | 'delete-overflow' | 'delete-overflow-string' | 'http-layer-text';

const ERROR = { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } };
const ITEM = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' } } };
const err = (description: string) => ({ description, content: { 'application/json': { schema: ERROR } } });

/** The contract: a strict one documents 400 for what is no id beside 404; a lenient one only 404. */
function spec(strict: boolean, idType: 'integer' | 'string' = 'integer') {
  const id = { name: 'id', in: 'path', required: true, schema: { type: idType } };
  const refusals = { ...(strict ? { '400': err('not an id') } : {}), '404': err('no such item') };
  return {
    openapi: '3.0.3',
    info: { title: 'items', version: '1' },
    servers: [{ url: 'http://127.0.0.1/api' }],
    paths: {
      '/items': {
        post: {
          operationId: 'addItem',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } } },
          responses: { '201': { description: 'made', content: { 'application/json': { schema: ITEM } } }, '400': err('invalid') },
        },
      },
      '/items/{id}': {
        get: { operationId: 'getItem', parameters: [id], responses: { '200': { description: 'the item', content: { 'application/json': { schema: ITEM } } }, ...refusals } },
        delete: { operationId: 'removeItem', parameters: [id], responses: { '204': { description: 'removed' }, ...refusals } },
      },
    },
  };
}

/** A segment a framework cannot take as it is: an escape that decodes to no UTF-8 text, or an encoded separator. */
function undecodable(segment: string): boolean {
  if (/%2F|%3F|%23/i.test(segment)) return true;
  try {
    decodeURIComponent(segment);
    return false;
  } catch {
    return true;
  }
}

function server(variant: Variant) {
  const items = new Map<string, { id: number; name: string }>();
  let next = 1;
  const strict = variant === 'strict';
  return (req: IncomingMessage, res: ServerResponse, text: string) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/api/items') {
      if (req.method !== 'POST') return json(res, 405, { detail: 'method' }, { allow: 'POST' });
      let body: { name?: unknown } | undefined;
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return json(res, 400, { detail: 'not JSON' });
      }
      if (!/^application\/json\b/.test(req.headers['content-type'] ?? '') || typeof body !== 'object' || body === null || Array.isArray(body) || typeof body.name !== 'string') return json(res, 400, { detail: 'name is required' });
      const item = { id: next++, name: body.name };
      items.set(String(item.id), item);
      return json(res, 201, item);
    }
    const m = /^\/api\/items\/([^/]+)$/.exec(path);
    if (!m) return json(res, 404, { detail: 'no such route' });
    if (req.method !== 'GET' && req.method !== 'DELETE') return json(res, 405, { detail: 'method' }, { allow: 'DELETE, GET' });
    const segment = m[1]!;
    // An HTTP server (Go's net/http) refuses a target that is no URI before the API: a 400 of its own, as text.
    if (variant === 'http-layer-text' && /%(?![0-9A-Fa-f]{2})/.test(segment)) return void res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('400 Bad Request');
    // The faulty framework refuses what it cannot decode before any handler runs, with a status nobody documented.
    if (variant === 'encoding-400' && undecodable(segment)) return json(res, 400, { detail: 'Bad Request: malformed path' });
    let id: string;
    try {
      id = decodeURIComponent(segment);
    } catch {
      // The faulty router lets its decoder's exception through (LoopBack 4's answer to /todos/%ZZ).
      if (variant === 'decode-500') return json(res, 500, { detail: 'Internal Server Error' });
      id = segment;
    }
    if (!/^-?\d+$/.test(id)) return strict ? json(res, 400, { detail: 'id: an integer' }) : json(res, 404, { detail: 'no such item' });
    // The faulty DELETE casts the id to a 64-bit integer of its database.
    if (variant.startsWith('delete-overflow') && req.method === 'DELETE' && (BigInt(id) > INT64_MAX || BigInt(id) < -INT64_MAX - 1n)) return json(res, 500, { detail: 'integer out of range' });
    const item = items.get(String(BigInt(id)));
    if (!item) return json(res, 404, { detail: 'no such item' });
    if (req.method === 'GET') return json(res, 200, item);
    items.delete(String(item.id));
    res.writeHead(204).end();
  };
}

interface Ran {
  results: RunResults;
  paths: string[];
  plan: string;
}

async function run(variant: Variant, seed: number): Promise<Ran> {
  return limit(async () => {
    const svc = await startHttp(server(variant));
    try {
      const file = join(await tempDir(), 'items.json');
      await writeFile(file, JSON.stringify(spec(variant === 'strict' || variant === 'http-layer-text', variant === 'delete-overflow-string' ? 'string' : 'integer')));
      const args = ['--spec', file, '--base-url', `${svc.url}/api`, '--token', TOKEN, '--seed', String(seed)];
      const r = await runCli(args);
      const results = requireResults(r);
      const plan = seed === 1 && variant === 'lenient' ? (await runCli(['plan', ...args], { noOut: true })).stdout : '';
      return { results, paths: svc.seen.map((h) => `${h[':method']} ${h[':path']}`), plan };
    } finally {
      await svc.close();
    }
  });
}

const errors = (results: RunResults): Finding[] => results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings.filter((f) => f.severity === 'error')));
const on = (results: RunResults, operationId: string) => results.operations.find((o) => o.operationId === operationId)!;

describe('path parameters: encoding edges, ids beyond int64, counts by location', () => {
  const runs = new Map<string, Promise<Ran>>();
  const ran = (variant: Variant, seed: number) => {
    const key = `${variant}:${seed}`;
    if (!runs.has(key)) runs.set(key, run(variant, seed));
    return runs.get(key)!;
  };

  // Each correct server runs one seed (lenient 1, whose run the counts below read too; strict 2): the faulty
  // servers run seeds 1, 2 and 3, and a second seed of a server that flags nothing proves nothing the first does not.
  test.each([['lenient', 1], ['strict', 2]] as const)(
    'the encoding edges go out raw, to every method, and a correct %s server shows nothing (seed %i)',
    async (only, seed) => {
      for (const variant of [only]) {
        const { results, paths } = await ran(variant, seed);
        expect(errors(results).map((f) => `${f.operationId} ${f.check}: ${f.message}`), variant).toEqual([]);
        expect(results.verdict, variant).toBe('conformant');
        for (const method of ['GET', 'DELETE']) {
          for (const raw of ['%ZZ', '%C0%AF', '%FF', 'conformance%2Fx', 'conformance%3Fx', 'conformance%23x', '..%2Fconformance']) expect(paths, `${variant} ${method} ${raw}`).toContain(`${method} /api/items/${raw}`);
          // An id beyond int64 on every method, DELETE too.
          expect(paths, `${variant} ${method}`).toContain(`${method} /api/items/9223372036854775808`);
        }
        // No bare dot segment is ever sent (the URL parser would resolve it into another route).
        expect(paths.filter((p) => /\/\.\.?(\/|$)/.test(p))).toEqual([]);
      }
    },
    RUN_TIMEOUT,
  );

  test.each(SEEDS)(
    'seed %i: an undocumented 400 to the encoding edges is status-code-conformance on the operations that answered it',
    async (seed) => {
      const { results } = await ran('encoding-400', seed);
      for (const operationId of ['getItem', 'removeItem']) {
        const found = on(results, operationId).cases.flatMap((c) => c.findings).filter((f) => f.check === 'status-code-conformance' && f.severity === 'error');
        expect(found.length, operationId).toBeGreaterThan(0);
        expect(found[0]!.message).toMatch(/400/);
      }
      expect(errors(results).every((f) => ['getItem', 'removeItem'].includes(f.operationId) && f.check === 'status-code-conformance'), JSON.stringify(errors(results).map((f) => [f.operationId, f.check]))).toBe(true);
    },
    RUN_TIMEOUT,
  );

  test.each(SEEDS)(
    'seed %i: a documented 400 the HTTP server gives a path that is no URI (%%ZZ), as text/plain: a warning, not an error',
    async (seed) => {
      const { results } = await ran('http-layer-text', seed);
      expect(errors(results).map((f) => `${f.operationId} ${f.check}: ${f.message}`)).toEqual([]);
      const warned = results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings)).filter((f) => f.check === 'content-type-conformance');
      expect(warned.length).toBeGreaterThan(0);
      expect(warned.every((f) => f.severity === 'warning' && /no URI/.test(f.message))).toBe(true);
    },
    RUN_TIMEOUT,
  );

  test(
    'a router that answers 500 to an invalid percent-escape: not-a-server-error on both operations, the request not called valid',
    async () => {
      const { results } = await ran('decode-500', 1);
      for (const operationId of ['getItem', 'removeItem']) {
        const found = on(results, operationId).cases.flatMap((c) => c.findings).filter((f) => f.check === 'not-a-server-error' && f.severity === 'error');
        expect(found.length, operationId).toBeGreaterThan(0);
        for (const f of found) {
          expect(f.message).toMatch(/to a request whose acceptance the contract does not settle \(path\.id = (%ZZ|%C0%AF|%FF) /);
          expect(f.message).not.toMatch(/schema-valid/);
        }
      }
      // The 500 is undocumented too.
      expect(errors(results).every((f) => ['getItem', 'removeItem'].includes(f.operationId) && ['not-a-server-error', 'status-code-conformance'].includes(f.check)), JSON.stringify(errors(results).map((f) => [f.operationId, f.check]))).toBe(true);
    },
    RUN_TIMEOUT,
  );

  test.each(SEEDS.flatMap((seed) => [[seed, 'delete-overflow'], [seed, 'delete-overflow-string']] as const))(
    'seed %i: a DELETE that breaks on an id beyond int64 is not-a-server-error on the DELETE (%s)',
    async (seed, variant) => {
      const { results } = await ran(variant, seed);
      const found = on(results, 'removeItem').cases.flatMap((c) => c.findings).filter((f) => f.check === 'not-a-server-error' && f.severity === 'error');
      expect(found.length).toBeGreaterThan(0);
      expect(found[0]!.message).toMatch(/beyond int64/);
      expect(errors(results).every((f) => f.operationId === 'removeItem'), JSON.stringify(errors(results).map((f) => [f.operationId, f.check]))).toBe(true);
    },
    RUN_TIMEOUT,
  );

  test(
    'results.json counts every request once by the location of its input, and the plan shows the planned share',
    async () => {
      const { results, plan } = await ran('lenient', 1);
      const byLocation = results.requestsByLocation ?? {};
      const total = results.operations.reduce((n, o) => n + (o.requests ?? 0), 0);
      expect(Object.values(byLocation).reduce((n, v) => n + v, 0)).toBe(total);
      // Stored for the run, not per operation.
      expect(results.operations.some((o) => o.requestsByLocation !== undefined)).toBe(false);
      // The read by id has its path fuzzed (its fuzzing case) and covered: most of its requests vary the path.
      expect(on(results, 'getItem').cases.find((c) => c.name === 'fuzzing')?.outcome).toBe('passed');
      expect(byLocation.path ?? 0).toBeGreaterThan(on(results, 'getItem').requests! / 2);
      expect(byLocation.body ?? 0).toBeGreaterThan(0);
      expect(byLocation.query).toBeUndefined();
      expect(plan).toMatch(/^Planned requests by input location \(.*\): path \d+ \(\d+%\) · query 0 \(0%\) · header \d+ \(\d+%\) · cookie 0 \(0%\) · body \d+ \(\d+%\) · none \d+ \(\d+%\)$/m);
    },
    RUN_TIMEOUT,
  );
});
