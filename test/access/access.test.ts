/**
 * Two identities (--identity): what one caller may do with another's records (object-access-across-identities)
 * and with operations its scopes lack (function-access-without-scope), on a multi-user server of its own
 * (test/access/server.mjs, described by access.openapi.yaml: documents owned per identity, shared tags, OAuth2
 * scopes). The correct variants are conformant, each faulty one is found on the right operation by the right
 * check and nothing else, under three seeds; the credentials never reach a report.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { identitiesFromEnv, parseIdentity } from '../../src/runner/execute/identities.ts';
import { ROOT, allFindings, removeTemps, runCli, tempDir } from '../support/runs.ts';
// @ts-expect-error: the server is plain JavaScript
import { SCOPES, TOKENS, startAccessServer } from './server.mjs';

const SPEC = join(ROOT, 'test/access/access.openapi.yaml');
const SEEDS = ['1', '2', '3'];
const ACCESS_CHECKS = new Set(['object-access-across-identities', 'function-access-without-scope']);

afterAll(removeTemps);

const identities = {
  CONFORMANCE_TOKEN: TOKENS.alice as string,
  CONFORMANCE_IDENTITY_BOB: TOKENS.bob as string,
  CONFORMANCE_IDENTITY_READER: JSON.stringify({ token: TOKENS.reader, scopes: SCOPES.reader }),
};

async function runAgainst(server: { fault?: string | string[]; denial?: number }, seed: string, env: Record<string, string> = identities, extra: string[] = []) {
  const s = await startAccessServer(server);
  try {
    return await runCli(['--spec', SPEC, '--base-url', s.baseUrl, '--seed', seed, ...extra], { env });
  } finally {
    await s.close();
  }
}

/** "operation: check severity" of every finding of the access checks. */
function accessFindings(results: RunResults): string[] {
  return [...new Set(allFindings(results).filter((f) => ACCESS_CHECKS.has(f.check)).map((f) => `${f.operationId}: ${f.check} ${f.severity}`))].sort();
}

/** "operation: check" of every error finding. */
function errors(results: RunResults): string[] {
  return [...new Set(allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId}: ${f.check}`))].sort();
}

describe('identities', () => {
  test('a credential is a token or a JSON object; CONFORMANCE_IDENTITY_<NAME> names one, with _SCOPES beside it', () => {
    expect(parseIdentity('bob', 'tok-1')).toEqual({ name: 'bob', token: 'tok-1' });
    expect(parseIdentity('reader', '{"token":"t","scopes":["a:read"],"roles":"x y"}')).toEqual({ name: 'reader', token: 't', scopes: ['a:read'], roles: ['x', 'y'] });
    expect(() => parseIdentity('9x', 't')).toThrow(/must start with a letter/);
    expect(() => parseIdentity('bob', '{"tokn":"t"}')).toThrow(/unknown key tokn/);
    expect(() => parseIdentity('bob', '{"scopes":["a"]}')).toThrow(/no credential/);
    expect(identitiesFromEnv({ CONFORMANCE_IDENTITY_BOB: 'b', CONFORMANCE_IDENTITY_BOB_SCOPES: 's1,s2', CONFORMANCE_TOKEN: 'x' })).toEqual([{ name: 'bob', token: 'b', scopes: ['s1', 's2'] }]);
  });

  test('the contract gives each operation its scopes and its ownership', async () => {
    const contract = await loadContract([SPEC]);
    const op = (id: string) => contract.operations.find((o) => o.operationId === id)!;
    expect(op('update-document').scopes).toEqual([['documents:write']]);
    expect(op('get-document').ownership).toBe('per-identity');
    expect(op('list-comments').ownership).toBe('per-identity');
    expect(op('get-tag').ownership).toBeUndefined();
  });

  test('a bad --identity is one line and exit 2, before any request', async () => {
    const run = await runCli(['--spec', SPEC, '--base-url', 'http://127.0.0.1:9', '--identity', 'bob'], { env: { CONFORMANCE_TOKEN: 't' }, noOut: true });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--identity takes <name>=<credential>/);
  });
});

describe.each(SEEDS)('access between identities, seed %s', (seed) => {
  // The two correct deployments run one seed each: the one whose others get 404 under seed 1, the one whose others
  // get 403 under seed 2 (the faulty deployments below run every seed; a second seed of a deployment that flags
  // nothing proves nothing the other seed does not).
  const correct: Array<[string, { denial?: number }, string]> = [
    ['others get 404', {}, '1'],
    ['others get 403, as an unknown record does', { denial: 403 }, '2'],
  ];
  test.each(correct.filter(([, , only]) => only === seed).map(([label, server]) => [label, server] as const))('a correct deployment (%s) is conformant, its access table shows who got what', async (_label, server) => {
    const run = await runAgainst(server, seed);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = run.results!;
    expect(accessFindings(results)).toEqual([]);
    // Nothing flagged, and everything tested: the verdict, and every operation passed.
    expect(results.verdict).toBe('conformant');
    expect(results.operations.filter((o) => o.outcome !== 'passed').map((o) => `${o.operationId}: ${o.outcome}`)).toEqual([]);
    expect(results.operations.length).toBeGreaterThan(0);
    const table = results.access!;
    expect(table.identities).toEqual(['default', 'bob', 'reader']);
    const row = (id: string, kind: 'object' | 'function') => table.rows.find((r) => r.operationId === id && r.kind === kind);
    // Owned records: refused to the others, served to their owner.
    for (const id of ['get-document', 'update-document', 'delete-document', 'list-comments', 'create-comment']) {
      expect(row(id, 'object'), id).toMatchObject({ owned: true, verdict: 'refused', statuses: { bob: server.denial ?? 404 } });
      expect(row(id, 'object')!.statuses['default'], id).toBeGreaterThanOrEqual(200);
      expect(row(id, 'object')!.statuses['default'], id).toBeLessThan(300);
    }
    // Tags belong to no one: another identity's success is only reported.
    expect(row('get-tag', 'object')).toMatchObject({ owned: false, verdict: 'allowed', statuses: { bob: 200, reader: 200 } });
    // The reader lacks documents:write: every write refused with 403.
    for (const id of ['create-document', 'update-document', 'delete-document', 'create-comment', 'create-tag', 'delete-tag']) {
      expect(row(id, 'function'), id).toMatchObject({ verdict: 'refused', statuses: { reader: 403 }, lacking: { scopes: [['documents:write']] } });
    }
    expect(run.stdout).toMatch(/^Access \(bob, reader beside default\): \d+ rows: 0 error, 0 warning, \d+ refused, \d+ allowed/m);
    // The HTML has the table; no report holds a credential, and a reproduction names the identity's variable.
    const html = readFileSync(join(run.out, 'index.html'), 'utf8');
    expect(html).toMatch(/<section id="access"/);
    for (const file of readdirSync(run.out)) {
      const text = readFileSync(join(run.out, file), 'utf8');
      for (const token of Object.values(TOKENS) as string[]) expect(text, file).not.toContain(token);
    }
  });

  test.each([
    // Three defects in one deployment, each on an operation of its own that leaves the others' records as they were
    // (a read, an update, a comment): each is found on its operation by its check, and no other operation fails.
    [['read-other', 'update-other', 'comment-other'], ['create-comment: object-access-across-identities', 'get-document: object-access-across-identities', 'update-document: object-access-across-identities']],
    // Alone: a delete by another identity removes the record other operations' cases use.
    [['delete-other'], ['delete-document: object-access-across-identities']],
    // Its update and delete skip the scope check too, but the reader names a record of another identity there:
    // ownership refuses it (404), so only the create shows the missing scope check.
    [['no-scope-write'], ['create-document: function-access-without-scope']],
  ])('a deployment with the %s defect(s) is found on those operations by that check, and nothing else', async (fault, expected) => {
    const run = await runAgainst({ fault }, seed);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(errors(run.results!)).toEqual(expected);
    const results = JSON.stringify(run.results);
    expect(results).toMatch(/Bearer \$CONFORMANCE_IDENTITY_(BOB|READER)/);
    for (const token of Object.values(TOKENS) as string[]) expect(results).not.toContain(token);
  });

  test('a 403 to another identity\'s record where an unknown one gets 404 is a warning: it tells the record exists', async () => {
    const run = await runAgainst({ fault: 'leak-403' }, seed);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(errors(run.results!)).toEqual([]);
    expect(run.results!.verdict).toBe('conformant');
    expect(run.results!.operations.filter((o) => o.outcome !== 'passed').map((o) => `${o.operationId}: ${o.outcome}`)).toEqual([]);
    expect(accessFindings(run.results!)).toEqual([
      'create-comment: object-access-across-identities warning',
      'delete-document: object-access-across-identities warning',
      'get-document: object-access-across-identities warning',
      'list-comments: object-access-across-identities warning',
      'update-document: object-access-across-identities warning',
    ]);
  });
});

describe('where nothing declares ownership', () => {
  test('another identity served a record is information only; the profile may declare a group owned', async () => {
    // The same contract without its x-ownership: the faulty server's 200 to bob is only reported.
    const dir = await tempDir();
    const plain = join(dir, 'plain.openapi.yaml');
    writeFileSync(plain, readFileSync(SPEC, 'utf8').replace(/^\s*x-ownership: per-identity\n/gm, ''));
    const s = await startAccessServer({ fault: 'read-other' });
    try {
      const run = await runCli(['--spec', plain, '--base-url', s.baseUrl], { env: identities });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(accessFindings(run.results!)).toEqual([]);
      expect(run.results!.access!.rows.find((r) => r.operationId === 'get-document' && r.kind === 'object')).toMatchObject({ owned: false, verdict: 'allowed', statuses: { bob: 200 } });
      // A profile that declares the group owned makes it an error again.
      const profile = join(dir, 'profile.yaml');
      writeFileSync(profile, `${readFileSync(join(ROOT, 'src/runner/schemas/generic-profile.yaml'), 'utf8')}\nownership:\n  perIdentity: [/documents]\n`);
      const owned = await runCli(['--spec', plain, '--base-url', s.baseUrl, '--profile', profile], { env: identities });
      expect(owned.code, owned.stdout + owned.stderr).toBe(1);
      expect(errors(owned.results!)).toEqual(['get-document: object-access-across-identities']);
    } finally {
      await s.close();
    }
  });

  test('roles the profile names for a group: an identity that declares others is held to them', async () => {
    const dir = await tempDir();
    const profile = join(dir, 'profile.yaml');
    writeFileSync(profile, `${readFileSync(join(ROOT, 'src/runner/schemas/generic-profile.yaml'), 'utf8')}\nroles:\n  /tags: [admin]\n`);
    // The server knows no roles: bob (roles [user]) may write tags, which the profile reserves to admin.
    const run = await runAgainst({}, '1', { ...identities, CONFORMANCE_IDENTITY_BOB_ROLES: 'user' }, ['--profile', profile]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(errors(run.results!)).toEqual(['create-tag: function-access-without-scope', 'delete-tag: function-access-without-scope', 'get-tag: function-access-without-scope']);
    expect(allFindings(run.results!).find((f) => f.operationId === 'create-tag')?.message).toMatch(/lacks the role admin/);
  });

  test('an identity whose credential the service refuses (401): its cases are skipped with why, the verdict stands', async () => {
    const run = await runAgainst({}, '1', { CONFORMANCE_TOKEN: TOKENS.alice, CONFORMANCE_IDENTITY_MALLORY: 'not-a-token-of-this-service' });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const skipped = run.results!.operations.flatMap((o) => o.cases).filter((c) => c.name === 'access: as mallory');
    expect(skipped.length).toBeGreaterThan(0);
    for (const c of skipped) expect(c.skipReason).toMatch(/identity mallory's credential was refused \(401 to /);
    const rows = run.results!.access!.rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => !(r.verdict === 'skipped' && r.statuses['mallory'] === 401))).toEqual([]);
    expect(JSON.stringify(run.results)).not.toContain('not-a-token-of-this-service');
  });

  test('without a second identity no access case runs and there is no access table', async () => {
    const run = await runAgainst({ fault: 'read-other' }, '1', { CONFORMANCE_TOKEN: TOKENS.alice });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.results!.access).toBeUndefined();
    expect(run.stdout).not.toMatch(/^Access/m);
    expect(run.results!.operations.flatMap((o) => o.cases).some((c) => c.name.startsWith('access:'))).toBe(false);
  });

  test('identities from a config file (a map of name to token or object) and --identity-scopes', async () => {
    const dir = await tempDir();
    const config = join(dir, 'conformance.config.yaml');
    writeFileSync(config, `identities:\n  bob: ${TOKENS.bob}\n  reader:\n    token: ${TOKENS.reader}\n`);
    const run = await runAgainst({ fault: 'no-scope-write' }, '1', { CONFORMANCE_TOKEN: TOKENS.alice }, ['--config', config, '--identity-scopes', 'reader=documents:read']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(errors(run.results!)).toEqual(['create-document: function-access-without-scope']);
    expect(run.results!.access!.rows.find((r) => r.operationId === 'update-document' && r.kind === 'function')).toMatchObject({ verdict: 'refused', statuses: { reader: 404 } });
  });
});
