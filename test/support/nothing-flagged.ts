/**
 * What a run against a correct server must show, all of it: no error finding, the verdict conformant, exit 0, and
 * every operation of the contract tested and passed (not untested, skipped or errored). A run whose cases all
 * errored, or whose operations never ran, flags nothing and still fails here.
 */
import { expect } from 'vitest';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, requireResults, summary, type CliRun } from './runs.ts';

/** Asserts the run flagged nothing and tested everything; `operations`: the operationIds it must have tested, exactly. */
export function expectNothingFlagged(run: CliRun, label = '', operations?: string[]): RunResults {
  const results = requireResults(run);
  const errors = allFindings(results).filter((f) => f.severity === 'error').map((f) => `${f.operationId} ${f.check}: ${f.message}`);
  expect(errors, label).toEqual([]);
  expect(results.verdict, `${label}\n${summary(results).join('\n')}`).toBe('conformant');
  expect(run.code, `${label}\n${run.stderr}`).toBe(0);
  const described = results.operations.filter((o) => o.method !== null && o.group !== 'scenarios');
  expect(described.length, label).toBeGreaterThan(0);
  expect(described.filter((o) => o.outcome !== 'passed').map((o) => `${o.operationId}: ${o.outcome}`), label).toEqual([]);
  if (operations) expect(described.map((o) => o.operationId).sort(), label).toEqual([...operations].sort());
  return results;
}
