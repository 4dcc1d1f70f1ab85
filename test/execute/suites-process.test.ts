/**
 * A large run (from 50 selected operations) runs the scenario suites first, in a process of their own that ends
 * before its cases start (execute/scenarios.ts). That process must end once it has answered, whatever the suites'
 * runtime did to it (vitest's makes process.exit throw in the process that runs the suites): the run goes on to
 * its cases, and no process is left. The Customer contract with the address-type paths copied under other names
 * (the Customer pack applies, its suites run against the embedded reference service, the copies are missing).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import yaml from 'js-yaml';
import { ROOT, removeTemps, runCli, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

test('the suites\' own process of a large run answers and ends; the run reports the suites\' cases and leaves no process', async () => {
  const spec = yaml.load(readFileSync(join(ROOT, 'contract/customer-service.openapi.yaml'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const originals = Object.entries(spec.paths).filter(([path]) => path.startsWith('/address-types'));
  for (let copy = 1; copy <= 6; copy++) {
    for (const [path, item] of originals) {
      const renamed = JSON.parse(JSON.stringify(item)) as Record<string, { operationId?: string }>;
      for (const op of Object.values(renamed)) if (op && typeof op === 'object' && op.operationId) op.operationId = `${op.operationId}-copy-${copy}`;
      spec.paths[path.replace('/address-types', `/address-types-copy-${copy}`)] = renamed;
    }
  }
  const file = join(await tempDir(), 'customer-large.openapi.yaml');
  writeFileSync(file, yaml.dump(spec));
  const run = await runCli(['--spec', file, '--spec', join(ROOT, 'contract/foreign-trade-service.openapi.yaml'), '--quiet'], { ownGroup: true, killAfterMs: 120_000 });
  expect(run.signal, run.stderr).toBeNull();
  expect(run.leftover ?? [], 'processes left').toEqual([]);
  // It ended on its own: the run did not have to stop it.
  expect(run.stderr + run.stdout).not.toContain('had not ended');
  const results = run.results!;
  expect(results.operations.length).toBeGreaterThanOrEqual(50);
  // The suites ran (in their process) and their cases are reported with the operations they exercised.
  const withScenario = results.operations.filter((o) => (o.ran ?? []).includes('scenario')).map((o) => o.operationId);
  expect(withScenario).toEqual(expect.arrayContaining(['create-address-type', 'send-forget-password-otp']));
  // The copies are not served by the reference service: missing, and the run says so (exit 1), it did not hang.
  expect(results.operations.find((o) => o.operationId === 'create-address-type-copy-1')?.outcome).toBe('missing');
  expect(run.code).toBe(1);
}, 150_000);
