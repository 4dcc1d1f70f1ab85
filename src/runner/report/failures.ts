/**
 * What failed, grouped by reason: the view a person reads first. Pure: results in, groups out. Each group is
 * one reason (a check id, or "the tool or the network" for errored cases), each row one case of one
 * operation with one line of why, and, where the finding says, what was expected and what came instead.
 */
import { atPointer } from '../checks/types.ts';
import type { CaseResult, Finding, OperationResult, RunResults } from '../model.ts';
import { blockingFindings } from './outcomes.ts';

export interface FailureRow {
  operationId: string;
  service: string;
  method: string;
  path: string;
  caseName: string;
  /** One line: what is wrong. */
  why: string;
  /** Where in the response (a JSON pointer), when the finding names one. */
  at?: string;
  /** What the contract expects there, as one short line of JSON or text. */
  expected?: string;
  /** What came instead, as one short line. */
  actual?: string;
}

export interface FailureGroup {
  /** A check id, or "errored" / "failed" for cases that failed without a finding. */
  reason: string;
  /** A short heading for the reason. */
  title: string;
  rows: FailureRow[];
}

const MAX_LINE = 160;

/** A value as one short line: strings as they are, other values as compact JSON, cut with an ellipsis. */
export function oneLine(value: unknown, asJson = false): string {
  let text: string;
  if (typeof value === 'string' && !asJson) text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  text = text.replace(/\s*\n\s*/g, ' ');
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/** Expected and actual of a finding, narrowed to the first schema error when there is one. */
export function findingEvidence(f: Finding): Pick<FailureRow, 'at' | 'expected' | 'actual'> {
  const out: Pick<FailureRow, 'at' | 'expected' | 'actual'> = {};
  const first = f.schemaErrors?.[0];
  if (first) {
    out.at = first.instancePath || '(root)';
    const expected = first.expected ?? f.expected;
    if (expected !== undefined) out.expected = oneLine(expected);
    if (f.actual !== undefined && typeof f.actual === 'object') {
      const value = first.instancePath ? atPointer(f.actual, first.instancePath) : f.actual;
      // As JSON: "1" (a string) and 1 (a number) must look different next to an expected type.
      if (value !== undefined) out.actual = oneLine(value, true);
    }
    return out;
  }
  if (f.expected !== undefined) out.expected = oneLine(f.expected);
  if (f.actual !== undefined) out.actual = oneLine(f.actual);
  return out;
}

/** Case outcomes that are not failures. */
const NOT_FAILURES = new Set<string>(['passed', 'skipped', 'untested', 'not-described']);

const TITLES: Record<string, string> = {
  errored: 'The tool or the network failed (not the service’s fault)',
  failed: 'Failed without a finding (a scenario assertion)',
  missing: 'Missing',
  flaky: 'Flaky (identical calls disagreed)',
  pact: 'Pact interactions that failed',
};

function rowsOf(op: OperationResult, c: CaseResult, failOn: RunResults['failOn']): Array<[string, FailureRow]> {
  const base = { operationId: op.operationId, service: op.service, method: op.method ?? '', path: op.path ?? '', caseName: c.name };
  const blocking = blockingFindings(c, failOn);
  if (blocking.length > 0) {
    return blocking.map((f) => [f.check, { ...base, why: firstLine(f.message), ...findingEvidence(f) }]);
  }
  if (c.outcome === 'errored') return [['errored', { ...base, why: firstLine(c.errorMessage ?? 'no response') }]];
  // Any other outcome that is not a pass (failed or missing without a finding, flaky, ...) is its own reason.
  if (!NOT_FAILURES.has(c.outcome)) return [[c.outcome, { ...base, why: firstLine(c.errorMessage ?? c.skipReason ?? c.outcome) }]];
  return [];
}

/**
 * Failures grouped by reason: the deployment's failures first, biggest group first (then by reason), and
 * the tool's or network's errors last. Rows keep the canonical order of operations and cases. Waived findings and warnings that do not fail the run are left out.
 */
export function failureGroups(results: Pick<RunResults, 'operations' | 'failOn'> & Partial<Pick<RunResults, 'pact'>>): FailureGroup[] {
  const groups = new Map<string, FailureRow[]>();
  for (const op of results.operations) {
    for (const c of op.cases) {
      for (const [reason, row] of rowsOf(op, c, results.failOn)) {
        const rows = groups.get(reason) ?? [];
        rows.push(row);
        groups.set(reason, rows);
      }
    }
  }
  for (const i of results.pact?.interactions ?? []) {
    if (i.outcome !== 'failed' && i.outcome !== 'errored') continue;
    const first = i.mismatches[0];
    const row: FailureRow = { operationId: i.operationId ?? i.consumer, service: 'pact', method: '', path: '', caseName: `${i.consumer} › ${i.description}`, why: firstLine(first?.message ?? i.outcome) };
    if (first?.location) row.at = first.location;
    const reason = i.outcome === 'failed' ? 'pact' : 'errored';
    const list = groups.get(reason);
    if (list) list.push(row);
    else groups.set(reason, [row]);
  }
  return [...groups]
    .map(([reason, rows]) => ({ reason, title: TITLES[reason] ?? reason, rows }))
    .sort(
      (a, b) =>
        Number(a.reason === 'errored') - Number(b.reason === 'errored') ||
        b.rows.length - a.rows.length ||
        (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0),
    );
}
