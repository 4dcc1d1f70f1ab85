/**
 * `conformance compat` as a gate: exit 0 with nothing breaking, 1 on a breaking change (or a warning with
 * --fail-on warning, or an expired ignore entry), 2 when it cannot run (one line, no stack trace); the ignore file,
 * the baseline, the consumers of the pacts, git-ref bases, and the Customer pack's published version label.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { removeTemps, ROOT, runCli, tempDir } from '../support/runs.ts';
import type { Compatibility } from '../../src/runner/compat/types.ts';

afterAll(removeTemps);

const BASE = join(ROOT, 'contract/customer-service.openapi.yaml');

async function revision(change: (doc: any) => void): Promise<string> {
  const doc = parse(await readFile(BASE, 'utf8'));
  change(doc);
  const file = join(await tempDir('compat-cli-'), 'customer-service.openapi.yaml');
  await writeFile(file, stringify(doc));
  return file;
}

const dropCacheKeys = (doc: any) => delete doc.paths['/caches/keys'];

async function compat(args: string[]) {
  const run = await runCli(['compat', ...args], { killAfterMs: 60_000 });
  const text = await readFile(join(run.out, 'compatibility.json'), 'utf8').catch(() => undefined);
  return { run, compat: text ? (JSON.parse(text) as { compatibility: Compatibility }).compatibility : undefined };
}

describe('conformance compat', { timeout: 120_000 }, () => {
  test("the Customer pack's published version with no other input: compatible, not proven, exit 0", async () => {
    const { run, compat: c } = await compat(['--base', 'da1dea94286d']);
    expect(run.code, run.stderr).toBe(0);
    expect(c).toMatchObject({ breaking: false, proven: false, changes: [], base: { version: 'da1dea94286d' } });
    expect(run.stdout).toMatch(/COMPATIBLE .*not proven: no deployment was asked/);
  });

  test('a breaking change: exit 1, the change on its operation, a JUnit failure, the consumers whose pacts touch it', async () => {
    const rev = await revision((doc) => doc.components.schemas.AddressTypeCreateRequest.required.push('country'));
    const { run, compat: c } = await compat(['--base', BASE, '--spec', rev, '--pact', join(ROOT, 'contract/pacts')]);
    expect(run.code, run.stderr).toBe(1);
    const breaking = c!.changes.filter((x) => x.level === 'breaking');
    expect(breaking.map((x) => [x.rule, x.operation, x.consumers])).toEqual([['request-property-became-required', 'POST /address-types', ['onboarding-portal']]]);
    expect(breaking[0]!.base).toBe('/components/schemas/AddressTypeCreateRequest/properties/country');
    expect(await readFile(join(run.out, 'compatibility-junit.xml'), 'utf8')).toMatch(/<failure type="request-property-became-required"/);
  });

  test('the ignore file: a live entry accepts the change (exit 0), an expired one fails the gate, a broken one is exit 2', async () => {
    const rev = await revision(dropCacheKeys);
    const dir = await tempDir('compat-ignore-');
    const live = join(dir, 'live.yaml');
    await writeFile(live, stringify([{ rule: 'api-path-removed-without-deprecation', operation: 'GET /caches/keys', reason: 'CACHE-12: nobody reads the keys', expires: '2999-01-01' }]));
    const accepted = await compat(['--base', BASE, '--spec', rev, '--ignore', live]);
    expect(accepted.run.code, accepted.run.stderr).toBe(0);
    expect(accepted.compat!.changes[0]!.ignored).toEqual({ reason: 'CACHE-12: nobody reads the keys', expires: '2999-01-01' });
    const expired = join(dir, 'expired.yaml');
    await writeFile(expired, stringify([{ fingerprint: accepted.compat!.changes[0]!.fingerprint, reason: 'old', expires: '2001-01-01' }]));
    const stale = await compat(['--base', BASE, '--spec', rev, '--ignore', expired]);
    expect(stale.run.code).toBe(1);
    expect(stale.compat!.expiredIgnores).toHaveLength(1);
    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, stringify([{ rule: 'x', expires: '2999-01-01' }]));
    const bad = await compat(['--base', BASE, '--spec', rev, '--ignore', broken]);
    expect(bad.run.code).toBe(2);
    expect(bad.run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/broken\.yaml: entry 1: a reason is required/)]);
  });

  test('the baseline: changes already in it do not fail the gate; a new one does', async () => {
    const rev = await revision(dropCacheKeys);
    const first = await compat(['--base', BASE, '--spec', rev]);
    expect(first.run.code).toBe(1);
    const known = await compat(['--base', BASE, '--spec', rev, '--baseline', join(first.run.out, 'compatibility.json')]);
    expect(known.run.code, known.run.stderr).toBe(0);
    const rev2 = await revision((doc) => {
      dropCacheKeys(doc);
      doc.components.schemas.AddressTypeCreateRequest.required.push('country');
    });
    const more = await compat(['--base', BASE, '--spec', rev2, '--baseline', join(first.run.out, 'compatibility.json')]);
    expect(more.run.code).toBe(1);
    expect(more.compat!.changes.filter((c) => c.level === 'breaking' && !c.ignored).map((c) => c.rule)).toEqual(['request-property-became-required']);
  });

  test('--fail-on warning: a warning alone fails', async () => {
    const rev = await revision((doc) => (doc.paths['/caches/keys'].get.deprecated = true));
    expect((await compat(['--base', BASE, '--spec', rev])).run.code).toBe(0);
    const strict = await compat(['--base', BASE, '--spec', rev, '--fail-on', 'warning']);
    expect(strict.run.code).toBe(1);
    expect(strict.compat!.changes.map((c) => [c.rule, c.level])).toEqual([['endpoint-deprecated', 'warning']]);
  });

  test('a base read from git (git-ref:<ref>:<path>), and bases that cannot be read: exit 2, one line', async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const fromGit = await compat(['--base', `git-ref:${head}:contract/customer-service.openapi.yaml`, '--spec', BASE]);
    expect(fromGit.run.code, fromGit.run.stderr).toBe(0);
    for (const base of ['git-ref:no-such-ref:contract/customer-service.openapi.yaml', 'no-such-label', join(ROOT, 'nope.yaml')]) {
      const { run } = await compat(['--base', base, '--spec', BASE]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
