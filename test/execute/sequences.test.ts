/**
 * Stateful sequences against real HTTP servers: each sequence makes records for the call alone (the record
 * its path names, and a new record of each kind a body field names: `user_id` gets a user made by `POST
 * /users`), sends the call, then the same call again on the state the first one left; the second sequence
 * with a property the schema does not list. A service whose answers
 * to them are undocumented (a 201 where 200 is documented, a 409 to the repeat, a 500 to a second delete) is
 * flagged on that operation; a correct one gets nothing flagged. Derived from names and paths only.
 */
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Contract, Operation, RunResults } from '../../src/runner/model.ts';
import { DEFAULT_SEQUENCES, defaultSequences, SEQUENCE_CASE, SEQUENCE_RUN_BUDGET, sequences } from '../../src/runner/plan/cases.ts';
import { referencedCreates } from '../../src/runner/plan/relations.ts';
import { REPEATED_CREATE_CASE } from '../../src/runner/plan/repeated-create.ts';
import { allFindings, removeTemps, requireResults, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const json = (schema: unknown) => ({ 'application/json': { schema } });
const USER = { type: 'object', required: ['id', 'email'], properties: { id: { type: 'integer' }, email: { type: 'string' } } };
const AGREEMENT = { type: 'object', required: ['id', 'user_id', 'accepted'], properties: { id: { type: 'integer' }, user_id: { type: 'integer' }, accepted: { type: 'boolean' } } };
const ERROR = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Agreements', version: '1' },
  servers: [{ url: 'http://localhost/svc' }],
  paths: {
    '/users': {
      post: {
        operationId: 'addUser',
        requestBody: { required: true, content: json({ type: 'object', required: ['email'], properties: { email: { type: 'string' } } }) },
        responses: { '200': { description: 'the user', content: json(USER) }, '400': { description: 'invalid', content: json(ERROR) } },
      },
    },
    '/users/{id}': {
      get: {
        operationId: 'getUser',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'the user', content: json(USER) }, '400': { description: 'invalid', content: json(ERROR) }, '404': { description: 'none', content: json(ERROR) } },
      },
      delete: {
        operationId: 'deleteUser',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '204': { description: 'gone' }, '400': { description: 'invalid', content: json(ERROR) }, '404': { description: 'none', content: json(ERROR) } },
      },
    },
    '/agreements': {
      post: {
        operationId: 'addAgreement',
        requestBody: { required: true, content: json({ type: 'object', required: ['user_id', 'accepted'], properties: { user_id: { type: 'integer' }, accepted: { type: 'boolean' } } }) },
        responses: { '200': { description: 'the agreement', content: json(AGREEMENT) }, '400': { description: 'invalid, an unknown user, or one who has an agreement', content: json(ERROR) } },
      },
    },
  },
};

interface Seen {
  method: string;
  path: string;
  body: string;
  status: number;
}

/** The service; `faulty` answers the state-dependent cases with statuses the description does not list. */
async function startServer(faulty: boolean): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const users = new Map<number, string>();
  const agreements = new Map<number, number>();
  let next = 1;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const reply = (status: number, value?: unknown) => {
        seen.push({ method: req.method ?? '', path, body, status });
        if (value === undefined) {
          res.writeHead(status);
          return res.end();
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const error = (status: number, message: string) => reply(status, { message });
      const methods: Record<string, string> = { '/svc/users': 'POST', '/svc/agreements': 'POST' };
      const item = path.match(/^\/svc\/users\/([^/]+)$/);
      const allowed = item ? 'GET, DELETE' : methods[path];
      if (!allowed) return error(404, 'no such path');
      if (!allowed.split(', ').includes(req.method ?? '')) {
        res.setHeader('allow', allowed);
        return error(405, 'method not allowed');
      }
      let parsed: Record<string, unknown> = {};
      if (req.method === 'POST') {
        try {
          parsed = JSON.parse(body) as Record<string, unknown>;
        } catch {
          return error(400, 'not JSON');
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return error(400, 'not an object');
      }
      if (item) {
        const id = Number(item[1]);
        if (!/^-?\d+$/.test(item[1] ?? '') || !Number.isSafeInteger(id)) return error(400, 'id is an integer');
        if (req.method === 'GET') return users.has(id) ? reply(200, { id, email: users.get(id) }) : error(404, 'no such user');
        if (!users.has(id)) return faulty ? error(500, 'KeyError') : error(404, 'no such user');
        users.delete(id);
        return reply(204);
      }
      if (path === '/svc/users') {
        if (typeof parsed['email'] !== 'string') return error(400, 'email is required');
        const id = next++;
        users.set(id, parsed['email']);
        return reply(200, { id, email: parsed['email'] });
      }
      const userId = parsed['user_id'];
      if (typeof userId !== 'number' || !Number.isInteger(userId) || typeof parsed['accepted'] !== 'boolean') return error(400, 'user_id and accepted are required');
      if (!users.has(userId)) return error(400, 'no such user');
      if (agreements.has(userId)) return faulty ? error(409, 'the user has an agreement') : error(400, 'the user has an agreement');
      // A strict deserialiser, reached only for a user without an agreement: a property it does not know breaks it.
      if (faulty && Object.keys(parsed).some((k) => k !== 'user_id' && k !== 'accepted')) return error(500, 'unknown field');
      const id = next++;
      agreements.set(userId, id);
      return reply(faulty ? 201 : 200, { id, user_id: userId, accepted: parsed['accepted'] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/svc`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let spec: string | undefined;

async function runAgainst(faulty: boolean, extra: string[] = []): Promise<{ results: RunResults; seen: Seen[] }> {
  spec ??= join(await tempDir(), 'agreements.openapi.json');
  await writeFile(spec, JSON.stringify(SPEC));
  const server = await startServer(faulty);
  try {
    const cli = await runCli(['--spec', spec, '--server', `svc=${server.url}`, '--token', TOKEN, '--quiet', '--seed', '1', '--max-examples', '0', '--fuzz-examples', '0', ...extra]);
    return { results: requireResults(cli), seen: server.seen };
  } finally {
    await server.close();
  }
}

/** Error findings as "<operation> <check> <message start>". */
function errors(results: RunResults): string[] {
  return allFindings(results)
    .filter((f) => f.severity === 'error')
    .map((f) => `${f.operationId} ${f.check} ${f.message.replace(/ \(seen on \d+ requests\)/, '')}`)
    .sort();
}

describe('which operations get sequences', () => {
  const contract = { operations: [] as Operation[] } as unknown as Contract;
  const op = (operationId: string, method: Operation['method'], path: string, body?: unknown): Operation =>
    ({ operationId, method, path, service: 'svc', group: '/', specFile: 's', pointer: '', parameters: [], responses: [], secured: false, extensions: {}, ...(body ? { requestBody: { required: true, contentType: 'application/json', schema: body, pointer: '' } } : {}) }) as Operation;
  contract.operations.push(
    op('addUser', 'POST', '/users', { type: 'object', properties: { email: { type: 'string' } } }),
    op('getUser', 'GET', '/users/{id}'),
    op('addAgreement', 'POST', '/agreements', { type: 'object', properties: { user_id: { type: 'integer' }, accepted: { type: 'boolean' } } }),
    op('listUsers', 'GET', '/users'),
    op('accept', 'POST', '/accept/{uuid}'),
  );
  const [addUser, getUser, addAgreement, listUsers, accept] = contract.operations as [Operation, Operation, Operation, Operation, Operation];

  test('an operation on a record some create makes, or whose body names one; not one without records or without a producer', () => {
    expect(referencedCreates(contract, addAgreement).map((r) => [r.field, r.create.operationId])).toEqual([['user_id', 'addUser']]);
    expect(sequences(contract, getUser)).toBe(true);
    expect(sequences(contract, addAgreement)).toBe(true);
    expect(sequences(contract, addUser)).toBe(false);
    expect(sequences(contract, listUsers)).toBe(false);
    // Nothing in the contract makes the record {uuid} names.
    expect(sequences(contract, accept)).toBe(false);
  });

  test('three per operation, fewer past the run budget, never none', () => {
    expect(defaultSequences(contract, contract.operations)).toBe(DEFAULT_SEQUENCES);
    const many = Array.from({ length: SEQUENCE_RUN_BUDGET }, () => getUser);
    expect(defaultSequences(contract, many)).toBe(1);
    expect(defaultSequences(contract, Array.from({ length: 1_200 }, () => getUser))).toBe(2);
  });
});

describe('sequences against a service', () => {
  test('an undocumented answer that needs a record made for the call (201, then 409 on the repeat; 500 to a second delete) is flagged on its operation', async () => {
    const { results, seen } = await runAgainst(true);
    // The agreement named a user the service had just made for it, and was sent twice.
    const made = seen.filter((s) => s.method === 'POST' && s.path === '/svc/users' && s.status === 200).map((s) => (JSON.parse(s.body) as { email: string }).email);
    const named = seen.filter((s) => s.path === '/svc/agreements' && s.status === 201);
    expect(made.length).toBeGreaterThan(0);
    // Every sequence but the second (its unknown property meets the 500 below).
    expect(named.length).toBeGreaterThanOrEqual(DEFAULT_SEQUENCES - 1);
    expect(seen.filter((s) => s.path === '/svc/agreements' && s.status === 409).length).toBeGreaterThanOrEqual(DEFAULT_SEQUENCES - 1);
    const found = errors(results);
    // Nothing else: each pair of operation and check is one of these.
    expect([...new Set(found.map((f) => f.split(' ').slice(0, 2).join(' ')))].sort()).toEqual([
      'addAgreement not-a-server-error',
      'addAgreement status-code-conformance',
      'deleteUser not-a-server-error',
      'deleteUser status-code-conformance',
    ]);
    expect(found.some((f) => f.startsWith('addAgreement status-code-conformance Status 201'))).toBe(true);
    expect(found.some((f) => f.startsWith('addAgreement status-code-conformance Status 409'))).toBe(true);
    expect(found.some((f) => f.startsWith('deleteUser not-a-server-error'))).toBe(true);
    // The 409 and the 500 show on the sequences case (the repeat); nothing else of the run sends a call twice on one record.
    const caseOf = (operationId: string, check: string, status: number) =>
      results.operations.find((o) => o.operationId === operationId)?.cases.filter((c) => c.findings.some((f) => f.check === check && c.exchanges.some((e) => e.response?.status === status))).map((c) => c.name);
    expect(caseOf('addAgreement', 'status-code-conformance', 409)).toContain(SEQUENCE_CASE);
    expect(caseOf('deleteUser', 'not-a-server-error', 500)).toContain(SEQUENCE_CASE);
    // The second sequence adds a property the schema does not list, for a user made for it: the 500 shows there.
    const extra = seen.find((s) => s.path === '/svc/agreements' && s.status === 500);
    expect(JSON.parse(extra?.body ?? '{}')).toMatchObject({ conformanceExtra: 'conformance' });
    expect(caseOf('addAgreement', 'not-a-server-error', 500)).toContain(SEQUENCE_CASE);
  }, 120_000);

  test('a correct service gets nothing flagged; --sequences 0 sends none', async () => {
    const { results, seen } = await runAgainst(false);
    expect(errors(results)).toEqual([]);
    expect(Object.fromEntries(results.operations.filter((o) => o.method !== null).map((o) => [o.operationId, o.outcome]))).toEqual({ addUser: 'passed', getUser: 'passed', deleteUser: 'passed', addAgreement: 'passed' });
    expect(seen.filter((s) => s.path === '/svc/agreements' && s.status === 200).length).toBeGreaterThanOrEqual(DEFAULT_SEQUENCES);
    // A body the examples give, naming a setup step: every sequence sends it as resolved, a new user in user_id.
    const examples = join(await tempDir(), 'examples.yaml');
    await writeFile(examples, [
      'operations:',
      '  addAgreement:',
      '    setup:',
      '      - as: u',
      '        operation: addUser',
      "        body: { email: 'example-{{unique}}' }",
      "    body: { user_id: '{{u./id}}', accepted: true }",
      '',
    ].join('\n'));
    const exampled = await runAgainst(false, ['--examples', examples]);
    const sequence = exampled.results.operations.find((o) => o.operationId === 'addAgreement')?.cases.find((c) => c.name === SEQUENCE_CASE);
    expect(sequence?.outcome, sequence?.errorMessage).toBe('passed');
    expect(errors(exampled.results)).toEqual([]);
    const users = exampled.seen.filter((s) => s.path === '/svc/users' && s.status === 200).length;
    expect(exampled.seen.filter((s) => s.path === '/svc/agreements' && s.status === 200).length).toBeGreaterThanOrEqual(DEFAULT_SEQUENCES);
    expect(users).toBeGreaterThanOrEqual(DEFAULT_SEQUENCES + 1);
    // The record maker's own example names a setup step: every record made for a case runs that step first and
    // sends the example's body with its answer (nothing errors, each operation's sequences run).
    const makerExamples = join(await tempDir(), 'examples.yaml');
    await writeFile(makerExamples, [
      'operations:',
      '  addUser:',
      '    setup:',
      '      - as: first',
      '        operation: addUser',
      "        body: { email: 'first-{{unique}}' }",
      "    body: { email: '{{first./email}}' }",
      '',
    ].join('\n'));
    const maker = await runAgainst(false, ['--examples', makerExamples]);
    const sequenceCases = maker.results.operations.flatMap((o) => o.cases.filter((c) => c.name === SEQUENCE_CASE).map((c) => [o.operationId, c.outcome, c.errorMessage]));
    expect(sequenceCases.length).toBeGreaterThan(0);
    expect(sequenceCases.filter(([, outcome]) => outcome !== 'passed')).toEqual([]);
    expect(errors(maker.results)).toEqual([]);
    // Each step's answer made its way into the body after it: every email the step sent was sent twice.
    const emails = maker.seen.filter((s) => s.path === '/svc/users' && s.status === 200).map((s) => JSON.parse(s.body).email as string);
    const stepEmails = new Set(emails.filter((e) => e.startsWith('first-')));
    expect(stepEmails.size).toBeGreaterThanOrEqual(DEFAULT_SEQUENCES);
    // Every step's email twice, but one: the repeated create sent its record's body once more (plan/repeated-create.ts).
    const counts = [...stepEmails].map((e) => emails.filter((x) => x === e).length);
    expect(counts.filter((n) => n !== 2)).toEqual([3]);
    expect(maker.results.operations.flatMap((o) => o.cases).filter((c) => c.name === REPEATED_CREATE_CASE).map((c) => c.outcome)).toEqual(['passed']);
    const none = await runAgainst(false, ['--sequences', '0']);
    expect(none.results.operations.flatMap((o) => o.cases).some((c) => c.name === SEQUENCE_CASE)).toBe(false);
    expect(none.seen.filter((s) => s.path === '/svc/agreements' && s.status === 200).length).toBeLessThan(seen.filter((s) => s.path === '/svc/agreements' && s.status === 200).length);
  }, 120_000);
});
