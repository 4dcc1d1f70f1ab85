/**
 * Mass assignment (WFC 203) against a tiny real server: a thing's record has `role` (which neither its create nor
 * its updates accept) and a readOnly `createdBy` (readOnly in the create and PUT schemas too; the PATCH schema does
 * not list it). The run sends them, apart from the chains that judge the writes themselves, to the create (after
 * its created-readable chain), the PUT (after its update-persisted chain, on the same record) and the PATCH (a case
 * of its own). A faulty server that applies whatever properties come fails all three with mass-assignment, under
 * three seeds; a strict one (400 for a property of a thing it may not set) and a lenient one (it ignores them) are
 * conformant (one seed each), and the strict one's refusals cost the update-persisted chain nothing. A `version` every update
 * advances is the server's own and never passes for one applied. Without a GET of a thing, the writes' own answers
 * show the record (an enum, one of a few values, is then not sent: nothing shows the value it differs from).
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { CaseResult, RunResults } from '../../src/runner/model.ts';
import { allFindings, operation, removeTemps, requireResults, runCli, summary, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

type Mode = 'faulty' | 'strict' | 'lenient';

const name = { type: 'string', minLength: 1, maxLength: 40 };
const createdBy = { type: 'string', readOnly: true };
const write = { type: 'object', required: ['name'], properties: { name, createdBy } };
const patch = { type: 'object', properties: { name } };
const thing = {
  type: 'object',
  required: ['id', 'name', 'role', 'createdBy', 'version'],
  properties: {
    id: { type: 'string', format: 'uuid', readOnly: true },
    name,
    role: { type: 'string', enum: ['member', 'admin'] },
    createdBy,
    // A counter every update advances: a correct server's own value must never pass for one applied.
    version: { type: 'integer', minimum: 1, readOnly: true },
  },
};
const problem = { description: 'error', content: { 'application/problem+json': { schema: { type: 'object' } } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Things', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/things': {
      post: { operationId: 'createThing', requestBody: { required: true, content: json(write) }, responses: { '201': { description: 'made', content: json(thing) }, '400': problem, '401': problem } },
    },
    '/things/{id}': {
      get: { operationId: 'getThing', parameters: [id], responses: { '200': { description: 'ok', content: json(thing) }, '401': problem, '404': problem } },
      put: { operationId: 'putThing', parameters: [id], requestBody: { required: true, content: json(write) }, responses: { '200': { description: 'ok', content: json(thing) }, '400': problem, '401': problem, '404': problem } },
      patch: { operationId: 'patchThing', parameters: [id], requestBody: { required: true, content: json(patch) }, responses: { '200': { description: 'ok', content: json(thing) }, '400': problem, '401': problem, '404': problem } },
      delete: { operationId: 'deleteThing', parameters: [id], responses: { '204': { description: 'gone' }, '401': problem, '404': problem } },
    },
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The properties of a thing a request may not set. */
const NOT_WRITABLE = ['id', 'role', 'createdBy', 'version'];

/**
 * What a body asks to set, or undefined when it is refused: the writable `name` (required unless a PATCH). The
 * strict server refuses a body that tries to set a property of a thing it may not (400); properties it knows
 * nothing of it ignores, as the contract lets through. The lenient one drops both; the faulty one takes them all.
 */
function fields(body: unknown, mode: Mode, partial: boolean): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (mode === 'strict' && Object.keys(b).some((k) => NOT_WRITABLE.includes(k))) return undefined;
  if ('name' in b && (typeof b['name'] !== 'string' || b['name'].length < 1 || [...b['name']].length > 40)) return undefined;
  if (!partial && !('name' in b)) return undefined;
  if (mode === 'faulty') {
    const { id: _id, ...rest } = b;
    return rest;
  }
  return 'name' in b ? { name: b['name'] } : {};
}

async function startServer(mode: Mode, reader: boolean): Promise<{ url: string; close: () => Promise<void> }> {
  const things = new Map<string, Record<string, unknown>>();
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const reply = (status: number, value?: unknown) => {
        if (value === undefined) return res.writeHead(status).end();
        res.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) { res.setHeader('www-authenticate', 'Bearer'); return reply(401, { title: 'Unauthorized' }); }
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const item = /^\/svc\/things\/([^/]+)$/.exec(path);
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        return reply(400, { title: 'not JSON' });
      }
      if (path === '/svc/things' && req.method === 'POST') {
        const set = fields(body, mode, false);
        if (!set) return reply(400, { title: 'invalid' });
        const made = { role: 'member', createdBy: 'alice', version: 1, ...set, id: randomUUID() };
        things.set(made.id, made);
        return reply(201, made);
      }
      if (path === '/svc/things') {
        res.setHeader('allow', 'POST');
        return reply(405, { title: 'Method Not Allowed' });
      }
      if (!item) return reply(404, { title: 'Not Found' });
      if (!UUID.test(item[1]!)) return reply(404, { title: 'Not Found' });
      const found = things.get(item[1]!);
      if (req.method === 'GET' && reader) return found ? reply(200, found) : reply(404, { title: 'Not Found' });
      if (req.method === 'DELETE') return found && things.delete(item[1]!) ? reply(204) : reply(404, { title: 'Not Found' });
      if (req.method === 'PUT' || req.method === 'PATCH') {
        const set = fields(body, mode, req.method === 'PATCH');
        if (!set) return reply(400, { title: 'invalid' });
        if (!found) return reply(404, { title: 'Not Found' });
        const updated = { ...found, version: (found['version'] as number) + 1, ...set, id: found['id'] };
        things.set(item[1]!, updated);
        return reply(200, updated);
      }
      res.setHeader('allow', reader ? 'GET, PUT, PATCH, DELETE' : 'PUT, PATCH, DELETE');
      reply(405, { title: 'Method Not Allowed' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/svc`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The contract, or the same without its GET of a thing: then no read shows a record, only the writes' answers. */
function contract(reader: boolean): typeof SPEC {
  if (reader) return SPEC;
  const { get: _get, ...item } = SPEC.paths['/things/{id}'];
  return { ...SPEC, paths: { ...SPEC.paths, '/things/{id}': item as typeof SPEC.paths['/things/{id}'] } };
}

async function run(mode: Mode, seed: number, reader = true): Promise<RunResults> {
  const spec = join(await tempDir(), 'things.openapi.json');
  await writeFile(spec, JSON.stringify(contract(reader)));
  const server = await startServer(mode, reader);
  try {
    return requireResults(await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', String(seed), '--fuzz-examples', '10', '--keep-passed-exchanges']));
  } finally {
    await server.close();
  }
}

const CASES = { createThing: 'lifecycle: created record readable', putThing: 'lifecycle: update persisted', patchThing: 'lifecycle: mass assignment' } as const;

function chain(results: RunResults, operationId: keyof typeof CASES): CaseResult | undefined {
  return operation(results, operationId).cases.find((c) => c.name === CASES[operationId]);
}

/** The bodies of the case's own writes, in the order sent. */
function writes(c: CaseResult | undefined, method: string): Array<Record<string, unknown>> {
  return (c?.exchanges ?? []).filter((e) => e.request.method === method && e.request.body).map((e) => JSON.parse(e.request.body ?? '{}') as Record<string, unknown>);
}

describe.each([1, 2, 3])('mass assignment, --seed %i', (seed) => {
  test('a server that applies whatever properties come fails the create, the PUT and the PATCH with mass-assignment', async () => {
    const results = await run('faulty', seed);
    expect(results.verdict).toBe('not-conformant');
    expect(summary(results)).toEqual(['createThing: failed [mass-assignment]', 'patchThing: failed [mass-assignment]', 'putThing: failed [mass-assignment]']);
    for (const operationId of ['createThing', 'putThing', 'patchThing'] as const) {
      const found = chain(results, operationId)?.findings.filter((f) => f.check === 'mass-assignment') ?? [];
      expect(found.map((f) => [f.operationId, f.severity]), operationId).toEqual([[operationId, 'error']]);
      expect(found[0]?.faultCode).toBe(203);
    }
    const method = { createThing: 'POST /things', putThing: 'PUT /things/{id}', patchThing: 'PATCH /things/{id}' };
    expect(chain(results, 'createThing')?.findings.find((f) => f.check === 'mass-assignment')?.message).toBe(
      `${method.createThing} applied \`role\`, \`version\`, which its request schema does not accept, and \`createdBy\`, which its request schema marks readOnly (as the record read after it shows).`,
    );
    expect(chain(results, 'putThing')?.findings.find((f) => f.check === 'mass-assignment')?.message).toBe(
      `${method.putThing} applied \`role\`, \`version\`, which its request schema does not accept, and \`createdBy\`, which its request schema marks readOnly (as the record read after it shows).`,
    );
    expect(chain(results, 'patchThing')?.findings.find((f) => f.check === 'mass-assignment')?.message).toBe(
      `${method.patchThing} applied \`role\`, \`createdBy\`, \`version\`, which its request schema does not accept (as the record read after it shows).`,
    );
    // Distinctive values: another role than the one the record holds, never the server's own createdBy, a version far
    // from the one the next update gives.
    const assigned = writes(chain(results, 'putThing'), 'PUT').at(-1);
    expect(assigned?.['role']).toBe('admin');
    expect(assigned?.['createdBy']).not.toBe('alice');
    expect(assigned?.['version']).toBeGreaterThan(1000);
  }, 150_000);

  test('without a reader the writes\' answers show the record: a faulty server fails the create, the PUT and the PATCH', async () => {
    const faulty = await run('faulty', seed, false);
    const shown = (operationId: string) => allFindings(faulty).filter((f) => f.check === 'mass-assignment' && f.operationId === operationId).map((f) => `${f.severity}: ${f.message}`);
    // No stored value to differ from: the role (one of two) is not sent; the version and createdBy are.
    expect(shown('createThing')).toEqual(['error: POST /things applied `version`, which its request schema does not accept, and `createdBy`, which its request schema marks readOnly (as its answer shows).']);
    expect(shown('putThing')).toEqual(['error: PUT /things/{id} applied `version`, which its request schema does not accept, and `createdBy`, which its request schema marks readOnly (as its answer shows).']);
    expect(shown('patchThing')).toEqual(['error: PATCH /things/{id} applied `createdBy`, `version`, which its request schema does not accept (as its answer shows).']);
    const sent = operation(faulty, 'createThing').cases.find((c) => c.name === 'lifecycle: mass assignment');
    expect(Object.keys(writes(sent, 'POST').at(-1) ?? {}).sort()).toEqual(['createdBy', 'name', 'version']);
  }, 150_000);
});

// The correct servers, each under one seed, the seeds shared among them: the faulty server above runs seeds 1, 2
// and 3, and a second seed of a server that flags nothing proves nothing the first does not.
describe('mass assignment, correct servers', () => {
  test.each([['strict', 1], ['lenient', 2]] as const)('a correct %s server: no mass-assignment finding, conformant; the update-persisted chain keeps its update (--seed %i)', async (mode, seed) => {
    const results = await run(mode, seed);
    expect(allFindings(results).filter((f) => f.check === 'mass-assignment')).toEqual([]);
    const errors = allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId}: ${f.check}: ${f.message}`);
    expect(summary(results), errors.join('\n')).toEqual([]);
    expect(results.verdict).toBe('conformant');
    for (const operationId of ['createThing', 'putThing', 'patchThing'] as const) expect(chain(results, operationId)?.outcome, operationId).toBe('passed');
    // The update the chain judges sends only what the update accepts; what it must not set goes in a PUT of its own.
    const puts = writes(chain(results, 'putThing'), 'PUT');
    expect(puts).toHaveLength(2);
    expect(Object.keys(puts[0]!)).toEqual(['name']);
    expect(Object.keys(puts[1]!).sort()).toEqual(['createdBy', 'name', 'role', 'version']);
    // Refused by the strict server, taken and ignored by the lenient one (then read back: left as it was).
    const extraPut = chain(results, 'putThing')?.exchanges.filter((e) => e.request.method === 'PUT').at(-1);
    expect(extraPut?.response?.status).toBe(mode === 'strict' ? 400 : 200);
    expect(Object.keys(writes(chain(results, 'patchThing'), 'PATCH').at(-1) ?? {}).sort()).toEqual(['createdBy', 'name', 'role', 'version']);
    expect(Object.keys(writes(chain(results, 'createThing'), 'POST').at(-1) ?? {}).sort()).toEqual(['createdBy', 'name', 'role', 'version']);
  }, 150_000);

  test('without a reader the writes\' answers show the record: a lenient server passes (--seed 3)', async () => {
    const lenient = await run('lenient', 3, false);
    expect(allFindings(lenient).filter((f) => f.check === 'mass-assignment')).toEqual([]);
    expect(summary(lenient)).toEqual([]);
    expect(operation(lenient, 'putThing').cases.find((c) => c.name === 'lifecycle: mass assignment')?.outcome).toBe('passed');
  }, 150_000);
});
