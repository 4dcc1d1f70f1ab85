/**
 * The breaking changes of a contract revision proven against the reference deployment: the revision drops an
 * operation the base (the published contract) still has. A deployment that still serves it: the change is
 * reported and "still served"; a faulty variant that already dropped it: "old clients fail today".
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { removeTemps, resultsSchemaErrors, ROOT, runCli, startVariant, tempDir, type CliRun } from '../support/runs.ts';
import type { Variant } from '../../src/reference-service/index.ts';

afterAll(removeTemps);

const BASE = join(ROOT, 'contract/customer-service.openapi.yaml');
const FOREIGN = join(ROOT, 'contract/foreign-trade-service.openapi.yaml');

/** The published contract without GET /caches/keys. */
async function revisionWithoutCacheKeys(): Promise<string> {
  const doc = parse(await readFile(BASE, 'utf8')) as { paths: Record<string, unknown> };
  delete doc.paths['/caches/keys'];
  const file = join(await tempDir('compat-revision-'), 'customer-service.openapi.yaml');
  await writeFile(file, stringify(doc));
  return file;
}

/** The published contract with `country` of an address type's create made required. */
async function revisionRequiringCountry(): Promise<string> {
  const doc = parse(await readFile(BASE, 'utf8')) as { components: { schemas: Record<string, { required: string[] }> } };
  doc.components.schemas['AddressTypeCreateRequest']!.required.push('country');
  const file = join(await tempDir('compat-revision-'), 'customer-service.openapi.yaml');
  await writeFile(file, stringify(doc));
  return file;
}

/** A deployment that already holds the revision's rule: a create without `country` is refused with 400. */
const requiresCountry: Variant = {
  handlers: {
    'create-address-type': (req, next) => {
      const body = req.body as Record<string, unknown> | undefined;
      if (body && typeof body === 'object' && body['country'] === undefined) {
        return { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'country: required', details: [{ field: 'country', message: 'required' }] } } };
      }
      return next();
    },
  },
};

async function runAgainst(variant: Variant, revision: string, include = '/caches/*', seed = 1): Promise<CliRun> {
  const started = await startVariant(variant);
  try {
    const { args } = started.target('flag');
    return await runCli(['run', '--spec', revision, '--spec', FOREIGN, '--base-contract', BASE, '--include', include, '--seed', String(seed), '--quiet', ...args]);
  } finally {
    await started.close();
  }
}

function removal(run: CliRun) {
  const compat = run.results?.compatibility;
  expect(compat, run.stderr).toBeDefined();
  expect(resultsSchemaErrors(run.results)).toEqual([]);
  expect(compat!.breaking).toBe(true);
  expect(compat!.proven).toBe(true);
  const breaking = compat!.changes.filter((c) => c.level === 'breaking');
  expect(breaking.map((c) => `${c.rule} ${c.operation}`)).toEqual(['api-path-removed-without-deprecation GET /caches/keys']);
  return breaking[0]!;
}

describe('a breaking change proven against the deployment', { timeout: 300_000 }, () => {
  test('the deployment still serves the operation the revision removed: reported, still served, exit 1', async () => {
    const run = await runAgainst({}, await revisionWithoutCacheKeys());
    const change = removal(run);
    expect(change.deployment).toBe('still-served');
    expect(change.deploymentDetail).toBe('removed from the contract, still served: old clients keep working until it goes');
    expect(run.stdout).toContain('still served');
    expect(run.code).toBe(1);
    // JUnit and HTML say the same.
    expect(await readFile(join(run.out, 'junit.xml'), 'utf8')).toMatch(/<testsuite name="compatibility"[^>]*failures="1"/);
    expect(await readFile(join(run.out, 'index.html'), 'utf8')).toContain('still served: old clients keep working until it goes');
  });

  test('a faulty deployment that already dropped it: old clients fail today', async () => {
    const run = await runAgainst({ removeOperations: ['customer-get-cache-key-list'] }, await revisionWithoutCacheKeys());
    const change = removal(run);
    expect(change.deployment).toBe('fails-today');
    expect(change.deploymentDetail).toMatch(/^old clients fail today: GET \/caches\/keys is not served any more/);
    expect(run.code).toBe(1);
  });

  test.each([1, 2, 3])('a request property made required: the deployment still takes the old request, or refuses it with 400 today (seed %i)', async (seed) => {
    const revision = await revisionRequiringCountry();
    for (const [variant, deployment, detail] of [
      [{}, 'still-served', /^the deployment still honours the last release/],
      [requiresCountry, 'fails-today', /^old clients fail today: .*400/],
    ] as const) {
      const run = await runAgainst(variant, revision, '/caches/refresh', seed);
      const compat = run.results?.compatibility;
      expect(compat, run.stderr).toBeDefined();
      const breaking = compat!.changes.filter((c) => c.level === 'breaking');
      expect(breaking.map((c) => `${c.rule} ${c.operation}`)).toEqual(['request-property-became-required POST /address-types']);
      expect(breaking[0]!.deployment).toBe(deployment);
      expect(breaking[0]!.deploymentDetail).toMatch(detail);
      expect(run.code).toBe(1);
    }
  });

  test('the published contract against itself: no change, nothing to prove, the run decides the exit code', async () => {
    const run = await runAgainst({}, BASE);
    const compat = run.results?.compatibility;
    expect(compat, run.stderr).toMatchObject({ breaking: false, changes: [] });
    expect(run.results?.verdict).toBe('conformant');
    expect(run.code).toBe(0);
  });
});
