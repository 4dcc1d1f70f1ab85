/**
 * A Swagger 2.0 description with the Customer pack's shape (basePath /customer-service): the pack applies as it
 * does to its own 3.1 contract (its catalog counts the service's operations, its scenario suites are listed, its
 * profile judges), the reference deployment passes, and a deployment that lets a call without credentials through
 * fails on that operation only.
 */
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { allFindings, checkIds, operation, removeTemps, requireResults, ROOT, runCli, startVariant, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const SPEC = join(ROOT, 'test/packs/fixtures/customer-service.swagger2.yaml');
const OPERATIONS = ['create-address-type', 'update-address-type', 'delete-address-type'];

async function run(variant: Parameters<typeof startVariant>[0] = {}) {
  const started = await startVariant(variant);
  try {
    return await runCli(['--spec', SPEC, '--base-url', started.svc.customerBaseUrl, '--auth', `bearerAuth=Bearer ${TOKEN}`, '--seed', '1', '--quiet']);
  } finally {
    await started.close();
  }
}

test('the reference deployment passes; the pack applies (catalog, scenario suites) to a 2.0 description of its service', async () => {
  const cli = await run();
  const results = requireResults(cli);
  expect(cli.stderr + cli.stdout).toContain('Swagger 2.0, read as OpenAPI 3.0');
  expect(Object.fromEntries(OPERATIONS.map((id) => [id, operation(results, id).outcome]))).toEqual(Object.fromEntries(OPERATIONS.map((id) => [id, 'passed'])));
  expect(allFindings(results).filter((f) => f.severity === 'error')).toEqual([]);
  // The pack's catalog counts every operation of the service, not only the three described.
  expect(results.coverage).toMatchObject({ described: 3, tested: 3 });
  expect(results.coverage.catalogTotal).toBeGreaterThan(3);
  expect(results.operations.some((o) => o.operationId.startsWith('scenario: '))).toBe(true);
  expect(results.verdict).toBe('conformant');
  expect(cli.code).toBe(0);
});

test('a deployment that serves a delete without credentials fails that operation through auth-enforced (exit 1)', async () => {
  const cli = await run({ skipAuth: ['delete-address-type'] });
  const results = requireResults(cli);
  expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId)).toEqual(['delete-address-type']);
  expect(checkIds(operation(results, 'delete-address-type'), 'error')).toEqual(['auth-enforced']);
  expect(allFindings(results).find((f) => f.check === 'auth-enforced')?.specLocation).toMatch(/customer-service\.swagger2\.yaml#\/paths\/~1address-types~1\{id\}\/delete$/);
  expect(cli.code).toBe(1);
});
