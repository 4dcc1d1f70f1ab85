/**
 * A run against an earlier run (the baseline): which failures are new, which are fixed, which are unchanged.
 * A failure is identified by service, operation, case and check (the case names are stable across runs with
 * the same seed and contract), so a failure that moved to another message is still the same failure.
 * Failures of the tool or the network (errored cases) are not compared: they say nothing about the
 * deployment. Pure: results in, a comparison out; the CLI reads the file and sets the exit code.
 */
import type { BaselineComparison, BaselineEntry, RunResults } from '../model.ts';

export type { BaselineComparison, BaselineEntry };
import { failureGroups } from './failures.ts';

type Comparable = Pick<RunResults, 'operations' | 'failOn'> & Partial<Pick<RunResults, 'pact' | 'failOnUntested'>>;

/** Every failure of a run that a baseline can compare, one entry per key, in report order. */
export function failureEntries(results: Comparable): BaselineEntry[] {
  const seen = new Map<string, BaselineEntry>();
  for (const group of failureGroups(results)) {
    if (group.reason === 'errored') continue;
    for (const row of group.rows) {
      const key = failureKey(row.service, row.operationId, row.caseName, group.reason);
      if (!seen.has(key)) seen.set(key, { key, operationId: row.operationId, caseName: row.caseName, check: group.reason, message: row.why });
    }
  }
  // Under --fail-on untested an untested operation fails the run: compare it too.
  if (results.failOnUntested) {
    for (const op of results.operations) {
      if (op.outcome !== 'untested') continue;
      const key = failureKey(op.service, op.operationId, '(operation)', 'untested');
      if (!seen.has(key)) seen.set(key, { key, operationId: op.operationId, caseName: '(operation)', check: 'untested', message: op.reason ?? 'untested' });
    }
  }
  return [...seen.values()];
}

export function failureKey(service: string, operationId: string, caseName: string, check: string): string {
  return `${service} ${operationId} › ${caseName} › ${check}`;
}

/** What is new, fixed and unchanged in `current` against `baseline`. */
export function compareWithBaseline(current: Comparable, baseline: Comparable & Pick<RunResults, 'startedAt'>, file: string): BaselineComparison {
  const now = failureEntries(current);
  const before = failureEntries(baseline);
  const beforeKeys = new Set(before.map((e) => e.key));
  const nowKeys = new Set(now.map((e) => e.key));
  return {
    file,
    startedAt: baseline.startedAt,
    new: now.filter((e) => !beforeKeys.has(e.key)),
    fixed: before.filter((e) => !nowKeys.has(e.key)),
    unchanged: now.filter((e) => beforeKeys.has(e.key)),
  };
}

/**
 * The exit code of a run compared with a baseline, when the comparison decides it: a not-conformant run
 * with nothing new passes the gate (0) unless a waiver expired (1) or an operation errored (2, the run
 * cannot vouch for it); anything new fails it (1). Undefined when the run's own verdict decides.
 */
export function baselineExitCode(results: Pick<RunResults, 'verdict' | 'expiredWaivers' | 'counts'>, comparison: BaselineComparison | undefined): 0 | 1 | 2 | undefined {
  if (!comparison || results.verdict !== 'not-conformant') return undefined;
  if (comparison.new.length > 0 || results.expiredWaivers.length > 0) return 1;
  if ((results.counts.errored ?? 0) > 0) return 2;
  return 0;
}

/** One line for the console and the CLI's closing message. */
export function baselineLine(comparison: BaselineComparison): string {
  return `Against the baseline (${comparison.file}): ${comparison.new.length} new · ${comparison.fixed.length} fixed · ${comparison.unchanged.length} unchanged`;
}

/** The console lines: the counts, then what is new (it fails the gate) and what is fixed. */
export function baselineSummary(comparison: BaselineComparison, c: { bold: (s: string) => string; red: (s: string) => string; green: (s: string) => string }): string[] {
  const lines = [c.bold(baselineLine(comparison))];
  const list = (entries: BaselineEntry[], label: string, paint: (s: string) => string) => {
    for (const e of entries.slice(0, 20)) lines.push(`  ${paint(label)}  ${e.operationId} › ${e.caseName} › ${e.check}: ${e.message}`);
    if (entries.length > 20) lines.push(`  … ${entries.length - 20} more`);
  };
  list(comparison.new, 'new  ', c.red);
  list(comparison.fixed, 'fixed', c.green);
  return lines;
}
