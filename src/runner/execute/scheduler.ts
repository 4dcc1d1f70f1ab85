/**
 * Runs the generated cases in the engine itself: a fixed number of cases in flight (each case sends its
 * requests one after another, so this bounds the requests in flight), started in canonical order, each
 * result handed on as soon as it is judged. An interrupt stops starting cases and abandons those in flight
 * (their operations read "not reached"); the cleanup ledger is worked off at the end either way.
 */
import type { CaseResult, LeftBehindRecord } from '../model.ts';
import { testName, type OperationPlan, type PlannedCase } from '../plan/cases.ts';
import type { Session } from './session.ts';

export interface ScheduleEvents {
  /** A case finished (never called for a case abandoned by an interrupt). */
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

type Runner = Pick<Session, 'runCase' | 'cleanup' | 'abortInFlight'>;

/**
 * `plans` may be lazy (a generator): each operation is planned when the workers reach it, in canonical order, so the
 * first cases go out while the rest of a large contract is still to be planned, and memory holds the plans of the
 * operations in flight rather than all of them. A planning error stops starting cases; the run still cleans up and
 * then fails with that error.
 */
export function schedule(session: Runner, plans: Iterable<OperationPlan>, concurrency: number, events: ScheduleEvents): Scheduler {
  const queue: Array<{ planned: PlannedCase; index: number } | undefined> = [];
  const left = new Map<string, number>();
  const failing = new Set<string>();
  const source = plans[Symbol.iterator]();
  let next = 0;
  let morePlans = true;
  let planError: { error: unknown } | undefined;
  /** The next case to start, planning the next operation when the planned ones are all started. */
  const take = (): { planned: PlannedCase; index: number } | undefined => {
    while (next >= queue.length) {
      if (!morePlans || planError) return undefined;
      let step: IteratorResult<OperationPlan>;
      try {
        step = source.next();
      } catch (error) {
        planError = { error };
        return undefined;
      }
      if (step.done) {
        morePlans = false;
        return undefined;
      }
      step.value.cases.forEach((c, index) => queue.push({ planned: c, index }));
      left.set(step.value.operation.operationId, step.value.cases.length);
    }
    const item = queue[next];
    queue[next++] = undefined; // started: the queue need not keep it
    return item;
  };
  let ran = 0;
  let interrupted = false;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));

  const finish = (operationId: string, result: CaseResult) => {
    if (result.outcome !== 'passed' && result.outcome !== 'skipped') failing.add(operationId);
    const remaining = (left.get(operationId) ?? 1) - 1;
    left.set(operationId, remaining);
    if (remaining === 0) events.onOperationDone?.(operationId, failing.has(operationId));
  };

  const worker = async (): Promise<void> => {
    for (let item = interrupted ? undefined : take(); item; item = interrupted ? undefined : take()) {
      const { planned, index } = item;
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
      events.onCase(planned.operationId, index, result);
      finish(planned.operationId, result);
    }
  };

  const done = (async (): Promise<ScheduleOutcome> => {
    const workers = Array.from({ length: Math.max(1, concurrency) }, () => worker());
    // An interrupt does not wait for the cases in flight (a hanging request may take --timeout).
    await Promise.race([Promise.all(workers), stopped]);
    const cleanup = await session.cleanup();
    if (planError) throw planError.error;
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
