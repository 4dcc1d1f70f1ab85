/**
 * The engine's own scheduler for generated cases: a bounded number of cases in flight, started in plan
 * order, every result handed on with its operation and index, operations reported done once, the cleanup
 * ledger worked off at the end, and an interrupt that abandons what is in flight but still cleans up.
 * Also what a case keeps in the results (compactCase).
 */
import { describe, expect, test } from 'vitest';
import { schedule } from '../../src/runner/execute/scheduler.ts';
import type { CaseResult, Operation } from '../../src/runner/model.ts';
import type { OperationPlan, PlannedCase } from '../../src/runner/plan/cases.ts';
import { compactCase, RECORDED_BODY_CAP, recordedLength } from '../../src/runner/report/assemble.ts';

function plan(operationId: string, cases: number): OperationPlan {
  return {
    operation: { operationId } as Operation,
    cases: Array.from({ length: cases }, (_, i) => ({ operationId, name: `case ${i}`, kind: 'positive' }) as PlannedCase),
  };
}

function result(planned: PlannedCase, outcome: CaseResult['outcome'] = 'passed'): CaseResult {
  return { name: planned.name, kind: planned.kind, outcome, durationMs: 1, checks: [], findings: [], exchanges: [] };
}

/** A runner whose cases finish when the test says so, recording what is in flight. */
function controlledRunner() {
  const pending: Array<{ planned: PlannedCase; finish: (r: CaseResult | Error) => void }> = [];
  const started: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const calls = { cleanup: 0, abort: 0 };
  return {
    pending,
    started,
    calls,
    get maxInFlight() {
      return maxInFlight;
    },
    runner: {
      runCase(planned: PlannedCase): Promise<CaseResult> {
        started.push(`${planned.operationId}/${planned.name}`);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return new Promise<CaseResult>((resolve, reject) => {
          pending.push({
            planned,
            finish: (r) => {
              inFlight--;
              if (r instanceof Error) reject(r);
              else resolve(r);
            },
          });
        });
      },
      async cleanup() {
        calls.cleanup++;
        return { deleted: 0, failed: 0, leftBehind: [] };
      },
      abortInFlight() {
        calls.abort++;
      },
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('schedule', () => {
  test('keeps at most `concurrency` cases in flight, starts them in plan order, and reports every one', async () => {
    const c = controlledRunner();
    const seen: string[] = [];
    const done: Array<[string, boolean]> = [];
    const plans = [plan('a', 3), plan('b', 2), plan('c', 4)];
    const s = schedule(c.runner, plans, 3, {
      onCase: (operationId, index, r) => seen.push(`${operationId}#${index}:${r.outcome}`),
      onOperationDone: (operationId, failing) => done.push([operationId, failing]),
    });
    while (c.started.length < 9 || c.pending.length > 0) {
      await tick();
      expect(c.pending.length).toBeLessThanOrEqual(3);
      // Finish the newest first, so completion order differs from start order.
      const next = c.pending.pop();
      next?.finish(result(next.planned, next.planned.operationId === 'b' && next.planned.name === 'case 1' ? 'failed' : 'passed'));
    }
    const outcome = await s.done;
    expect(c.started).toEqual(plans.flatMap((p) => p.cases.map((x) => `${x.operationId}/${x.name}`)));
    expect(c.maxInFlight).toBe(3);
    expect(seen).toHaveLength(9);
    expect(new Set(seen)).toContain('b#1:failed');
    expect(new Map(done)).toEqual(new Map([['a', false], ['b', true], ['c', false]]));
    expect(done).toHaveLength(3);
    expect(outcome).toEqual({ interrupted: false, cases: 9, cleanup: { deleted: 0, failed: 0, leftBehind: [] } });
    expect(c.calls.cleanup).toBe(1);
  });

  test('a case that throws (a tool defect) is an errored case with the reason, and the run goes on', async () => {
    const c = controlledRunner();
    const seen: CaseResult[] = [];
    const s = schedule(c.runner, [plan('a', 2)], 1, { onCase: (_, __, r) => seen.push(r) });
    await tick();
    c.pending.shift()?.finish(new Error('boom\nstack'));
    await tick();
    const second = c.pending.shift();
    second?.finish(result(second.planned));
    await s.done;
    expect(seen.map((r) => r.outcome)).toEqual(['errored', 'passed']);
    expect(seen[0]?.errorMessage).toBe('a › case 0: boom');
  });

  test('an interrupt starts no more cases, abandons those in flight, aborts their requests and still cleans up', async () => {
    const c = controlledRunner();
    const seen: string[] = [];
    const s = schedule(c.runner, [plan('a', 10)], 2, { onCase: (id, i) => seen.push(`${id}#${i}`) });
    await tick();
    const first = c.pending.shift();
    first?.finish(result(first.planned));
    await tick();
    expect(c.started).toHaveLength(3);
    s.interrupt();
    s.interrupt();
    const outcome = await s.done;
    // The cases still in flight end later: nothing of theirs is reported.
    for (const p of c.pending.splice(0)) p.finish(result(p.planned));
    await tick();
    expect(outcome.interrupted).toBe(true);
    expect(outcome.cases).toBe(1);
    expect(seen).toEqual(['a#0']);
    expect(c.started).toHaveLength(3);
    expect(c.calls).toEqual({ cleanup: 1, abort: 1 });
  });

  test('lazy plans: an operation is planned when the workers reach it, in order; a planning error still cleans up, then fails the run', async () => {
    const c = controlledRunner();
    const plannedOps: string[] = [];
    function* plans() {
      for (const [id, cases] of [['a', 2], ['b', 0], ['c', 1]] as const) {
        plannedOps.push(id);
        yield plan(id, cases);
      }
      plannedOps.push('d');
      throw new Error('cannot plan d');
    }
    const done: string[] = [];
    const s = schedule(c.runner, plans(), 2, { onCase: () => undefined, onOperationDone: (id) => done.push(id) });
    await tick();
    // Two in flight (both of a): nothing else planned yet.
    expect(c.started).toEqual(['a/case 0', 'a/case 1']);
    expect(plannedOps).toEqual(['a']);
    const first = c.pending.shift()!;
    first.finish(result(first.planned));
    await tick();
    // A worker came free: b (no cases) and c are planned, c's case starts; d is not reached yet.
    expect(c.started).toEqual(['a/case 0', 'a/case 1', 'c/case 0']);
    expect(plannedOps).toEqual(['a', 'b', 'c']);
    for (const p of c.pending.splice(0)) p.finish(result(p.planned));
    await expect(s.done).rejects.toThrow('cannot plan d');
    expect(plannedOps).toEqual(['a', 'b', 'c', 'd']);
    expect(done).toEqual(['a', 'c']);
    expect(c.calls.cleanup).toBe(1);
  });

  test('cases that run last start once every other case has finished, one at a time, the deepest collection first; their operations are handed on before, not held', async () => {
    const c = controlledRunner();
    const at = (id: string, path: string, cases: number, last: number[]): OperationPlan => {
      const p = plan(id, cases);
      return { operation: { operationId: id, path } as Operation, cases: p.cases.map((x, i) => (last.includes(i) ? { ...x, runsLast: true as const } : x)) };
    };
    const finishOne = () => {
      const p = c.pending.shift()!;
      p.finish(result(p.planned));
    };
    const done: string[] = [];
    const seen: string[] = [];
    const s = schedule(c.runner, [at('flat', '/pets', 3, [1]), at('nested', '/owners/{ownerId}/toys', 2, [0]), at('other', '/x', 1, [])], 4, {
      onCase: (id, index) => seen.push(`${id}#${index}`),
      onOperationDone: (id) => done.push(id),
    });
    await tick();
    expect(c.started).toEqual(['flat/case 0', 'flat/case 2', 'nested/case 1', 'other/case 0']);
    for (const p of c.pending.splice(0, 3)) p.finish(result(p.planned));
    await tick();
    // Their other cases done, flat and nested are handed on now (not held in memory until the end).
    expect(done).toEqual(['flat', 'nested']);
    expect(seen).toEqual(['flat#0', 'flat#2', 'nested#1']);
    // One case still in flight: the last ones wait for it.
    expect(c.started).toHaveLength(4);
    finishOne();
    await tick();
    expect(done).toEqual(['flat', 'nested', 'other']);
    expect(c.started.slice(4)).toEqual(['nested/case 0']);
    finishOne();
    await tick();
    expect(c.started.slice(4)).toEqual(['nested/case 0', 'flat/case 1']);
    expect(c.pending).toHaveLength(1);
    finishOne();
    await s.done;
    // Each last case joins its operation by its index.
    expect(seen.slice(4)).toEqual(['nested#0', 'flat#1']);
    expect(c.calls.cleanup).toBe(1);
  });
});

describe('compactCase', () => {
  const exchange = { request: { method: 'GET' as const, url: 'http://127.0.0.1/x', headers: { authorization: 'Bearer $CONFORMANCE_TOKEN' } }, durationMs: 1 };
  const base = { name: 'positive', kind: 'positive' as const, durationMs: 1, checks: [{ id: 'not-a-server-error' as const, status: 'passed' as const }], findings: [], exchanges: [exchange] };

  test('a passed case keeps its summary and curl line, not its exchanges', () => {
    const compact = compactCase({ ...base, outcome: 'passed' }, false);
    expect(compact.exchanges).toEqual([]);
    expect(compact.checks).toEqual(base.checks);
    expect(compact.curl).toContain('http://127.0.0.1/x');
  });

  test('a case that did not pass, or a run that asks for them, keeps every exchange', () => {
    expect(compactCase({ ...base, outcome: 'failed' }, false).exchanges).toEqual([exchange]);
    expect(compactCase({ ...base, outcome: 'errored' }, false).exchanges).toEqual([exchange]);
    expect(compactCase({ ...base, outcome: 'passed' }, true).exchanges).toEqual([exchange]);
  });

  test('a body over the recorded cap is cut in the report, its real size and the cut said', () => {
    const big = 'x'.repeat(RECORDED_BODY_CAP * 3);
    const huge = { ...exchange, response: { status: 500, headers: {}, body: big, json: { a: big }, truncated: false, size: big.length } };
    const kept = compactCase({ ...base, outcome: 'failed', exchanges: [huge] }, false).exchanges[0]!;
    expect(kept.response?.body).toHaveLength(RECORDED_BODY_CAP);
    expect(kept.response?.truncated).toBe(true);
    expect(kept.response?.size).toBe(big.length);
    expect(kept.response?.json).toBeUndefined();
    expect(huge.response.body).toHaveLength(RECORDED_BODY_CAP * 3);
  });

  test('a body is cut where its JSON in results.json would pass the cap: control characters take six, a character pair is never split', () => {
    const zeros = '\u0000'.repeat(RECORDED_BODY_CAP);
    const binary = { ...exchange, response: { status: 200, headers: {}, body: zeros, truncated: false, size: zeros.length } };
    const kept = compactCase({ ...base, outcome: 'failed', exchanges: [binary] }, false).exchanges[0]!;
    expect(kept.response?.truncated).toBe(true);
    expect(kept.response?.size).toBe(zeros.length);
    expect(JSON.stringify(kept.response?.body).length - 2).toBeLessThanOrEqual(RECORDED_BODY_CAP);
    expect(kept.response?.body).toHaveLength(Math.floor(RECORDED_BODY_CAP / 6));
    const emoji = '\u{1F600}'.repeat(RECORDED_BODY_CAP); // two code units each, not escaped
    const cut = recordedLength(emoji);
    expect(cut % 2).toBe(0);
    expect(cut).toBe(RECORDED_BODY_CAP);
    const quotes = 'a"'.repeat(RECORDED_BODY_CAP / 2);
    expect(JSON.stringify(quotes.slice(0, recordedLength(quotes))).length - 2).toBeLessThanOrEqual(RECORDED_BODY_CAP);
    expect(recordedLength('plain text')).toBe(10);
    // A body within the cap as JSON is kept whole, with its parsed form.
    const small = { ...exchange, response: { status: 200, headers: {}, body: '{"a":1}', json: { a: 1 }, truncated: false, size: 7 } };
    expect(compactCase({ ...base, outcome: 'failed', exchanges: [small] }, false).exchanges[0]).toEqual(small);
  });
});
