/**
 * Runs the generated cases in the engine itself: a fixed number of cases in flight (the session bounds the
 * requests in flight by the same number: a fuzzing case sends its drawn requests several at a time, taking
 * the slots other cases leave free), started in canonical order, each
 * result handed on as soon as it is judged. A case that deletes records other cases may use (PlannedCase.runsLast)
 * waits until every other case has finished; those run one at a time, the deepest collection first, each handed on
 * alone after its operation's other cases were (the operations are not held back in memory meanwhile). An interrupt
 * stops starting cases and abandons those in flight (their operations read "not reached"); the cleanup ledger is
 * worked off at the end either way.
 */
import type { CaseResult, LeftBehindRecord } from '../model.ts';
import { testName, type OperationPlan, type PlannedCase } from '../plan/cases.ts';
import { groupAcrossCases } from './judge.ts';
import type { Session } from './session.ts';

export interface ScheduleEvents {
  /**
   * A case finished (never called for a case abandoned by an interrupt); the cases of one operation are handed
   * on together when its last one has finished. Index -1: a case added after the
   * planned ones (what an operation answered to other cases' calls), appended to its operation's cases.
   */
  onCase(operationId: string, index: number, result: CaseResult): void;
  /** Every case of an operation has finished. */
  onOperationDone?(operationId: string, failing: boolean): void;
}

export interface ScheduleOutcome {
  interrupted: boolean;
  cases: number;
  /** Records deleted at the end, deletes that failed, and the records left behind (with where and why). */
  cleanup: { deleted: number; failed: number; leftBehind?: LeftBehindRecord[] };
}

export interface Scheduler {
  /** Stop starting cases, abandon the ones in flight, then clean up. Idempotent. */
  interrupt(): void;
  readonly done: Promise<ScheduleOutcome>;
}

type Runner = Pick<Session, 'runCase' | 'cleanup' | 'abortInFlight'> & Partial<Pick<Session, 'release' | 'sideCases'>>;

/**
 * `plans` is read one operation at a time, as the workers reach it: given a lazy iterable, each operation is
 * planned only then, and its plan is let go once its last case has started, so memory holds the cases in
 * flight rather than every case of the contract. The session lets go of what it kept for an operation once
 * its last case has finished (Session.release).
 */
export function schedule(session: Runner, plans: Iterable<OperationPlan>, concurrency: number, events: ScheduleEvents): Scheduler {
  const source = plans[Symbol.iterator]();
  let current: OperationPlan | undefined;
  let at = 0;
  let exhausted = false;
  /** A plan that could not be made: no further case starts, and the run fails with it after the cleanup. */
  let planError: unknown;
  const left = new Map<string, number>();
  const failing = new Set<string>();
  /** The finished cases of each operation in flight: handed on together, once its last case is done. */
  const finished = new Map<string, Array<{ index: number; result: CaseResult }>>();
  /** Cases that run once every other case has finished (PlannedCase.runsLast), one at a time. */
  const last: Array<{ planned: PlannedCase; index: number; depth: number }> = [];
  const take = (): { planned: PlannedCase; index: number } | undefined => {
    while (!current || at >= current.cases.length || current.cases[at]!.runsLast) {
      if (current && at < current.cases.length) {
        last.push({ planned: current.cases[at]!, index: at++, depth: current.operation.path.split('{').length });
        continue;
      }
      current = undefined;
      if (exhausted) return undefined;
      let next: IteratorResult<OperationPlan>;
      try {
        next = source.next();
      } catch (error) {
        planError = error;
        exhausted = true;
        return undefined;
      }
      if (next.done) {
        exhausted = true;
        return undefined;
      }
      current = next.value;
      at = 0;
      // An operation is handed on once its other cases are done: a case that runs last is handed on alone, later.
      left.set(current.operation.operationId, current.cases.filter((c) => !c.runsLast).length);
    }
    const index = at++;
    return { planned: current.cases[index]!, index };
  };
  let ran = 0;
  let interrupted = false;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));

  const finish = (operationId: string, index: number, result: CaseResult) => {
    const list = finished.get(operationId) ?? [];
    finished.set(operationId, list);
    list.push({ index, result });
    const remaining = (left.get(operationId) ?? 1) - 1;
    left.set(operationId, remaining);
    if (remaining !== 0) return;
    left.delete(operationId);
    finished.delete(operationId);
    session.release?.(operationId);
    // A response defect many cases saw is shown once, in the first of them (judge.ts: groupAcrossCases).
    list.sort((a, b) => a.index - b.index);
    const grouped = groupAcrossCases(list.map((f) => f.result));
    grouped.forEach((r, i) => {
      if (r.outcome !== 'passed' && r.outcome !== 'skipped') failing.add(operationId);
      events.onCase(operationId, list[i]!.index, r);
    });
    const failed = failing.delete(operationId);
    events.onOperationDone?.(operationId, failed);
  };

  const runOne = async ({ planned, index }: { planned: PlannedCase; index: number }): Promise<void> => {
    let result: CaseResult;
    try {
      result = await session.runCase(planned);
    } catch (error) {
      // A defect of the tool, never the deployment's fault: the case is errored with the reason.
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'error';
      result = { name: planned.name, kind: planned.kind, outcome: 'errored', errorMessage: `${testName(planned)}: ${message}`, durationMs: 0, checks: [], findings: [], exchanges: [] };
    }
    if (interrupted) return;
    ran++;
    if (!planned.runsLast) return finish(planned.operationId, index, result);
    // Its operation's other cases were handed on when they were done; this one joins them by its index.
    events.onCase(planned.operationId, index, result);
  };
  const worker = async (): Promise<void> => {
    for (let next = interrupted ? undefined : take(); next; next = interrupted ? undefined : take()) await runOne(next);
  };
  /** The last cases, deepest collection first (a nested one's parents are still there), one at a time. */
  const lastOnes = async (): Promise<void> => {
    for (const next of [...last].sort((a, b) => b.depth - a.depth)) {
      if (interrupted) return;
      await runOne(next);
    }
  };

  const done = (async (): Promise<ScheduleOutcome> => {
    const workers = Array.from({ length: Math.max(1, concurrency) }, () => worker());
    // An interrupt does not wait for the cases in flight (a hanging request may take --timeout).
    await Promise.race([Promise.all(workers), stopped]);
    if (!interrupted && planError === undefined) await Promise.race([lastOnes(), stopped]);
    // An interrupt (or a plan that failed) leaves operations part-done: what their finished cases showed counts.
    for (const [operationId, list] of finished) {
      list.sort((a, b) => a.index - b.index);
      groupAcrossCases(list.map((f) => f.result)).forEach((r, i) => events.onCase(operationId, list[i]!.index, r));
    }
    finished.clear();
    const cleanup = await session.cleanup();
    // What operations answered to other cases' calls (setup, reads, clean-up), where it showed a defect.
    if (!interrupted) for (const [operationId, result] of session.sideCases?.() ?? []) events.onCase(operationId, -1, result);
    if (planError !== undefined) throw planError;
    return { interrupted, cases: ran, cleanup };
  })();

  return {
    interrupt() {
      if (interrupted) return;
      interrupted = true;
      session.abortInFlight();
      stop();
    },
    done,
  };
}
