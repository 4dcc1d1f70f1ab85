/**
 * Tokens the API issues to the accounts a run makes up: every registration the run sends (its positive, coverage
 * and fuzzing cases of POST /users on the RealWorld-shaped server of test/credentials/conduit-server.mjs) is
 * answered with a fresh account's token in {"user": {"token": ...}}. Each is a credential that works against the
 * deployment, so no report and no console line may hold one, whichever account it belongs to. And the word before
 * the token: the contract shows `Token` only in its security scheme's description, so a server that takes the token
 * after another word is lenient (a warning), not wrong.
 */
import { afterAll, expect, test } from 'vitest';
import { allFindings, removeTemps, requireResults, runCli, secretLeaks } from '../support/runs.ts';
import { realWorldContract } from '../support/realworld.ts';
import { cannotRun } from '../support/cannot-run.ts';
// @ts-expect-error: the server is plain JavaScript
import { startConduitServer } from './conduit-server.mjs';

const SPEC = realWorldContract();

afterAll(removeTemps);


test('the tokens of the accounts a run registers are in no report, no console line and no curl line', async (ctx) => {
  if (SPEC === undefined) cannotRun(ctx.skip, 'the RealWorld contract (../shared/realworld/openapi.yml) is not beside the checkout');
  const server = (await startConduitServer({})) as { baseUrl: string; issued: string[]; requests: { register: number }; close(): Promise<void> };
  try {
    const body = JSON.stringify({ user: { password: 'Pw-issued-correct-horse-battery' } });
    const run = await runCli(['--spec', SPEC, '--base-url', server.baseUrl, '--seed', '2', '--auth-from', 'POST /users', '--include', 'CreateUser,Login,GetCurrentUser', '--keep-passed-exchanges'], {
      env: { CONFORMANCE_AUTH_FROM_BODY: body },
    });
    const results = requireResults(run);
    // The run registered many accounts (its own and those of its cases), each answered with its own token.
    expect(server.requests.register).toBeGreaterThan(5);
    expect(server.issued.length).toBeGreaterThan(5);
    const create = results.operations.find((o) => o.operationId === 'CreateUser');
    expect(create?.cases.find((c) => c.name === 'positive')?.outcome).toBe('passed');
    // The registration answers are kept as evidence, with the token masked.
    const answers = create!.cases.flatMap((c) => c.exchanges).filter((e) => e.response && e.response.status < 300 && e.response.body.includes('"token"'));
    expect(answers.length).toBeGreaterThan(0);
    for (const e of answers) expect(e.response!.body).toContain('"token":"[secret]"');
    expect(secretLeaks(run, server.issued)).toEqual([]);
  } finally {
    await server.close();
  }
});

test("a registration other cases' setup made, answered against its schema (bio null): the setup case that shows it masks the account's token", async (ctx) => {
  if (SPEC === undefined) cannotRun(ctx.skip, 'the RealWorld contract (../shared/realworld/openapi.yml) is not beside the checkout');
  const server = (await startConduitServer({ fault: 'null-bio' })) as { baseUrl: string; issued: string[]; close(): Promise<void> };
  try {
    const body = JSON.stringify({ user: { password: 'Pw-issued-correct-horse-battery' } });
    const run = await runCli(['--spec', SPEC, '--base-url', server.baseUrl, '--seed', '2', '--auth-from', 'POST /users', '--include', 'CreateUser,FollowUserByUsername,GetProfileByUsername'], {
      env: { CONFORMANCE_AUTH_FROM_BODY: body },
    });
    const results = requireResults(run);
    // The profiles' cases registered users to follow: the answers of those calls are CreateUser's setup case.
    const setup = results.operations.find((o) => o.operationId === 'CreateUser')?.cases.find((c) => c.kind === 'setup');
    expect(setup?.outcome).toBe('failed');
    expect(setup?.findings.map((f) => f.check)).toContain('response-schema-conformance');
    expect(secretLeaks(run, server.issued)).toEqual([]);
  } finally {
    await server.close();
  }
});

test('a server that takes the token after any word: the Basic-word case is accepted leniently (a warning) on each authenticated operation, the run conformant', async (ctx) => {
  if (SPEC === undefined) cannotRun(ctx.skip, 'the RealWorld contract (../shared/realworld/openapi.yml) is not beside the checkout');
  const server = (await startConduitServer({ anyWord: true })) as { baseUrl: string; close(): Promise<void> };
  try {
    const body = JSON.stringify({ user: { password: 'Pw-any-word-correct-horse-battery' } });
    const run = await runCli(['--spec', SPEC, '--base-url', server.baseUrl, '--seed', '3', '--auth-from', 'POST /users', '--include', 'GetCurrentUser,GetArticlesFeed,GetTags'], {
      env: { CONFORMANCE_AUTH_FROM_BODY: body },
    });
    const results = requireResults(run);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(results.verdict).toBe('conformant');
    const auth = allFindings(results).filter((f) => f.check === 'auth-enforced');
    expect(auth.map((f) => `${f.operationId} ${f.severity} ${f.lenient === true}`).sort()).toEqual(['GetArticlesFeed warning true', 'GetCurrentUser warning true']);
    for (const f of auth) expect(f.message).toMatch(/^A call that sent the valid credential after "Basic" in place of "Token" succeeded with 200: the contract shows "Token" only in the words of its security scheme/);
    // Every other broken credential is still refused, and each of those cases passed.
    const cases = results.operations.filter((o) => o.operationId !== 'GetTags').flatMap((o) => o.cases.filter((c) => c.kind === 'auth').map((c) => `${o.operationId} ${c.name}: ${c.outcome}`));
    expect(cases.filter((c) => !c.endsWith(': passed'))).toEqual([]);
    expect(cases.length).toBe(14);
  } finally {
    await server.close();
  }
});
