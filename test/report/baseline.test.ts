import { describe, expect, test } from 'vitest';
import type { CaseResult, Finding, OperationResult, RunResults } from '../../src/runner/model.ts';
import { baselineExitCode, compareWithBaseline, failureEntries, type BaselineComparison } from '../../src/runner/report/baseline.ts';
import { summarise } from '../../src/runner/report/outcomes.ts';
import { rawRun } from './fixtures/run-results.ts';

/** A one-operation run whose cases fail with the given checks (an empty list: the case passes). */
function run(cases: Record<string, Array<Finding['check']>>, extra: Partial<RunResults> = {}): RunResults {
  const op: OperationResult = {
    operationId: 'get-thing',
    method: 'GET',
    path: '/things/{id}',
    group: '/things',
    service: 'svc',
    outcome: 'passed',
    durationMs: 1,
    cases: Object.entries(cases).map(
      ([name, checks]): CaseResult => ({
        name,
        kind: 'positive',
        outcome: 'passed',
        durationMs: 1,
        checks: checks.map((id) => ({ id, status: 'failed' })),
        findings: checks.map((check) => ({ check, severity: 'error', operationId: 'get-thing', method: 'GET', path: '/things/{id}', message: `${check} broke` })),
        exchanges: [],
      }),
    ),
  };
  const { pact: _pact, ...base } = rawRun([op]);
  return summarise({ ...base, expiredWaivers: [], ...extra });
}

const keys = (entries: Array<{ key: string }>): string[] => entries.map((e) => e.key.replace('svc get-thing › ', ''));

describe('compareWithBaseline', () => {
  const table: Array<[string, Record<string, Array<Finding['check']>>, Record<string, Array<Finding['check']>>, { new: string[]; fixed: string[]; unchanged: string[] }]> = [
    ['same failures: all unchanged', { positive: ['response-schema-conformance'] }, { positive: ['response-schema-conformance'] }, { new: [], fixed: [], unchanged: ['positive › response-schema-conformance'] }],
    ['a new check fails in a known case', { positive: ['response-schema-conformance'] }, { positive: ['response-schema-conformance', 'status-code-conformance'] }, { new: ['positive › status-code-conformance'], fixed: [], unchanged: ['positive › response-schema-conformance'] }],
    ['the same check fails in another case: new', { positive: ['not-a-server-error'] }, { 'auth: no token': ['not-a-server-error'], positive: [] }, { new: ['auth: no token › not-a-server-error'], fixed: ['positive › not-a-server-error'], unchanged: [] }],
    ['everything fixed', { positive: ['status-code-conformance'], 'negative: x': ['negative-data-rejected'] }, { positive: [], 'negative: x': [] }, { new: [], fixed: ['negative: x › negative-data-rejected', 'positive › status-code-conformance'], unchanged: [] }],
    ['a clean baseline: every failure is new', { positive: [] }, { positive: ['create-shape'] }, { new: ['positive › create-shape'], fixed: [], unchanged: [] }],
    ['nothing failed either time', { positive: [] }, { positive: [] }, { new: [], fixed: [], unchanged: [] }],
  ];
  test.each(table)('%s', (_name, before, now, want) => {
    const comparison = compareWithBaseline(run(now), run(before), 'old/results.json');
    expect({ new: keys(comparison.new), fixed: keys(comparison.fixed), unchanged: keys(comparison.unchanged) }).toEqual(want);
    expect(comparison.file).toBe('old/results.json');
  });

  test('a failure whose message changed is still the same failure; the entry carries the current message', () => {
    const before = run({ positive: ['response-schema-conformance'] });
    const now = run({ positive: ['response-schema-conformance'] });
    now.operations[0]!.cases[0]!.findings[0]!.message = 'a different message';
    const comparison = compareWithBaseline(now, before, 'b.json');
    expect(comparison.unchanged.map((e) => e.message)).toEqual(['a different message']);
  });

  test('errored cases are not compared (the tool or the network, not the deployment)', () => {
    const errored = run({ positive: [] });
    const c = errored.operations[0]!.cases[0]!;
    errored.operations[0]!.cases[0] = { ...c, outcome: 'errored', errorMessage: 'connection reset' };
    expect(failureEntries(summarise(errored))).toEqual([]);
  });

  test('under --fail-on untested, untested operations are compared too', () => {
    const r = run({ positive: [] });
    const op = { ...r.operations[0]!, outcome: 'untested' as const, reason: 'irreversible side effects' };
    expect(failureEntries({ ...r, operations: [op], failOnUntested: true }).map((e) => e.key)).toEqual(['svc get-thing › (operation) › untested']);
    expect(failureEntries({ ...r, operations: [op] })).toEqual([]);
  });

  test('failed pact interactions are compared by consumer and description', () => {
    const withPact = summarise({ ...rawRun([]), expiredWaivers: [] });
    expect(failureEntries(withPact).map((e) => e.key)).toEqual(['pact create-address-type › mobile-app › create an address type › pact']);
  });
});

describe('baselineExitCode', () => {
  const comparison = (n: number): BaselineComparison => ({
    file: 'b.json',
    startedAt: '2025-01-01T00:00:00Z',
    new: Array.from({ length: n }, (_, i) => ({ key: `k${i}`, operationId: 'o', caseName: 'c', check: 'x', message: 'm' })),
    fixed: [],
    unchanged: [{ key: 'u', operationId: 'o', caseName: 'c', check: 'y', message: 'm' }],
  });
  const counts = { passed: 1, failed: 1, missing: 0, flaky: 0, errored: 0, untested: 0, skipped: 0, 'not-described': 0 };
  const table: Array<[string, Parameters<typeof baselineExitCode>[0], BaselineComparison | undefined, 0 | 1 | 2 | undefined]> = [
    ['no baseline: the verdict decides', { verdict: 'not-conformant', expiredWaivers: [], counts }, undefined, undefined],
    ['conformant: the verdict decides', { verdict: 'conformant', expiredWaivers: [], counts }, comparison(0), undefined],
    ['incomplete: the verdict decides', { verdict: 'incomplete', expiredWaivers: [], counts }, comparison(0), undefined],
    ['known failures only: passes', { verdict: 'not-conformant', expiredWaivers: [], counts }, comparison(0), 0],
    ['a new failure: fails', { verdict: 'not-conformant', expiredWaivers: [], counts }, comparison(1), 1],
    ['an expired waiver still fails', { verdict: 'not-conformant', expiredWaivers: [{ operationId: 'o', check: 'x', reason: 'r', expires: '2020-01-01' }], counts }, comparison(0), 1],
    ['an errored operation: cannot vouch', { verdict: 'not-conformant', expiredWaivers: [], counts: { ...counts, errored: 1 } }, comparison(0), 2],
  ];
  test.each(table)('%s', (_name, results, given, want) => {
    expect(baselineExitCode(results, given)).toBe(want);
  });
});
