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

export function schedule(session: Runner, plans: readonly OperationPlan[], concurrency: number, events: ScheduleEvents): Scheduler {
  const queue: Array<{ planned: PlannedCase; index: number }> = [];
  const left = new Map<string, number>();
  const failing = new Set<string>();
  for (const plan of plans) {
    plan.cases.forEach((planned, index) => queue.push({ planned, index }));
    left.set(plan.operation.operationId, plan.cases.length);
  }
  let next = 0;
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
    while (!interrupted && next < queue.length) {
      const { planned, index } = queue[next++]!;
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
    const workers = Array.from({ length: Math.max(1, Math.min(concurrency, queue.length)) }, () => worker());
    // An interrupt does not wait for the cases in flight (a hanging request may take --timeout).
    await Promise.race([Promise.all(workers), stopped]);
    const cleanup = await session.cleanup();
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
