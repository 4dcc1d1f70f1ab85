/**
 * Identical calls: a documented transient failure is retried once before it is judged, and a positive call
 * that may be repeated without harm is sent again so that an operation which answers identical calls
 * differently is reported as flaky, with the counts.
 */
import { atPointer } from '../checks/types.ts';
import type { CaseResult, Operation, RecordedResponse } from '../model.ts';
import { sideEffectOf, type Profile } from '../description/profile.ts';
import { responseFor } from '../description/load.ts';

/** Statuses that mean "try again" when the operation documents them (RFC 9110: 408 Request Timeout, 503 Service Unavailable). */
const TRANSIENT = new Set([408, 503]);
/** Back-off before the one retry when the response names none (Retry-After), and the longest honoured. */
export const RETRY_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5_000;

/** A documented transient failure: a status the operation documents as transient, with the envelope where the platform's errors carry one. */
export function isDocumentedTransient(op: Operation, response: Pick<RecordedResponse, 'status' | 'json'>, profile: Profile): boolean {
  if (!TRANSIENT.has(response.status) || !documentsStatus(op, response.status)) return false;
  if (!profile.errorEnvelope.appliesTo.includes(op.service)) return true;
  return typeof atPointer(response.json, profile.errorEnvelope.codePointer) === 'string';
}

/** The operation documents this status itself, by its code or its range (5XX); a `default` answer documents none. */
function documentsStatus(op: Operation, status: number): boolean {
  const spec = responseFor(op, status);
  return spec !== undefined && spec.status !== 'default';
}

/**
 * A documented transient 503 (Service Unavailable), still answered after its retry: the deployment says it could
 * not serve the request now, as its contract allows. That is no defect of the request's handling, and the run could
 * not exercise it: the case is errored with this reason (the verdict is then incomplete), never passed or failed
 * for it. An undocumented 503 stays a server error.
 */
export function unavailableReason(op: Operation, response: Pick<RecordedResponse, 'status' | 'json'>, profile: Profile): string | undefined {
  if (response.status !== 503 || !isDocumentedTransient(op, response, profile)) return undefined;
  return `the deployment answered 503 (Service Unavailable), which ${op.operationId} documents, and it persisted when the operation was asked again after a back-off: the request was not served, so nothing of the operation was judged by it`;
}

/** How long to wait before the retry: Retry-After in seconds when given (capped), else the default back-off. */
export function backoffMs(headers: Record<string, string>): number {
  const after = Number(headers['retry-after']);
  return Number.isFinite(after) && after >= 0 ? Math.min(after * 1000, MAX_BACKOFF_MS) : RETRY_BACKOFF_MS;
}

/** Identical positive calls sent to tell a flaky operation from a broken one. */
export const ATTEMPTS = 3;

/**
 * When a positive call may be sent again unchanged: 'always' for safe methods (repeating them costs nothing),
 * 'on-failure' for idempotent updates and creates the run undoes, 'never' otherwise (a delete or an
 * irreversible call does not answer a second identical call the same way).
 */
export function repeatPolicy(op: Operation, profile: Profile): 'always' | 'on-failure' | 'never' {
  if (op.method === 'GET' || op.method === 'HEAD' || op.method === 'OPTIONS') return 'always';
  if (op.method === 'PUT') return 'on-failure';
  const effect = sideEffectOf(profile, op.operationId);
  return op.method === 'POST' && effect?.class === 'reversible' ? 'on-failure' : 'never';
}

/**
 * One case result from identical attempts: all passed or all failed stays as the first; a mix is flaky,
 * reported with the first failing attempt's checks and findings (the exchanges are the case's, shared).
 *
 * Flaky means the same request on the same state answered differently. Where every attempt was answered with
 * the same status and the failing answers carry other bodies than the passing ones (a list answered `[]` while
 * the store was empty, then records that break the schema once the run had made some), the state changed between
 * the calls, not the operation's mind: the failure stands as one ("seen once the answer changed").
 */
export function combineAttempts(attempts: CaseResult[], answers?: ReadonlyArray<Pick<RecordedResponse, 'status' | 'body'> | undefined>): CaseResult {
  const first = attempts[0]!;
  const failed = attempts.filter((a) => a.outcome === 'failed');
  const passed = attempts.filter((a) => a.outcome === 'passed');
  const durationMs = attempts.reduce((sum, a) => sum + a.durationMs, 0);
  if (failed.length === 0 || passed.length === 0) return { ...(failed[0] ?? first), durationMs };
  if (answers && stateChanged(attempts, answers)) {
    const note = ' Seen once the answer changed with the deployment\'s state: an identical call before answered the same status with a body that conforms (not flaky).';
    return { ...failed[0]!, durationMs, findings: failed[0]!.findings.map((f) => ({ ...f, message: `${f.message}${note}` })) };
  }
  return { ...failed[0]!, outcome: 'flaky', durationMs, flaky: { attempts: attempts.length, failed: failed.length } };
}

/** Same status throughout, and no failing answer's body is one a passing attempt got: what the calls saw changed. */
function stateChanged(attempts: CaseResult[], answers: ReadonlyArray<Pick<RecordedResponse, 'status' | 'body'> | undefined>): boolean {
  if (answers.length !== attempts.length || answers.some((a) => a === undefined)) return false;
  if (new Set(answers.map((a) => a!.status)).size !== 1) return false;
  const passedBodies = new Set(attempts.flatMap((a, i) => (a.outcome === 'passed' ? [answers[i]!.body] : [])));
  return attempts.every((a, i) => a.outcome !== 'failed' || !passedBodies.has(answers[i]!.body));
}
