/**
 * A create sent twice, and a second record (lifecycle: repeated create) against a tiny real server of users whose
 * e-mail address is unique. Four faulty servers, each wrong in one way the case alone can show:
 *  - repeat-500: a repeated create breaks the unique index (500): not-a-server-error of the create;
 *  - repeat-409: it answers 409, which its contract does not document: status-code-conformance of the create;
 *  - update-500: a PUT that gives one user another's address breaks it (500): not-a-server-error of the PUT;
 *  - xml-list: the XML list of two users or more has no root element: response-body-readable of the list.
 * Each finding's message says what came before it (seeds 1, 2 and 3). A strict server (a documented 409 for a taken
 * address) and a lenient one (addresses need not be unique), both taking only the writes the contract makes valid,
 * are conformant, every operation passed (seed 1).
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, describe, expect, test } from 'vitest';
import { describe as describeContract } from '../../src/runner/description/load.ts';
import type { Contract, Finding, RunResults } from '../../src/runner/model.ts';
import { repeatTargets } from '../../src/runner/plan/repeated-create.ts';
import { allFindings, bearerContract, listening, operation, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

type Mode = 'repeat-500' | 'repeat-409' | 'update-500' | 'xml-list' | 'strict' | 'lenient';

const CASE = 'lifecycle: repeated create';
const write = { type: 'object', required: ['email', 'name'], properties: { email: { type: 'string', format: 'email', maxLength: 80 }, name: { type: 'string', minLength: 1, maxLength: 50 } } };
const user = { type: 'object', required: ['id', 'email', 'name'], properties: { id: { type: 'string', format: 'uuid', readOnly: true }, ...write.properties, createdAt: { type: 'string', format: 'date-time', readOnly: true } } };
const problem = { description: 'error', content: { 'application/problem+json': { schema: { type: 'object' } } } };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/**
 * The users contract; a taken address is a documented 409 except where the faulty server answers 409 undocumented.
 * `unlisted`: the PUT's schema also requires `createdAt` without listing it (as some generators write a model's
 * fields), so only the record as the create answered it makes a valid PUT body.
 */
function contract(mode: Mode, unlisted = false): Record<string, unknown> {
  const taken = mode === 'repeat-409' ? {} : { '409': problem };
  const put = unlisted ? { ...write, required: [...write.required, 'createdAt'] } : write;
  const list = { 'application/json': { schema: { type: 'array', items: user } }, 'application/xml': { schema: { type: 'array', items: user } } };
  return bearerContract('3.1.0', 'Users', {
    '/users': {
      get: { operationId: 'listUsers', responses: { '200': { description: 'ok', content: list }, '401': problem } },
      post: { operationId: 'createUser', requestBody: { required: true, content: json(write) }, responses: { '201': { description: 'made', content: json(user) }, '400': problem, '401': problem, ...taken } },
    },
    '/users/{id}': {
      get: { operationId: 'getUser', parameters: [id], responses: { '200': { description: 'ok', content: json(user) }, '401': problem, '404': problem } },
      put: { operationId: 'updateUser', parameters: [id], requestBody: { required: true, content: json(put) }, responses: { '200': { description: 'ok', content: json(user) }, '400': problem, '401': problem, '404': problem, '409': problem } },
      delete: { operationId: 'deleteUser', parameters: [id], responses: { '204': { description: 'gone' }, '401': problem, '404': problem } },
    },
  });
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const validWrite = addFormats(new Ajv2020({ strict: false })).compile(write);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A valid write, or undefined. */
function fields(body: unknown): { email: string; name: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { email, name } = body as Record<string, unknown>;
  // What the contract makes a valid write (format email as JSON Schema's validators read it): a correct server takes nothing else.
  if (!validWrite(body)) return undefined;
  return { email: email as string, name: name as string };
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const userXml = (u: Record<string, string>) => `<user><id>${u['id']}</id><email>${escape(u['email']!)}</email><name>${escape(u['name']!)}</name></user>`;

async function startServer(mode: Mode) {
  const users = new Map<string, Record<string, string>>();
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const reply = (status: number, value?: unknown, type?: string) => {
        if (value === undefined) return res.writeHead(status).end();
        res.writeHead(status, { 'content-type': type ?? (status < 300 ? 'application/json' : 'application/problem+json') });
        res.end(typeof value === 'string' ? value : JSON.stringify(value));
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
      /** The answer to a write of an address another user holds; undefined: the write goes ahead. */
      const clash = (set: { email: string }, self?: string, on: 'create' | 'update' = 'create'): boolean => {
        if (mode === 'lenient' || ![...users.values()].some((u) => u['email'] === set.email && u['id'] !== self)) return false;
        if ((mode === 'repeat-500' && on === 'create') || (mode === 'update-500' && on === 'update')) reply(500, { title: 'IntegrityError: UNIQUE constraint failed: users.email' });
        else reply(409, { title: 'address taken' });
        return true;
      };
      if (url.pathname === '/svc/users' && req.method === 'POST') {
        const set = fields(body);
        if (!set) return reply(400, { title: 'invalid' });
        if (clash(set)) return;
        const made = { ...set, id: randomUUID(), createdAt: new Date().toISOString() };
        users.set(made.id, made);
        return reply(201, made);
      }
      if (url.pathname === '/svc/users' && req.method === 'GET') {
        const all = [...users.values()];
        if (!/xml/.test(req.headers.accept ?? '') || /json/.test(req.headers.accept ?? '')) return reply(200, all);
        // The faulty serialiser writes the records one after the other: one root element only while there is one record.
        const items = all.map(userXml).join('');
        return reply(200, mode === 'xml-list' ? items : `<users>${items}</users>`, 'application/xml');
      }
      if (url.pathname === '/svc/users') {
        res.setHeader('allow', 'GET, POST');
        return reply(405, { title: 'Method Not Allowed' });
      }
      const item = /^\/svc\/users\/([^/]+)$/.exec(url.pathname);
      if (!item || !UUID.test(item[1]!)) return reply(404, { title: 'Not Found' });
      const found = users.get(item[1]!);
      if (req.method === 'GET') return found ? reply(200, found) : reply(404, { title: 'Not Found' });
      if (req.method === 'DELETE') return found && users.delete(item[1]!) ? reply(204) : reply(404, { title: 'Not Found' });
      if (req.method === 'PUT') {
        const set = fields(body);
        if (!set) return reply(400, { title: 'invalid' });
        if (!found) return reply(404, { title: 'Not Found' });
        if (clash(set, item[1]!, 'update')) return;
        const updated = { ...found, ...set, id: item[1]! };
        users.set(item[1]!, updated);
        return reply(200, updated);
      }
      res.setHeader('allow', 'GET, PUT, DELETE');
      reply(405, { title: 'Method Not Allowed' });
    });
  });
  return listening(server);
}

/** The exit code of each run's CLI. */
const exitCodes = new WeakMap<RunResults, number | null>();

async function run(mode: Mode, seed: number, unlisted = false): Promise<RunResults> {
  const spec = join(await tempDir(), 'users.openapi.json');
  await writeFile(spec, JSON.stringify(contract(mode, unlisted)));
  const server = await startServer(mode);
  try {
    const cli = await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', String(seed), '--fuzz-examples', '10', '--keep-passed-exchanges']);
    const results = requireResults(cli);
    exitCodes.set(results, cli.code);
    return results;
  } finally {
    await server.close();
  }
}

const errorsOf = (results: RunResults, operationId: string, check: string): Finding[] =>
  operation(results, operationId).cases.flatMap((c) => c.findings).filter((f) => f.check === check && f.severity === 'error');
const repeatCase = (results: RunResults) => operation(results, 'createUser').cases.find((c) => c.name === CASE);
/** The findings a case of the repeated create led with what came before (its messages' openings). */
const LED = /^(the same as in "[^"]+": )?(Sent again the body|A second record, after|Sent the first of two records|With two records)/;

describe.each([1, 2, 3])('a create sent twice, and a second record, --seed %i', (seed) => {
  test('repeat-500: the same body created again breaks the server, an error of the create saying so', async () => {
    const results = await run('repeat-500', seed);
    const found = repeatCase(results)?.findings.filter((f) => f.check === 'not-a-server-error') ?? [];
    expect(found.map((f) => `${f.operationId} ${f.severity}`)).toEqual(['createUser error']);
    expect(found[0]?.message).toMatch(/^(the same as in "[^"]+": )?Sent again the body POST \/users had just answered 201 to: The deployment answered 500, a server error/);
    const [first, again] = repeatCase(results)!.exchanges;
    expect(again?.request.body).toBe(first?.request.body);
    expect(results.verdict).toBe('not-conformant');
  }, 150_000);

  test('repeat-409: the repeat answered with a status the contract does not document, an error of the create', async () => {
    const results = await run('repeat-409', seed);
    const found = repeatCase(results)?.findings.filter((f) => f.check === 'status-code-conformance') ?? [];
    expect(found.map((f) => `${f.operationId} ${f.severity}`)).toEqual(['createUser error']);
    expect(found[0]?.message).toMatch(/^(the same as in "[^"]+": )?Sent again the body POST \/users had just answered 201 to: Status 409 is not documented/);
  }, 150_000);

  // With its own valid body, the coverage PUTs of the run meet the same 500 first (one finding per check and status):
  // the PUT's error is theirs, "the same as in coverage"; with the record as the create answered it, only the
  // repeated create's PUT gets a 500, and its finding names the two records.
  test.each([
    ['its own valid body (the error the coverage PUTs met first)', false],
    ['the record as the create answered it (the PUT requires a field it does not list; the error names the records)', true],
  ])("update-500: a PUT giving the first user the second one's address breaks the server, an error of the PUT; the PUT's body: %s", async (_, unlisted) => {
    const results = await run('update-500', seed, unlisted);
    const [first, , second, update] = repeatCase(results)!.exchanges;
    expect(JSON.parse(update?.request.body ?? '{}')['email']).toBe(JSON.parse(second?.request.body ?? '{}')['email']);
    expect(update?.request.url).toContain(JSON.parse(first?.response?.body ?? '{}')['id']);
    if (unlisted) expect(JSON.parse(update?.request.body ?? '{}')['createdAt']).toBe(JSON.parse(first?.response?.body ?? '{}')['createdAt']);
    // The PUT's answer is the PUT's finding (one per check and status: a 500 other cases met first keeps their message).
    const found = errorsOf(results, 'updateUser', 'not-a-server-error');
    expect(found.length).toBeGreaterThan(0);
    const led = found.filter((f) => LED.test(f.message));
    expect(led.length, JSON.stringify(found.map((f) => f.message))).toBe(unlisted ? 1 : 0);
    for (const f of led) expect(f.message).toMatch(/^(the same as in "[^"]+": )?Sent the first of two records POST \/users made the second one's values \(email, name\): The deployment answered 500/);
    // The create refused the repeat as documented (409): the create's own case finds nothing.
    expect(repeatCase(results)?.findings ?? []).toEqual([]);
    expect(repeatCase(results)?.exchanges.map((e) => `${e.request.method} ${e.response?.status}`).slice(0, 4)).toEqual(['POST 201', 'POST 409', 'POST 201', 'PUT 500']);
  }, 150_000);

  test('xml-list: the XML list of two records is not well-formed, an error of the list saying it held two', async () => {
    const results = await run('xml-list', seed);
    const found = errorsOf(results, 'listUsers', 'response-body-readable').filter((f) => LED.test(f.message));
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]?.message).toMatch(/^(the same as in "[^"]+": )?With two records POST \/users made in the collection, asked for application\/xml alone: Response 200 is labelled application\/xml but is not well-formed XML/);
  }, 150_000);
});

// The correct servers under one seed each (strict 1, lenient 2): the faulty ones above run under seeds 1, 2 and 3,
// and what the case sends to a correct server is the same sequence under every seed (the requests' values aside).
describe('a create sent twice, and a second record, on correct servers', () => {
  test.each([['strict', 1], ['lenient', 2]] as const)('a correct %s server: the case finds nothing (--seed %i)', async (mode, seed) => {
    const results = await run(mode, seed);
    const c = repeatCase(results);
    expect(c?.outcome).toBe('passed');
    // Nothing flagged, and everything tested: the verdict, the exit code, every operation passed.
    expect(results.verdict, JSON.stringify(allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId}: ${f.check}: ${f.message}`))).toBe('conformant');
    expect(exitCodes.get(results)).toBe(0);
    expect(Object.fromEntries(results.operations.map((o) => [o.operationId, o.outcome]))).toEqual({ listUsers: 'passed', createUser: 'passed', getUser: 'passed', updateUser: 'passed', deleteUser: 'passed' });
    const sent = c!.exchanges.map((e) => `${e.request.method} ${e.response?.status}`);
    // The strict server refuses the repeat (409, documented), then takes a second record and refuses the PUT that
    // would give the first its address; the lenient one takes the repeat as a second record. Both lists are asked for.
    expect(sent).toEqual(mode === 'strict' ? ['POST 201', 'POST 409', 'POST 201', 'PUT 409', 'GET 200', 'GET 200'] : ['POST 201', 'POST 201', 'GET 200', 'GET 200']);
    expect(allFindings(results).filter((f) => LED.test(f.message)).map((f) => `${f.operationId}: ${f.check}: ${f.message}`)).toEqual([]);
  }, 150_000);
});

describe('the targets of a repeated create', () => {
  test('a create with a JSON object body gets its read, list and updates; no other operation is one', () => {
    const { service, operations } = describeContract(contract('strict'), 'users.json');
    const c: Contract = { services: [service], operations };
    const byId = (id: string) => c.operations.find((o) => o.operationId === id)!;
    const targets = repeatTargets(c, byId('createUser'));
    expect({ param: targets?.param, item: targets?.item?.operationId, list: targets?.list?.operationId, updates: targets?.updates.map((o) => o.operationId) }).toEqual({ param: 'id', item: 'getUser', list: 'listUsers', updates: ['updateUser'] });
    expect(repeatTargets(c, byId('createUser'), () => false)?.updates).toEqual([]);
    for (const other of ['listUsers', 'getUser', 'updateUser', 'deleteUser']) expect(repeatTargets(c, byId(other)), other).toBeUndefined();
  });
});
