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
  const results = new OperationResults(session, events);
  const cases = new CaseSource(plans[Symbol.iterator](), results.left);
  let ran = 0;
  let interrupted = false;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));

  const runOne = async ({ planned, index }: { planned: PlannedCase; index: number }): Promise<void> => {
    let result: CaseResult;
    try {
      result = await session.runCase(planned);
    } catch (error) {
      result = erroredCase(planned, error);
    }
    if (interrupted) return;
    ran++;
    if (!planned.runsLast) return results.finish(planned.operationId, index, result);
    // Its operation's other cases were handed on when they were done; this one joins them by its index.
    // What its presence probe left (the operation's others released it already) goes with it.
    session.release?.(planned.operationId);
    events.onCase(planned.operationId, index, result);
  };
  const worker = async (): Promise<void> => {
    for (let next = interrupted ? undefined : cases.take(); next; next = interrupted ? undefined : cases.take()) await runOne(next);
  };
  /** The last cases, deepest collection first (a nested one's parents are still there), one at a time. */
  const lastOnes = async (): Promise<void> => {
    for (const next of [...cases.last].sort((a, b) => b.depth - a.depth)) {
      if (interrupted) return;
      await runOne(next);
    }
  };

  const done = (async (): Promise<ScheduleOutcome> => {
    const workers = Array.from({ length: Math.max(1, concurrency) }, () => worker());
    // An interrupt does not wait for the cases in flight (a hanging request may take --timeout).
    await Promise.race([Promise.all(workers), stopped]);
    if (!interrupted && cases.planError === undefined) await Promise.race([lastOnes(), stopped]);
    results.handOnPartDone();
    const cleanup = await session.cleanup();
    // What operations answered to other cases' calls (setup, reads, clean-up), where it showed a defect.
    if (!interrupted) for (const [operationId, result] of session.sideCases?.() ?? []) events.onCase(operationId, -1, result);
    if (cases.planError !== undefined) throw cases.planError;
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

/** A defect of the tool, never the deployment's fault: the case is errored with the reason. */
function erroredCase(planned: PlannedCase, error: unknown): CaseResult {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'error';
  return { name: planned.name, kind: planned.kind, outcome: 'errored', errorMessage: `${testName(planned)}: ${message}`, durationMs: 0, checks: [], findings: [], exchanges: [] };
}

/**
 * The cases to start, in canonical order, read from the plans one operation at a time (an operation's plan let go
 * once its last case has started); the cases that run last are set aside.
 */
class CaseSource {
  private current: OperationPlan | undefined;
  private at = 0;
  private exhausted = false;
  /** A plan that could not be made: no further case starts, and the run fails with it after the cleanup. */
  planError: unknown;
  /** Cases that run once every other case has finished (PlannedCase.runsLast), one at a time. */
  readonly last: Array<{ planned: PlannedCase; index: number; depth: number }> = [];

  /** `left`: the cases of each operation still to finish (set here as an operation is reached). */
  constructor(
    private readonly source: Iterator<OperationPlan>,
    private readonly left: Map<string, number>,
  ) {}

  take(): { planned: PlannedCase; index: number } | undefined {
    while (!this.current || this.at >= this.current.cases.length || this.current.cases[this.at]!.runsLast) {
      if (this.current && this.at < this.current.cases.length) {
        this.last.push({ planned: this.current.cases[this.at]!, index: this.at++, depth: this.current.operation.path.split('{').length });
        continue;
      }
      this.current = undefined;
      if (this.exhausted) return undefined;
      let next: IteratorResult<OperationPlan>;
      try {
        next = this.source.next();
      } catch (error) {
        this.planError = error;
        this.exhausted = true;
        return undefined;
      }
      if (next.done) {
        this.exhausted = true;
        return undefined;
      }
      this.current = next.value;
      this.at = 0;
      // An operation is handed on once its other cases are done: a case that runs last is handed on alone, later.
      this.left.set(this.current.operation.operationId, this.current.cases.filter((c) => !c.runsLast).length);
    }
    const index = this.at++;
    return { planned: this.current.cases[index]!, index };
  }
}

/** The finished cases of the operations in flight: each operation's handed on together once its last case is done. */
class OperationResults {
  /** The cases of each operation in flight still to finish. */
  readonly left = new Map<string, number>();
  private readonly failing = new Set<string>();
  /** The finished cases of each operation in flight: handed on together, once its last case is done. */
  private readonly finished = new Map<string, Array<{ index: number; result: CaseResult }>>();

  constructor(
    private readonly session: Runner,
    private readonly events: ScheduleEvents,
  ) {}

  finish(operationId: string, index: number, result: CaseResult): void {
    const { left, finished, failing, events } = this;
    const list = finished.get(operationId) ?? [];
    finished.set(operationId, list);
    list.push({ index, result });
    const remaining = (left.get(operationId) ?? 1) - 1;
    left.set(operationId, remaining);
    if (remaining !== 0) return;
    left.delete(operationId);
    finished.delete(operationId);
    this.session.release?.(operationId);
    // A response defect many cases saw is shown once, in the first of them (judge.ts: groupAcrossCases).
    list.sort((a, b) => a.index - b.index);
    const grouped = groupAcrossCases(list.map((f) => f.result));
    grouped.forEach((r, i) => {
      if (r.outcome !== 'passed' && r.outcome !== 'skipped') failing.add(operationId);
      events.onCase(operationId, list[i]!.index, r);
    });
    const failed = failing.delete(operationId);
    events.onOperationDone?.(operationId, failed);
  }

  /** An interrupt (or a plan that failed) leaves operations part-done: what their finished cases showed counts. */
  handOnPartDone(): void {
    for (const [operationId, list] of this.finished) {
      list.sort((a, b) => a.index - b.index);
      groupAcrossCases(list.map((f) => f.result)).forEach((r, i) => this.events.onCase(operationId, list[i]!.index, r));
    }
    this.finished.clear();
  }
}
