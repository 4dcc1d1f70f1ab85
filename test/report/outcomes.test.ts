import { describe, expect, test } from 'vitest';
import type { CaseKind, CaseOutcome, CaseResult, Finding, Outcome, RunResults } from '../../src/runner/model.ts';
import {
  caseOutcome,
  computeVerdict,
  countOutcomes,
  operationOutcome,
  sortOperations,
  summarise,
} from '../../src/runner/report/outcomes.ts';
import { rawRun } from './fixtures/run-results.ts';

function f(severity: Finding['severity'], extra: Partial<Finding> = {}): Finding {
  return { check: 'status-code-conformance', severity, operationId: 'op', method: 'GET', path: '/x', message: 'm', ...extra };
}

function c(outcome: CaseOutcome, findings: Finding[] = []): CaseResult {
  return { name: 'positive', kind: 'positive', outcome, durationMs: 1, checks: [], findings, exchanges: [] };
}

const waived = { reason: 'r', expires: '2099-01-01' };

describe('caseOutcome', () => {
  const table: Array<[string, { given: CaseResult; failOn: RunResults['failOn']; want: CaseOutcome }]> = [
    ['passed without findings stays passed', { given: c('passed'), failOn: 'error', want: 'passed' }],
    ['an error finding fails the case', { given: c('passed', [f('error')]), failOn: 'error', want: 'failed' }],
    ['a warning does not fail it', { given: c('failed', [f('warning')]), failOn: 'error', want: 'passed' }],
    ['a warning fails it under failOn warning', { given: c('passed', [f('warning')]), failOn: 'warning', want: 'failed' }],
    ['info never fails it', { given: c('passed', [f('info')]), failOn: 'warning', want: 'passed' }],
    ['a waived error does not fail it', { given: c('failed', [f('error', { waived })]), failOn: 'error', want: 'passed' }],
    ['a waived warning does not fail it under failOn warning', { given: c('failed', [f('warning', { waived })]), failOn: 'warning', want: 'passed' }],
    ['one unwaived error among waived ones fails it', { given: c('failed', [f('error', { waived }), f('error')]), failOn: 'error', want: 'failed' }],
    ['operation-present error makes it missing', { given: c('passed', [f('error', { check: 'operation-present' })]), failOn: 'error', want: 'missing' }],
    ['missing with a blocking finding stays missing', { given: c('missing', [f('error')]), failOn: 'error', want: 'missing' }],
    ['missing whose finding is waived passes', { given: c('missing', [f('error', { check: 'operation-present', waived })]), failOn: 'error', want: 'passed' }],
    ['failed without findings keeps the engine outcome', { given: c('failed'), failOn: 'error', want: 'failed' }],
    ['errored stays errored', { given: c('errored', [f('error')]), failOn: 'error', want: 'errored' }],
    ['skipped stays skipped', { given: c('skipped', [f('error')]), failOn: 'error', want: 'skipped' }],
  ];
  test.each(table)('%s', (_name, { given, failOn, want }) => {
    expect(caseOutcome(given, failOn)).toBe(want);
  });
});

describe('operationOutcome', () => {
  // Cases are given as [kind, outcome]; a bare outcome is a positive case.
  type C = CaseOutcome | [CaseKind, CaseOutcome];
  const table: Array<[string, { own: Outcome; cases: C[]; want: Outcome }]> = [
    ['all passed', { own: 'passed', cases: ['passed', 'passed'], want: 'passed' }],
    ['missing wins over failed', { own: 'passed', cases: ['failed', 'missing', 'errored'], want: 'missing' }],
    ['failed wins over errored', { own: 'passed', cases: ['errored', 'failed'], want: 'failed' }],
    ['failed wins over flaky', { own: 'passed', cases: ['flaky', 'failed'], want: 'failed' }],
    ['flaky wins over errored', { own: 'passed', cases: ['errored', 'flaky'], want: 'flaky' }],
    ['errored wins over skipped and passed', { own: 'passed', cases: ['skipped', 'errored', 'passed'], want: 'errored' }],
    ['all skipped: untested', { own: 'passed', cases: ['skipped', 'skipped'], want: 'untested' }],
    ['positive skipped, presence and auth passed: untested, never passed', { own: 'passed', cases: [['presence', 'passed'], ['positive', 'skipped'], ['auth', 'passed']], want: 'untested' }],
    ['positive passed, a negative skipped: passed', { own: 'failed', cases: [['positive', 'passed'], ['negative', 'skipped']], want: 'passed' }],
    ['positive skipped but an auth case failed: failed', { own: 'passed', cases: [['positive', 'skipped'], ['auth', 'failed']], want: 'failed' }],
    ['not-described stays', { own: 'not-described', cases: ['failed'], want: 'not-described' }],
    ['no cases keeps its own outcome', { own: 'skipped', cases: [], want: 'skipped' }],
  ];
  test.each(table)('%s', (_name, { own, cases, want }) => {
    const list = cases.map((c) => (Array.isArray(c) ? { kind: c[0], outcome: c[1] } : { kind: 'positive' as const, outcome: c }));
    expect(operationOutcome({ outcome: own, cases: list })).toBe(want);
  });
});

describe('computeVerdict', () => {
  const base = (): Pick<RunResults, 'operations' | 'pact' | 'expiredWaivers' | 'interrupted' | 'failOn' | 'failOnUntested' | 'stopped'> => ({
    operations: summarise(rawRun()).operations.filter((op) => op.outcome === 'passed'),
    expiredWaivers: [],
    interrupted: false,
    failOn: 'error',
  });
  const table: Array<[string, (r: ReturnType<typeof base>) => void, RunResults['verdict']]> = [
    ['all passed', () => {}, 'conformant'],
    ['a failed operation', (r) => r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'failed' }), 'not-conformant'],
    ['a missing operation', (r) => r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'missing' }), 'not-conformant'],
    ['an errored operation: the run cannot vouch for it (not blamed on the service)', (r) => r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'errored' }), 'incomplete'],
    ['an errored operation and a failed one: the failure stays found', (r) => r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'errored' }, { ...r.operations[0]!, operationId: 'y', outcome: 'failed' }), 'not-conformant'],
    ['a flaky operation fails the run like a failed one', (r) => r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'flaky' }), 'not-conformant'],
    ['an untested operation: conformant for what ran', (r) => r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'untested' }), 'conformant'],
    ['an untested operation under --fail-on untested', (r) => { r.failOnUntested = true; r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'untested' }); }, 'not-conformant'],
    ['stopped on a configuration problem, failures or not', (r) => { r.stopped = 'the deployment rejected the credentials (401 on 3 of 3 calls)'; r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'failed' }); }, 'incomplete'],
    [
      'a failed pact interaction',
      (r) => {
        r.pact = { mode: 'verify', interactions: [{ consumer: 'c', provider: 'p', pactFile: 'f', description: 'd', providerStates: [], outcome: 'failed', durationMs: 1, mismatches: [] }] };
      },
      'not-conformant',
    ],
    ['an expired waiver', (r) => r.expiredWaivers.push({ operationId: 'o', check: 'c', reason: 'r', expires: '2020-01-01' }), 'not-conformant'],
    ['interrupted', (r) => (r.interrupted = true), 'incomplete'],
    [
      'interrupted with a failure found',
      (r) => {
        r.interrupted = true;
        r.operations.push({ ...r.operations[0]!, operationId: 'x', outcome: 'failed' });
      },
      'not-conformant',
    ],
    [
      'an unwaived warning under failOn warning',
      (r) => {
        r.failOn = 'warning';
        r.operations[0]!.cases[0]!.findings.push(f('warning'));
      },
      'not-conformant',
    ],
    [
      'a waived warning under failOn warning',
      (r) => {
        r.failOn = 'warning';
        r.operations[0]!.cases[0]!.findings.push(f('warning', { waived }));
      },
      'conformant',
    ],
    ['a warning under failOn error', (r) => r.operations[0]!.cases[0]!.findings.push(f('warning')), 'conformant'],
  ];
  test.each(table)('%s -> %s', (_name, change, want) => {
    const r = structuredClone(base());
    change(r);
    expect(computeVerdict(r)).toBe(want);
  });
});

describe('summarise', () => {
  test('derives outcomes, counts, coverage.tested and the verdict of the fixture run', () => {
    const r = summarise(rawRun());
    // The operation whose every case was skipped is untested, never skipped-and-green.
    expect(r.counts).toEqual({ passed: 2, failed: 2, missing: 1, flaky: 0, errored: 1, untested: 1, skipped: 0, 'not-described': 2 });
    expect(r.coverage).toEqual({ catalogTotal: 287, described: 15, tested: 6, notDescribed: 272 });
    expect(r.verdict).toBe('not-conformant');
    // The auth case with only a warning passes; the operation fails on its positive case.
    const op = r.operations.find((o) => o.operationId === 'get-address-type-field-list');
    expect(op?.cases.map((k) => k.outcome)).toEqual(['failed', 'passed']);
  });

  test('is idempotent and does not change its input', () => {
    const raw = rawRun();
    const copy = structuredClone(raw);
    const once = summarise(raw);
    expect(raw).toEqual(copy);
    expect(summarise(once)).toEqual(once);
  });

  test('every outcome has a count, zero included', () => {
    expect(countOutcomes([])).toEqual({ passed: 0, failed: 0, missing: 0, flaky: 0, errored: 0, untested: 0, skipped: 0, 'not-described': 0 });
  });
});

describe('sortOperations', () => {
  test('orders by service, group, then operationId in code-unit order', () => {
    const ops = [
      { service: 'b', group: '/a', operationId: 'a' },
      { service: 'a', group: '/b', operationId: 'a' },
      { service: 'a', group: '/a', operationId: 'b' },
      { service: 'a', group: '/a', operationId: 'B' },
      { service: 'a', group: '/a', operationId: 'a' },
    ];
    expect(sortOperations(ops).map((o) => `${o.service}${o.group}.${o.operationId}`)).toEqual([
      'a/a.B',
      'a/a.a',
      'a/a.b',
      'a/b.a',
      'b/a.a',
    ]);
  });

  test('single runs are written in that order', () => {
    const shuffled = rawRun([...rawRun().operations].reverse());
    expect(summarise(shuffled).operations.map((o) => o.operationId)).toEqual(
      sortOperations(rawRun().operations).map((o) => o.operationId),
    );
  });
});
