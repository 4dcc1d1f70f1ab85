/**
 * The GitHub Action (action.yml, composite) and the workflow that runs it in a shard matrix with a merged
 * report: their structure. actionlint's checks of both are actionlint.test.ts, in `npm run test:apps`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { expect, test } from 'vitest';
import { ROOT } from '../support/runs.ts';

const WORKFLOW = '.github/workflows/conformance.yml';

test('the workflow runs four shards and merges them; the action runs the CLI with its inputs', () => {
  const workflow = parse(readFileSync(join(ROOT, WORKFLOW), 'utf8')) as {
    jobs: Record<string, { strategy?: { matrix: { shard: number[] } }; needs?: string; steps: Array<{ uses?: string; with?: Record<string, string> }> }>;
  };
  expect(workflow.jobs['conformance']!.strategy!.matrix.shard).toEqual([1, 2, 3, 4]);
  expect(workflow.jobs['report']!.needs).toBe('conformance');
  expect(workflow.jobs['report']!.steps.find((s) => s.uses === './')?.with?.['command']).toBe('merge');
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { runs: { using: string; steps: Array<{ run?: string }> } };
  expect(action.runs.using).toBe('composite');
  expect(action.runs.steps.map((s) => s.run ?? '').join('\n')).toContain('bin/conformance.mjs');
  // The release gate: the base contract goes to --base-contract.
  expect((action as unknown as { inputs: Record<string, unknown> }).inputs['base-contract']).toBeDefined();
  expect(action.runs.steps.map((s) => s.run ?? '').join('\n')).toContain('args+=(--base-contract "$BASE_CONTRACT")');
});
