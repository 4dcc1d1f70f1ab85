/**
 * What a server reads a string or a list as, and the records a run needs, on a server of its own:
 *  - a string in the URL that nothing constrains is also sent as a plain word and as numeric strings (`0`, beyond
 *    int64): a sort field the server does not know, a record id it casts and looks up, break it;
 *  - a list in the URL gets the classes of its items (an integer item beyond int64);
 *  - a query variation refused because the request it varies is refused (an optional parameter it will not take)
 *    is sent again without the optional parameters, so the refusal does not hide a server error;
 *  - a record a case needs is asked for once more with only what the create's schema requires when the full body
 *    is refused (here: any `tag` breaks the create), so the update behind it is tested;
 *  - a body variation answered as the body it varies is (any `tag` breaks the create) is sent again without the
 *    optional fields, so the fault of one field does not hide how the others are read (a number taken for the name).
 * Each fault is found on its operation by its check; the correct server (which takes what its contract allows)
 * gives nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Finding, RunResults } from '../../src/runner/model.ts';
import { removeTemps, requireResults, runCli, summary, tempDir } from '../support/runs.ts';

/** A path segment decoded, or as it is where it is no valid escape (`%ZZ`): as frameworks that decode leniently read it. */
function decodeLeniently(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

afterAll(removeTemps);

const ERROR = { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } };
const THING = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string' } } };
const refused = { '400': { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } };
const missing = { '404': { description: 'no such thing', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } };
const one = { description: 'the thing', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } };
const thingId = { name: 'thingId', in: 'path', required: true, schema: { type: 'string' } };
const SPEC = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  servers: [{ url: 'http://127.0.0.1/t' }],
  components: { schemas: { Thing: THING, Error: ERROR } },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [
          { name: 'sort', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'ids', in: 'query', style: 'form', explode: false, schema: { type: 'array', items: { type: 'integer' } } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'the things', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } } } }, ...refused },
      },
      post: {
        operationId: 'addThing',
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, tag: { type: 'string', maxLength: 20 } } } } } },
        responses: { '201': one, ...refused },
      },
    },
    '/things/{thingId}': {
      get: { operationId: 'getThing', parameters: [thingId], responses: { '200': one, ...missing } },
      put: {
        operationId: 'replaceThing',
        parameters: [thingId],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } } } },
        responses: { '200': one, ...refused, ...missing },
      },
      delete: { operationId: 'removeThing', parameters: [thingId], responses: { '204': { description: 'removed' }, ...missing } },
    },
  },
};

type Fault = 'unknown-sort-field' | 'id-zero' | 'ids-overflow' | 'create-with-tag' | 'creates-broken' | 'coerces-name';
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The correct server takes what its contract allows: any sort strings (unknown fields ignored), any integers in
 * `ids` (those it cannot hold match nothing), any `q`, any string id (404 where it holds none), a create with or
 * without `tag`. Each fault breaks one of those.
 */
function server(...faults: Fault[]): Server {
  const things = new Map<string, { id: number; name: string | number; tag?: string }>();
  let next = 1;
  // The faulty deployment keeps records it cannot make any more (its creates break), and serves their names as
  // numbers (the schema says string): only a read of a record it holds shows that.
  if (faults.includes('creates-broken')) for (const name of ['first', 'second']) things.set(String(next), { id: next++, name });
  const served = (thing: { id: number; name: string | number; tag?: string }) => (faults.includes('creates-broken') ? { ...thing, name: 7 } : thing);
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, body?: unknown) => (body === undefined ? res.writeHead(status).end() : res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
      const readBody = (): Record<string, unknown> | undefined => {
        try {
          const b: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          return typeof b === 'object' && b !== null && !Array.isArray(b) ? (b as Record<string, unknown>) : undefined;
        } catch {
          return undefined;
        }
      };
      if (url.pathname === '/t/things') {
        if (req.method === 'GET') {
          // A field name it does not know is looked up on the entity: unknown, it breaks (as an ORM's sort does).
          const sort = url.searchParams.getAll('sort');
          if (faults.includes('unknown-sort-field') && sort.some((s) => /^-?[A-Za-z]+$/.test(s) && !['id', 'name'].includes(s.replace(/^-/, '')))) return json(500, { detail: 'could not resolve property' });
          // Any q it refuses when it holds a hyphen (a fault on its own: a valid request refused): the request the
          // coverage phase varies is refused, and the overflow of `ids` is found only without it.
          const q = url.searchParams.get('q');
          if (faults.includes('ids-overflow') && q !== null && q.includes('-')) return json(400, { detail: 'q: letters and digits only' });
          const ids = (url.searchParams.get('ids') ?? '').split(',').filter((s) => s !== '');
          if (ids.some((s) => !/^-?\d+$/.test(s))) return json(400, { detail: 'ids: integers' });
          if (faults.includes('ids-overflow') && ids.some((s) => BigInt(s) > INT64_MAX || BigInt(s) < -INT64_MAX - 1n)) return json(500, { detail: 'Python int too large to convert to SQLite INTEGER' });
          const wanted = new Set(ids.map((s) => String(BigInt(s))));
          return json(200, [...things.values()].filter((t) => wanted.size === 0 || wanted.has(String(t.id))));
        }
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'GET, POST' }).end();
        if (faults.includes('creates-broken')) return json(500, { detail: 'database is read-only' });
        const b = readBody();
        // The lenient create reads a number or a boolean as the name's text (as Jackson or DRF do).
        if (b && faults.includes('coerces-name') && ['number', 'boolean'].includes(typeof b['name'])) b['name'] = String(b['name']);
        if (!b || typeof b['name'] !== 'string' || b['name'] === '') return json(400, { detail: 'name is required' });
        const tag = b['tag'];
        if (tag !== undefined && (typeof tag !== 'string' || tag.length > 20)) return json(400, { detail: 'tag: a string of at most 20 characters' });
        // The faulty create breaks on any tag (its tags table is missing).
        if (faults.includes('create-with-tag') && tag !== undefined) return json(500, { detail: 'no such table: tags' });
        const thing = { id: next++, name: b['name'], ...(typeof tag === 'string' ? { tag } : {}) };
        things.set(String(thing.id), thing);
        return json(201, thing);
      }
      const m = /^\/t\/things\/([^/]+)$/.exec(url.pathname);
      if (!m) return json(404, { detail: 'no such route' });
      if (!['GET', 'PUT', 'DELETE'].includes(req.method ?? '')) return res.writeHead(405, { allow: 'GET, PUT, DELETE' }).end();
      const id = decodeLeniently(m[1]!);
      const thing = things.get(id);
      // The faulty read looks a numeric id up in a related table first, and breaks where that holds none.
      if (faults.includes('id-zero') && req.method === 'GET' && !thing && /^\d+$/.test(id)) return json(500, { detail: 'Thing matching query does not exist.' });
      if (!thing) return json(404, { detail: 'no such thing' });
      if (req.method === 'GET') return json(200, served(thing));
      if (req.method === 'DELETE') {
        things.delete(id);
        return json(204);
      }
      const b = readBody();
      if (!b || typeof b['name'] !== 'string' || b['name'] === '') return json(400, { detail: 'name is required' });
      thing.name = b['name'];
      // The faulty update answers 204 (documented: 200 with the thing).
      return faults.includes('create-with-tag') ? json(204) : json(200, thing);
    });
  });
}

async function run(srv: Server, seed = '1', ...extra: string[]): Promise<RunResults> {
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  try {
    const spec = join(await tempDir(), 'things.json');
    writeFileSync(spec, JSON.stringify(SPEC));
    const cli = await runCli(['--spec', spec, '--base-url', `http://127.0.0.1:${(srv.address() as AddressInfo).port}/t`, '--quiet', '--seed', seed, ...extra]);
    return requireResults(cli);
  } finally {
    await new Promise((resolve) => srv.close(resolve));
  }
}

const findings = (results: RunResults, operationId: string, check: string): Array<Finding & { case: string }> =>
  (results.operations.find((o) => o.operationId === operationId)?.cases ?? []).flatMap((c) => c.findings.filter((f) => f.check === check && f.severity === 'error').map((f) => ({ ...f, case: c.name })));
const everything = (results: RunResults) => JSON.stringify(results.operations.flatMap((o) => o.cases.flatMap((c) => c.findings.map((f) => [o.operationId, c.name, f.check, f.message]))));

// The correct server runs one seed: the faulty servers below run seeds 1, 2 and 3, and a second seed of a server
// that flags nothing proves nothing the first does not.
test('the correct server: nothing found (seed 2)', async () => {
  const results = await run(server(), '2');
  expect(summary(results), everything(results)).toEqual([]);
  expect(results.verdict).toBe('conformant');
}, 120_000);

describe.each(['1', '2', '3'])('names, numbers and records (seed %s)', (seed) => {
  // One run of the server whose creates all break, without --allow-irreversible, read by the two tests below.
  let broken: Promise<RunResults> | undefined;
  const brokenRun = () => (broken ??= run(server('creates-broken'), seed));

  // The two faults share a deployment: the one breaks the list's sort, the other the read of an id it does not hold,
  // and neither touches what the other operation is sent or answers; each is found on its own operation, no other fails.
  test('a sort by a field it does not know breaks the list (not-a-server-error on listThings, a plain word); a numeric id it does not hold breaks the read (not-a-server-error on getThing, {thingId} = "0")', async () => {
    const results = await run(server('unknown-sort-field', 'id-zero'), seed);
    expect(summary(results), everything(results)).toEqual(['getThing: failed [not-a-server-error, status-code-conformance]', 'listThings: failed [not-a-server-error, status-code-conformance]']);
    expect(findings(results, 'listThings', 'not-a-server-error').map((f) => f.message).join('\n')).toMatch(/query\.sort = \["[A-Za-z]+"\]/);
    expect(findings(results, 'getThing', 'not-a-server-error').map((f) => f.message).join('\n')).toMatch(/path\.thingId = "0"/);
  }, 120_000);

  test('an item of ids beyond int64 breaks the list, behind a refused q: found without the optional parameters', async () => {
    const results = await run(server('ids-overflow'), seed);
    expect(summary(results), everything(results)).toEqual(['listThings: failed [not-a-server-error, positive-data-accepted, status-code-conformance]']);
    const crash = findings(results, 'listThings', 'not-a-server-error').map((f) => f.message).join('\n');
    // Sent on the request without q where the one with it is refused (the positive's q holds a hyphen).
    expect(crash).toMatch(/query\.ids = \["?9223372036854775808"?\]/);
  }, 120_000);

  test('a create that breaks on an optional field still makes the record the update needs: the 204 is found', async () => {
    const results = await run(server('create-with-tag'), seed);
    expect(summary(results), everything(results)).toEqual(['addThing: failed [not-a-server-error, status-code-conformance]', 'replaceThing: failed [status-code-conformance]']);
    const undocumented = findings(results, 'replaceThing', 'status-code-conformance');
    expect(undocumented.some((f) => f.case === 'positive' && /Status 204 is not documented/.test(f.message)), everything(results)).toBe(true);
  }, 120_000);

  test('a number taken for the name, behind a create that breaks on its optional tag: found on the body without the tag', async () => {
    const lenientOf = (results: RunResults) =>
      (results.operations.find((o) => o.operationId === 'addThing')?.cases ?? []).flatMap((c) => c.findings.filter((f) => f.lenient === true && f.check === 'negative-data-rejected').map((f) => f.message)).join('\n');
    const behind = await run(server('create-with-tag', 'coerces-name'), seed);
    expect(lenientOf(behind), everything(behind)).toMatch(/body\.name = (12345|true) \(a (number|boolean), not a string\), the optional body fields left out \(the body with them is answered 500\)/);
    // Without the fault in front of it, on the full body.
    const alone = await run(server('coerces-name'), seed);
    expect(summary(alone), everything(alone)).toEqual([]);
    expect(lenientOf(alone)).toMatch(/body\.name = (12345|true) \(a (number|boolean), not a string\) accepted leniently|accepted leniently with 201 \(body\.name = (12345|true)/);
  }, 120_000);

  test('creates that all break: a read uses a record the list serves and finds what it answers; writes leave it alone', async () => {
    const results = await brokenRun();
    expect(findings(results, 'getThing', 'response-schema-conformance').map((f) => f.case), everything(results)).toContain('positive');
    // Without --allow-irreversible no write goes to a record the run did not make.
    const writes = results.operations.filter((o) => o.operationId === 'replaceThing' || o.operationId === 'removeThing').flatMap((o) => o.cases.flatMap((c) => c.exchanges.map((e) => e.request.url)));
    expect(writes.filter((u) => /\/things\/[12]$/.test(u))).toEqual([]);
  }, 120_000);

  test('with --allow-irreversible an update may use a record the list serves (never a delete, which consumes it)', async () => {
    const results = await run(server('creates-broken'), seed, '--allow-irreversible');
    const positive = (id: string) => results.operations.find((o) => o.operationId === id)?.cases.find((c) => c.name === 'positive');
    // The update ran (on a served record: the run could make none); the delete, which would consume it, did not.
    expect(positive('replaceThing')?.outcome, everything(results)).toBe('passed');
    expect(positive('removeThing')?.outcome).toBe('skipped');
    const without = await brokenRun();
    expect(without.operations.find((o) => o.operationId === 'replaceThing')?.cases.find((c) => c.name === 'positive')?.outcome).toBe('skipped');
  }, 120_000);
});
