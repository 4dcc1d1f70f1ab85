import { describe, expect, test } from 'vitest';
import type { CaseKind, CaseOutcome, CaseResult, Finding, OperationResult, Outcome, RunResults } from '../../src/runner/model.ts';
import {
  caseOutcome,
  computeVerdict,
  countOutcomes,
  exitCodeOf,
  operationOutcome,
  sortOperations,
  summarise,
  verdictLine,
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

describe('verdictLine and exitCodeOf: one verdict everywhere', () => {
  const op = (operationId: string, outcome: Outcome, reason?: string): OperationResult => ({
    operationId, method: 'POST', path: '/x', group: '/x', service: 's', outcome, durationMs: 1, cases: [], ...(reason ? { reason } : {}),
  });
  const base = { pact: undefined, expiredWaivers: [], interrupted: false, failOn: 'error' as const };
  const irreversible = 'irreversible side effect: sends a one-time password to a user; runs against the embedded reference service or with --allow-irreversible';

  test('conformant with untested operations says for how many and why', () => {
    const operations = [op('a', 'passed'), op('b', 'passed'), op('c', 'untested', irreversible), op('d', 'not-described')];
    expect(verdictLine({ ...base, verdict: 'conformant', operations })).toBe(
      'conformant for 2 of 3 operations; 1 untested: irreversible side effects (pass --allow-irreversible against a disposable deployment)',
    );
  });

  test('untested for different reasons are counted per reason', () => {
    const operations = [op('a', 'untested', irreversible), op('b', 'untested', 'not a safe method (--read-only)')];
    expect(verdictLine({ ...base, verdict: 'conformant', operations })).toBe(
      'conformant for 0 of 2 operations; 2 untested: 1 irreversible side effects (pass --allow-irreversible against a disposable deployment); 1 read-only run (--read-only sends no call that changes data)',
    );
  });

  test('an errored operation: incomplete, and the line says the run cannot vouch for it', () => {
    const operations = [op('a', 'passed'), op('b', 'errored')];
    const verdict = computeVerdict({ ...base, operations });
    expect(verdict).toBe('incomplete');
    expect(exitCodeOf(verdict)).toBe(2);
    expect(verdictLine({ ...base, verdict, operations })).toBe('incomplete: 1 operation errored (tool or network problems): the run cannot vouch for it');
  });

  test('a stopped run says what stopped it', () => {
    const stopped = 'the deployment rejected the credentials (401 on 3 of 3 calls)';
    expect(verdictLine({ ...base, verdict: 'incomplete', stopped, operations: [] })).toBe(`incomplete: ${stopped}`);
  });

  test('exit codes: conformant 0, not-conformant 1, incomplete 2', () => {
    expect([exitCodeOf('conformant'), exitCodeOf('not-conformant'), exitCodeOf('incomplete')]).toEqual([0, 1, 2]);
  });

  test('summarise records the kinds of case that ran and the reason of an untested operation', () => {
    const raw = rawRun();
    const r = summarise(raw);
    const untested = r.operations.find((o) => o.outcome === 'untested');
    expect(untested?.reason).toBeTruthy();
    expect(untested?.ran).toEqual([]);
    const passed = r.operations.find((o) => o.outcome === 'passed');
    expect(passed?.ran).toContain('positive');
    expect(r.verdictLine).toMatch(/^not conformant: /);
  });
});
