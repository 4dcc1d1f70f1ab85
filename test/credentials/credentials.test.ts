/**
 * Credentials from the API itself (--auth-from), on a server of the RealWorld ("Conduit") shape
 * (test/credentials/conduit-server.mjs, described by ../shared/realworld/openapi.yml): the run registers once for a
 * token answered in {"user": {"token": ...}} and sends it as `Authorization: Token <jwt>`; a rename of the current
 * user renews the token and later cases use the new one; a refusal is held to the statuses the operation documents;
 * no report holds a credential the run held (the token, renewed tokens, the password), though the current user's
 * record carries the caller's token by design.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, removeTemps, runCli, secretLeaks } from '../support/runs.ts';
import { realWorldContract } from '../support/realworld.ts';
// @ts-expect-error: the server is plain JavaScript
import { startConduitServer } from './conduit-server.mjs';

const SPEC = realWorldContract();
const SEEDS = ['1', '2', '3'];
/** The operations these tests hold to account: the current user, the feed (auth required), the global list and the tags. */
const AUTHENTICATED = ['GetCurrentUser', 'GetArticlesFeed'];
const INCLUDE = [...AUTHENTICATED, 'GetArticles', 'GetTags'].join(',');

afterAll(removeTemps);

interface Server {
  baseUrl: string;
  users: Array<{ username: string; email: string; password: string }>;
  requests: { login: number; register: number; refused: number };
  issued: string[];
  close(): Promise<void>;
}

async function runAgainst(server: { fault?: string }, seed: string, extra: string[], env: Record<string, string> = {}) {
  const s = (await startConduitServer(server)) as Server;
  try {
    const run = await runCli(['--spec', SPEC!, '--base-url', s.baseUrl, '--seed', seed, ...extra], { env });
    return { run, server: s };
  } finally {
    await s.close();
  }
}

/** "operation: check" of every error finding. */
function errors(results: RunResults): string[] {
  return [...new Set(allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId}: ${f.check}`))].sort();
}

function tested(results: RunResults): string[] {
  return results.operations.filter((o) => o.outcome !== 'untested' && o.outcome !== 'skipped').map((o) => o.operationId).sort();
}

describe.skipIf(SPEC === undefined)('credentials from the API itself (--auth-from), RealWorld shape', () => {
  // The correct server's runs (a registration, a login, a rename) run one seed each, the seeds shared among them: the
  // faulty servers below run seeds 1, 2 and 3, and a second seed of a run that flags nothing proves nothing new.
  test.each(['1'])('seed %s: a registration gives the run its Token; the authenticated operations are tested and a correct server is conformant; no report holds the token or the password', async (seed) => {
    const password = `Pw-${seed}-correct-horse-battery`;
    const body = JSON.stringify({ user: { password } });
    const { run, server } = await runAgainst({}, seed, ['--auth-from', 'POST /users', '--include', INCLUDE], { CONFORMANCE_AUTH_FROM_BODY: body });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = run.results!;
    expect(results.verdict).toBe('conformant');
    expect(tested(results)).toEqual(['GetArticles', 'GetArticlesFeed', 'GetCurrentUser', 'GetTags']);
    expect(errors(results)).toEqual([]);
    // One registration (with the given password, a drawn name and address), no login.
    expect(server.requests.register).toBe(1);
    expect(server.users[0]!.password).toBe(password);
    expect(server.users[0]!.email).toMatch(/^conf[0-9a-f]+@example\.com$/);
    // The authenticated operations were answered 200 to the token; the auth cases name what they send.
    const current = results.operations.find((o) => o.operationId === 'GetCurrentUser')!;
    expect(current.outcome).toBe('passed');
    const names = JSON.stringify(results);
    expect(names).toContain('auth: valid Token credential truncated');
    expect(names).not.toContain('auth: empty bearer token');
    // GET /user answers the caller's token by design: nothing of it (nor the password) reaches a report.
    expect(secretLeaks(run, [...server.issued, password])).toEqual([]);
  });

  test.each(['2'])('seed %s: a login with the given credentials gives the token as well', async (seed) => {
    const s = (await startConduitServer({})) as Server & { register(user: object): void };
    try {
      s.register({ username: 'jake', email: 'jake@jake.jake', password: 'jakejake-secret' });
      const run = await runCli(['--spec', SPEC!, '--base-url', s.baseUrl, '--seed', seed, '--include', 'GetCurrentUser', '--auth-from', 'Login', '--auth-from-body', '{"user":{"email":"jake@jake.jake","password":"jakejake-secret"}}']);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(s.requests.login).toBe(1);
      expect(run.results!.operations[0]).toMatchObject({ operationId: 'GetCurrentUser', outcome: 'passed' });
      expect(secretLeaks(run, [...s.issued, 'jakejake-secret'])).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test('a credential that cannot be obtained is a configuration problem: one line, exit 2, no verdict', async () => {
    const s = (await startConduitServer({})) as Server;
    try {
      const wrong = await runCli(['--spec', SPEC!, '--base-url', s.baseUrl, '--auth-from', 'Login', '--auth-from-body', '{"user":{"email":"nobody@example.com","password":"not-the-one-1"}}'], { noOut: true });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
      expect(wrong.stderr).toMatch(/--auth-from: POST \/users\/login answered 401; check the body it is sent/);
      expect(wrong.stderr).not.toContain('not-the-one-1');
      const unknown = await runCli(['--spec', SPEC!, '--base-url', s.baseUrl, '--auth-from', 'POST /sessions'], { noOut: true });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/--auth-from names no operation of the contract: "POST \/sessions".*"POST \/users\/login"/);
      const notJson = await runCli(['--spec', SPEC!, '--base-url', s.baseUrl, '--auth-from', 'CreateUser', '--auth-from-body', '{user:'], { noOut: true });
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toMatch(/--auth-from-body is not JSON/);
    } finally {
      await s.close();
    }
  });

  test.each(['3'])('seed %s: a rename of the current user renews the token; later cases use the new one and nothing is blamed on the service', async (seed) => {
    const { run, server } = await runAgainst({}, seed, ['--auth-from', 'POST /users', '--include', `${INCLUDE},UpdateCurrentUser`]);
    const results = run.results!;
    // The run's own PUT /user renamed the user: more than one token was issued to it.
    expect(server.issued.length, run.stdout).toBeGreaterThan(1);
    // No call that carried the run's credential was refused (no 401 to the run's own credential, no refused valid
    // request blamed on a variation), and the later cases of the authenticated operations passed.
    expect(errors(results).filter((e) => /credential-recognised|positive-data-accepted|auth-enforced/.test(e))).toEqual([]);
    for (const id of AUTHENTICATED) expect(results.operations.find((o) => o.operationId === id)!.outcome, id).toBe('passed');
    expect(secretLeaks(run, server.issued)).toEqual([]);
  });

  test.each(SEEDS)('seed %s: an operation that documents only 401 and answers 403 (or 404) to a broken token is found, on that operation', async (seed) => {
    for (const fault of ['feed-403', 'feed-404']) {
      const { run } = await runAgainst({ fault }, seed, ['--auth-from', 'POST /users', '--include', INCLUDE]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(errors(run.results!), fault).toEqual(['GetArticlesFeed: status-code-conformance']);
      const finding = allFindings(run.results!).find((f) => f.check === 'status-code-conformance')!;
      expect(finding.message).toMatch(fault === 'feed-403' ? /Status 403 is not documented for GetArticlesFeed/ : /Status 404 is not documented/);
    }
  });

  test.each(SEEDS)('seed %s: a refusal names its real cause: the answer\'s own words, and no variation where the request without it was refused too', async (seed) => {
    const { run } = await runAgainst({ fault: 'feed-422' }, seed, ['--auth-from', 'POST /users', '--include', INCLUDE]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(errors(run.results!)).toEqual(['GetArticlesFeed: positive-data-accepted']);
    const refusals = allFindings(run.results!).filter((f) => f.check === 'positive-data-accepted');
    expect(refusals.length).toBeGreaterThan(0);
    for (const f of refusals) {
      expect(f.message).toContain('The answer says: "feed is closed"');
      // The request without any variation was refused as well: no variation is named as what was refused.
      expect(f.varied, f.message).toBeUndefined();
      expect(f.message).not.toMatch(/rejected with 422 \(/);
    }
  });

  test('a password the server echoes in the current user\'s record is masked in every report', async () => {
    const password = 'Pw-echoed-by-the-server-77';
    const { run, server } = await runAgainst({ fault: 'echo-password' }, '1', ['--auth-from', 'POST /users', '--auth-from-body', JSON.stringify({ user: { password } }), '--include', 'GetCurrentUser', '--keep-passed-exchanges']);
    expect(server.users[0]!.password).toBe(password);
    // The record with the password was answered and kept (the GET /user case), the password replaced in it.
    expect(JSON.stringify(run.results)).toContain('[secret]');
    expect(secretLeaks(run, [...server.issued, password])).toEqual([]);
  });

  test('a second identity registers the same way (its token from the API, kept out of every report)', async () => {
    const { run, server } = await runAgainst({}, '1', ['--auth-from', 'POST /users', '--include', 'GetCurrentUser', '--identity', 'bob={"from":"POST /users"}']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // Two registrations, each with its own drawn name and address (a second one with the same would be refused).
    expect(server.requests.register).toBe(2);
    expect(new Set(server.users.map((u) => u.username)).size).toBe(2);
    expect(secretLeaks(run, server.issued)).toEqual([]);
  });
});
