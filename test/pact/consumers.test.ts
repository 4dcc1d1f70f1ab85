/**
 * The consumer pact tests (suites/pact/consumers) run here as part of npm test: they are run with their own
 * vitest config, writing into a temporary directory, and what they write must equal the committed pacts in
 * contract/pacts (so a consumer test changed without regenerating its published pact fails here).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { COMMITTED_PACTS, readPact, REPO_ROOT, tempDir, type PactJson } from './support.ts';

const EXPECTED = [
  { file: 'onboarding-portal-customer-service.json', consumer: 'onboarding-portal', provider: 'customer-service', interactions: 10 },
  {
    file: 'trade-finance-back-office-foreign-trade-service.json',
    consumer: 'trade-finance-back-office',
    provider: 'foreign-trade-service',
    interactions: 3,
  },
];

function runConsumerTests(outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'suites/pact/vitest.config.ts'],
      { cwd: REPO_ROOT, env: { ...process.env, PACT_OUTPUT_DIR: outputDir, PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' } },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

const descriptions = (pact: PactJson) => pact.interactions.map((i) => String(i['description'])).sort();

describe('consumer pact tests', () => {
  let out: { dir: string; remove: () => Promise<void> };
  let run: { code: number | null; output: string };

  beforeAll(async () => {
    out = await tempDir('consumer-pacts');
    run = await runConsumerTests(out.dir);
  });
  afterAll(async () => out.remove());

  test('pass', () => {
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/Tests\s+13 passed/);
  });

  test.each(EXPECTED)('write $file with $interactions interactions', async (e) => {
    const pact = await readPact(path.join(out.dir, e.file));
    expect(pact.consumer.name).toBe(e.consumer);
    expect(pact.provider.name).toBe(e.provider);
    expect(pact.interactions).toHaveLength(e.interactions);
  });

  test.each(EXPECTED)('the committed contract/pacts/$file is what the consumer tests write', async (e) => {
    const written = await readPact(path.join(out.dir, e.file));
    const committed = await readPact(path.join(COMMITTED_PACTS, e.file));
    const hint = 'regenerate with: npx vitest run --config suites/pact/vitest.config.ts';
    expect(descriptions(committed), hint).toEqual(descriptions(written));
    expect(committed.interactions, hint).toEqual(written.interactions);
  });
});
