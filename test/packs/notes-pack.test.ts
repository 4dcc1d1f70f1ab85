/**
 * A pack can be added without touching the engine: the notes API (test/packs/notes/) brings its own contract,
 * profile, pact, provider state and reference server, loaded with `--pack`. Its reference run is conformant,
 * each defect of its faulty deployments is flagged on the right operation by the right check and nothing
 * else, its pact is verified with its own provider state, and a Customer run with the pack loaded shows
 * nothing of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { ROOT, allFindings, removeTemps, runCli } from '../support/runs.ts';
// @ts-expect-error: the pack is plain JavaScript, as a pack written outside the project would be
import { startNotesServer } from './notes/server.mjs';

const PACK = join(ROOT, 'test/packs/notes/pack.mjs');
const SPEC = join(ROOT, 'test/packs/notes/notes.openapi.yaml');
const TOKEN = 'notes-pack-token-7c1e';
const NOTES_OPS = ['create-note', 'delete-note', 'get-note', 'list-notes'];

afterAll(removeTemps);

/** "operation: check" of every error finding of a run. */
function errors(results: RunResults): string[] {
  return [...new Set(allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId}: ${f.check}`))].sort();
}

describe('a second pack (the notes API)', () => {
  test('with --pack and nothing else, its reference deployment is started and its contract passes', async () => {
    const run = await runCli(['--pack', PACK]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const results = run.results!;
    expect(results.operations.map((o) => o.operationId).sort()).toEqual(NOTES_OPS);
    expect(results.operations.every((o) => o.outcome === 'passed')).toBe(true);
    expect(results.coverage.catalogTotal).toBe(4);
    // Its own profile judged it: the envelope pointer of the notes profile, not the Customer one.
    expect(run.stdout).toMatch(/CONFORMANT\s+Notes 1\.0\.0/);
    expect(run.stdout + readFileSync(join(run.out, 'results.json'), 'utf8')).not.toMatch(/customer|foreign[-_ ]?trade|ERR_PLAT|scenario/i);
  });

  test.each([
    ['list-500', ['list-notes: not-a-server-error', 'list-notes: status-code-conformance']],
    ['no-auth', ['get-note: auth-enforced']],
    ['bad-shape', ['get-note: response-schema-conformance']],
  ])('a deployment with the %s defect is flagged on that operation by that check, and nothing else', async (fault, expected) => {
    const server = await startNotesServer({ token: TOKEN, fault });
    try {
      const run = await runCli(['--pack', PACK, '--spec', SPEC, '--notes-base-url', server.baseUrl], { env: { CONFORMANCE_TOKEN: TOKEN } });
      expect(run.code, run.stderr).toBe(1);
      expect(errors(run.results!)).toEqual(expected);
    } finally {
      await server.close();
    }
  });

  test('a correct deployment of it named with its own base-URL option passes', async () => {
    const server = await startNotesServer({ token: TOKEN });
    try {
      const run = await runCli(['--pack', PACK, '--notes-base-url', server.baseUrl], { env: { CONFORMANCE_TOKEN: TOKEN } });
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(errors(run.results!)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test('its pact is verified with its own provider state, and fails against a deployment that breaks it', async () => {
    const good = await runCli(['pact', 'verify', '--pack', PACK]);
    expect(good.code, good.stdout + good.stderr).toBe(0);
    expect(good.stdout).toMatch(/2 of 2 interactions verified/);
    expect(good.stdout).toMatch(/passed\s+notes-app › a request for one note/);
    const server = await startNotesServer({ token: TOKEN, fault: 'bad-shape' });
    try {
      const bad = await runCli(['pact', 'verify', '--pack', PACK, '--notes-base-url', server.baseUrl, '--allow-irreversible'], { env: { CONFORMANCE_TOKEN: TOKEN } });
      expect(bad.code, bad.stdout + bad.stderr).toBe(1);
      expect(bad.stdout).toMatch(/failed\s+notes-app › a request for one note/);
      expect(bad.stdout).toMatch(/passed\s+notes-app › a request for every note/);
    } finally {
      await server.close();
    }
  });

  test('a Customer run with the pack loaded shows nothing of it', async () => {
    const specs = ['customer-service', 'foreign-trade-service'].flatMap((s) => ['--spec', join(ROOT, `contract/${s}.openapi.yaml`)]);
    const run = await runCli(['--pack', PACK, ...specs]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.results!.operations.map((o) => o.operationId)).toContain('get-address-type-field-list');
    expect(run.stdout + readFileSync(join(run.out, 'results.json'), 'utf8')).not.toMatch(/notes?[-_ ]?(api|note)|\bnotes\b/i);
  });
});
