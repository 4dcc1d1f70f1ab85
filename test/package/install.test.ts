/**
 * The package as a user gets it: `npm pack`, installed into an empty directory, run with npx: --help, and a
 * run against the embedded reference service with a team's own scenario suite passed by --suites, written
 * against the package's `customer-service-conformance/testing` entry.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { readStoredResults, ROOT } from '../support/runs.ts';

const run = promisify(execFile);
let dir: string;

function env(): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VITEST') && k !== 'NODE_ENV' && k !== 'TEST' && !k.startsWith('npm_')) out[k] = v;
  return { ...out, NO_COLOR: '1', PACT_DO_NOT_TRACK: 'true' };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'conformance-install-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, env: env() });
  const tarball = join(dir, stdout.trim().split('\n').at(-1)!);
  const app = join(dir, 'app');
  await mkdir(join(app, 'team-suites'), { recursive: true });
  await writeFile(join(app, 'package.json'), '{ "name": "a-service", "private": true }\n');
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: app, env: env(), maxBuffer: 1 << 24 });
  await writeFile(
    join(app, 'team-suites', 'team.test.ts'),
    `import { beforeAll, expect, test } from 'vitest';
import { conformanceClient, type ConformanceClient } from 'customer-service-conformance/testing';
let api: ConformanceClient;
beforeAll(async () => { api = await conformanceClient(); });
test('a team scenario creates an address type', async () => {
  const res = await api.call('create-address-type', { body: { code: 'TEAMX', name: 'Team' } });
  expect(res).toConformTo('create-address-type');
});
`,
  );
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the packed package lists no tests, reports or node_modules, and is publishable', async () => {
  const pkg = JSON.parse(await readFile(join(dir, 'app/node_modules/customer-service-conformance/package.json'), 'utf8')) as Record<string, unknown>;
  expect(pkg['private']).toBeUndefined();
  expect(pkg['bin']).toMatchObject({ 'customer-service-conformance': 'bin/conformance.mjs' });
  expect(pkg['engines']).toEqual({ node: '>=20.19' });
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: ROOT, env: env(), maxBuffer: 1 << 24 });
  const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
  expect(files).toContain('bin/conformance.mjs');
  expect(files).toContain('contract/customer-service.openapi.yaml');
  expect(files.filter((f) => /^(test|reports|node_modules|bench)\//.test(f))).toEqual([]);
});

test('npx customer-service-conformance --help works in an empty directory', async () => {
  const { stdout } = await run('npx', ['--no-install', 'customer-service-conformance', '--help'], { cwd: join(dir, 'app'), env: env() });
  expect(stdout).toContain('Usage: conformance');
  expect(stdout).toContain('Exit codes:');
});

test('npx customer-service-conformance runs against the reference service with the team suite from --suites', async () => {
  const out = join(dir, 'reports');
  const { stdout } = await run('npx', ['--no-install', 'customer-service-conformance', '--suites', 'team-suites', '--out', out, '--quiet'], {
    cwd: join(dir, 'app'),
    env: env(),
    maxBuffer: 1 << 24,
  });
  expect(stdout).toContain('Verdict: conformant');
  const results = readStoredResults(await readFile(join(out, 'results.json'), 'utf8'));
  expect(results.verdict).toBe('conformant');
  const team = results.operations.flatMap((o) => o.cases.map((c) => [o.operationId, c.name, c.outcome]));
  expect(team).toContainEqual(['create-address-type', 'scenario: a team scenario creates an address type', 'passed']);
}, 300_000);
