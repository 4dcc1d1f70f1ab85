/**
 * Writes are read back at their edges (lifecycle: reads after edge writes) against a tiny real server of people.
 * A person's record holds a name of 1 to 50 characters and an age of 0 to 150, as its create takes them; the PATCH
 * lacks one of those bounds: (a) the name's maxLength, (b) the age's minimum. A faulty server stores what the PATCH
 * takes: (a) the read by id then serves a name longer than its schema allows (response-schema-conformance on the
 * GET by id), (b) the list filtered by the stored negative age closes the connection without an answer
 * (connection-dropped on the list); each finding names the write. A strict server (refuses with 400 what the
 * record cannot hold) and a lenient one (clamps to the record's bounds) find nothing. The faulty servers run seeds
 * 1, 2 and 3; each correct one runs one seed, the seeds shared among them.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { CaseResult, Contract, Finding, JsonSchema, RunResults } from '../../src/runner/model.ts';
import { describe as describeContract } from '../../src/runner/description/load.ts';
import { accepts } from '../../src/runner/plan/accepts.ts';
import { edgeWrites, MAX_EDGE_WRITES, writtenValue } from '../../src/runner/plan/edge-writes.ts';
import { allFindings, bearerContract, listening, operation, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';
import { createServer } from 'node:http';

afterAll(removeTemps);

type Mode = 'faulty' | 'strict' | 'lenient';
type Lacks = 'maxLength' | 'minimum';

const CASE = 'lifecycle: reads after edge writes';
const name = { type: 'string', minLength: 1, maxLength: 50 };
const age = { type: 'integer', minimum: 0, maximum: 150 };
const person = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string', format: 'uuid', readOnly: true }, name, age } };
const create = { type: 'object', required: ['name'], properties: { name, age } };
const problem = { description: 'error', content: { 'application/problem+json': { schema: { type: 'object' } } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** The PATCH lacks the create's maxLength of the name (a) or its minimum of the age (b). */
function contract(lacks: Lacks): Record<string, unknown> {
  const patch = {
    type: 'object',
    properties: lacks === 'maxLength' ? { name: { type: 'string', minLength: 1 }, age } : { name, age: { type: 'integer', maximum: 150 } },
  };
  const list = [
    { name: 'age', in: 'query', required: false, schema: { type: 'integer' } },
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
  ];
  return bearerContract('3.1.0', 'People', {
    '/people': {
      get: { operationId: 'listPeople', parameters: list, responses: { '200': { description: 'ok', content: json({ type: 'array', items: person }) }, '400': problem, '401': problem } },
      post: { operationId: 'createPerson', requestBody: { required: true, content: json(create) }, responses: { '201': { description: 'made', content: json(person) }, '400': problem, '401': problem } },
    },
    '/people/{id}': {
      get: { operationId: 'getPerson', parameters: [id], responses: { '200': { description: 'ok', content: json(person) }, '401': problem, '404': problem } },
      patch: { operationId: 'patchPerson', parameters: [id], requestBody: { required: true, content: json(patch) }, responses: { '200': { description: 'ok', content: json(person) }, '400': problem, '401': problem, '404': problem } },
      delete: { operationId: 'deletePerson', parameters: [id], responses: { '204': { description: 'gone' }, '401': problem, '404': problem } },
    },
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a body sets, or undefined when it is refused. Each write checks what its own schema says (the create the
 * record's bounds, the PATCH all but the one it lacks); past that, the faulty server stores the value as it comes,
 * the strict one refuses what the record cannot hold, the lenient one clamps it to the record's bounds.
 */
function fields(body: unknown, mode: Mode, write: 'create' | Lacks): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if ('name' in b) {
    const text = b['name'];
    if (typeof text !== 'string' || text.length < 1 || (write !== 'maxLength' && [...text].length > 50)) return undefined;
    if (mode === 'strict' && [...text].length > 50) return undefined;
    out['name'] = mode === 'lenient' ? [...text].slice(0, 50).join('') : text;
  } else if (write === 'create') return undefined;
  if ('age' in b) {
    const n = b['age'];
    if (typeof n !== 'number' || !Number.isInteger(n) || n > 150 || (write !== 'minimum' && n < 0)) return undefined;
    if (mode === 'strict' && n < 0) return undefined;
    out['age'] = mode === 'lenient' ? Math.max(0, n) : n;
  }
  return out;
}

async function startServer(mode: Mode, lacks: Lacks) {
  const people = new Map<string, Record<string, unknown>>();
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const reply = (status: number, value?: unknown) => {
        if (value === undefined) return res.writeHead(status).end();
        res.writeHead(status, { 'content-type': status < 300 ? 'application/json' : 'application/problem+json' });
        res.end(JSON.stringify(value));
      };
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/svc' || url.pathname === '/svc/') return reply(404, { title: 'Not Found' });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) { res.setHeader('www-authenticate', 'Bearer'); return reply(401, { title: 'Unauthorized' }); }
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        return reply(400, { title: 'not JSON' });
      }
      if (url.pathname === '/svc/people' && req.method === 'POST') {
        const set = fields(body, mode, 'create');
        if (!set) return reply(400, { title: 'invalid' });
        const made = { ...set, id: randomUUID() };
        people.set(made.id, made);
        return reply(201, made);
      }
      if (url.pathname === '/svc/people' && req.method === 'GET') {
        const limit = Number(url.searchParams.get('limit') ?? '20');
        const filter = url.searchParams.get('age');
        if (!Number.isInteger(limit) || limit < 1 || limit > 100 || (filter !== null && !/^-?\d+$/.test(filter))) return reply(400, { title: 'invalid query' });
        const listed = [...people.values()].filter((p) => filter === null || p['age'] === Number(filter));
        // The faulty server's age index has no bucket below 0: a lookup of a negative age crashes the handler.
        if (filter !== null && listed.some((p) => (p['age'] as number) < 0)) return req.socket.destroy();
        return reply(200, listed.slice(-limit));
      }
      if (url.pathname === '/svc/people') {
        res.setHeader('allow', 'GET, POST');
        return reply(405, { title: 'Method Not Allowed' });
      }
      const item = /^\/svc\/people\/([^/]+)$/.exec(url.pathname);
      if (!item || !UUID.test(item[1]!)) return reply(404, { title: 'Not Found' });
      const found = people.get(item[1]!);
      if (req.method === 'GET') return found ? reply(200, found) : reply(404, { title: 'Not Found' });
      if (req.method === 'DELETE') return found && people.delete(item[1]!) ? reply(204) : reply(404, { title: 'Not Found' });
      if (req.method === 'PATCH') {
        const set = fields(body, mode, lacks);
        if (!set) return reply(400, { title: 'invalid' });
        if (!found) return reply(404, { title: 'Not Found' });
        const updated = { ...found, ...set, id: found['id'] };
        people.set(item[1]!, updated);
        return reply(200, updated);
      }
      res.setHeader('allow', 'GET, PATCH, DELETE');
      reply(405, { title: 'Method Not Allowed' });
    });
  });
  return listening(server);
}

async function run(mode: Mode, lacks: Lacks, seed: number): Promise<RunResults> {
  const spec = join(await tempDir(), 'people.openapi.json');
  await writeFile(spec, JSON.stringify(contract(lacks)));
  const server = await startServer(mode, lacks);
  try {
    return requireResults(await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', String(seed), '--fuzz-examples', '10', '--keep-passed-exchanges']));
  } finally {
    await server.close();
  }
}

function edgeCase(results: RunResults, operationId: string): CaseResult | undefined {
  return operation(results, operationId).cases.find((c) => c.name === CASE);
}

const errorsOf = (c: CaseResult | undefined, check: string): Finding[] => (c?.findings ?? []).filter((f) => f.check === check && f.severity === 'error');

describe.each([1, 2, 3])('reads after edge writes, --seed %i', (seed) => {
  test('(a) the PATCH lacks the name\'s maxLength: the read by id serves a name past it, an error of the GET naming the write', async () => {
    const results = await run('faulty', 'maxLength', seed);
    const found = errorsOf(edgeCase(results, 'getPerson'), 'response-schema-conformance');
    expect(found.map((f) => f.operationId)).toEqual(['getPerson']);
    expect(found[0]?.message).toMatch(/^(the same as in "[^"]+": )?After PATCH \/people\/\{id\} wrote name = "edgeedgeedge…" \(51 characters; valid for its schema; the read schema's maxLength is 50\): Response 200 does not match the schema/);
    // The record made for the case, then one write per value (eight at most), the first the one past the read's bound.
    const [made, ...writes] = edgeCase(results, 'getPerson')!.exchanges.filter((e) => e.request.method !== 'GET');
    expect(made?.request.method).toBe('POST');
    expect(writes.length).toBeGreaterThan(1);
    expect(writes.length).toBeLessThanOrEqual(8);
    expect(JSON.parse(writes[0]!.request.body ?? '{}')['name']).toHaveLength(51);
    // The list serves the record too: the list's own case finds it there.
    expect(errorsOf(edgeCase(results, 'listPeople'), 'response-schema-conformance')[0]?.message).toMatch(/^(the same as in "[^"]+": )?After PATCH \/people\/\{id\} wrote name = /);
    expect(results.verdict).toBe('not-conformant');
  }, 150_000);

  test('(b) the PATCH lacks the age\'s minimum: the list filtered by the stored -1 drops the connection, an error of the list naming the write', async () => {
    const results = await run('faulty', 'minimum', seed);
    const dropped = errorsOf(edgeCase(results, 'listPeople'), 'connection-dropped');
    expect(dropped.map((f) => f.operationId)).toEqual(['listPeople']);
    expect(dropped[0]?.message).toMatch(/^(the same as in "[^"]+": )?After PATCH \/people\/\{id\} wrote age = -1 \(valid for its schema; the read schema's minimum is 0\): GET \/people got no response/);
    // The GET by id's case reads the list too: the list's answer to it is the list's (its setup calls).
    const side = operation(results, 'listPeople').cases.find((c) => c.name === 'setup calls');
    expect(errorsOf(side, 'connection-dropped')[0]?.message).toMatch(/^(the same as in "[^"]+": )?After PATCH \/people\/\{id\} wrote age = -1 /);
    // The read by id serves the stored -1 against its schema.
    expect(errorsOf(edgeCase(results, 'getPerson'), 'response-schema-conformance')[0]?.message).toMatch(/^(the same as in "[^"]+": )?After PATCH \/people\/\{id\} wrote age = -1 /);
  }, 150_000);
});

// The correct servers, each under one seed, the three seeds shared among them: the faulty servers above run every
// seed, and a second seed of a server that flags nothing proves nothing the first does not.
describe('reads after edge writes, correct servers', () => {
  test.each([
    ['strict', 'maxLength', 1],
    ['lenient', 'maxLength', 2],
    ['strict', 'minimum', 3],
    ['lenient', 'minimum', 1],
  ] as const)('a correct %s server (the PATCH lacks the %s): the reads after the edge writes find nothing (--seed %i)', async (mode, lacks, seed) => {
    const results = await run(mode, lacks, seed);
    for (const operationId of ['getPerson', 'listPeople']) {
      const c = edgeCase(results, operationId);
      expect(c?.outcome, operationId).toBe('passed');
      expect(c?.exchanges.some((e) => e.request.method === 'PATCH'), operationId).toBe(true);
    }
    const noted = allFindings(results).filter((f) => /^(After|Sent) /.test(f.message));
    expect(noted.map((f) => `${f.operationId}: ${f.check}: ${f.message}`)).toEqual([]);
    const errors = allFindings(results).filter((f) => f.severity === 'error');
    if (mode === 'lenient') {
      expect(errors.map((f) => `${f.operationId}: ${f.check}: ${f.message}`)).toEqual([]);
      expect(results.verdict).toBe('conformant');
    }
    // A strict server refuses a value its PATCH's schema takes: that refusal is the PATCH's own finding where other
    // cases send such a value (positive-data-accepted), never one of the reads.
    else expect([...new Set(errors.map((f) => `${f.operationId}: ${f.check}`))].filter((e) => e !== 'patchPerson: positive-data-accepted')).toEqual([]);
  }, 150_000);
});

describe('the edge writes planned for a read', () => {
  const load = (lacks: Lacks): Contract => {
    const { service, operations } = describeContract(contract(lacks), 'people.json');
    return { services: [service], operations };
  };

  test.each(['maxLength', 'minimum'] as const)('(the PATCH lacks the %s) past the bound only the read declares first; each value valid for its write; at most eight', (lacks) => {
    const c = load(lacks);
    for (const reader of ['getPerson', 'listPeople']) {
      const writes = edgeWrites(c, c.operations.find((o) => o.operationId === reader)!);
      expect(writes.length).toBeGreaterThan(0);
      expect(writes.length).toBeLessThanOrEqual(MAX_EDGE_WRITES);
      expect(writtenValue(writes[0]!)).toBe(lacks === 'maxLength' ? 'name = "edgeedgeedge…" (51 characters; valid for its schema; the read schema\'s maxLength is 50)' : "age = -1 (valid for its schema; the read schema's minimum is 0)");
      expect(`${writes[0]!.write.method} ${writes[0]!.write.path}`).toBe('PATCH /people/{id}');
      const property = (w: (typeof writes)[number]) => (w.write.requestBody!.schema as { properties: Record<string, unknown> }).properties[w.property] as JsonSchema;
      for (const w of writes) expect(accepts(property(w), w.value), writtenValue(w)).toBe(true);
    }
    // Writes of other operations only; never a GET, nor a read without a record written.
    expect(edgeWrites(c, c.operations.find((o) => o.operationId === 'patchPerson')!)).toEqual([]);
  });
});

