/**
 * The fuzzing phase of one operation (execute/fuzz.ts): random schema-valid requests drawn by fast-check;
 * every answer is judged (response conformance: a server error, an undocumented status, an answer that does
 * not match its schema), a server error is shrunk, and each finding is shown with the smallest request that
 * showed it, after a replay alone.
 */
import type { CaseResult } from '../../model.ts';
import { describeRequest } from '../../plan/arbitraries.ts';
import { DEFAULT_FUZZ_EXAMPLES } from '../../plan/cases.ts';
import type { CaseRun } from '../case-run.ts';
import type { CallRequest } from '../request-builder.ts';
import type { PhaseContext } from './host.ts';
import { Skip } from '../skip.ts';
import { judgedUnanswered } from '../judge.ts';
import { replayed } from './replay.ts';
import { alignBodyToPath, type Doubts } from '../records/references.ts';
import { fuzzedPath } from '../../plan/fuzz-inputs.ts';
import { fuzzLocation } from '../../plan/input-location.ts';

export async function runFuzzingPhase(session: PhaseContext, run: CaseRun, request: CallRequest & { pathParams: Record<string, string>; query: Record<string, unknown> }, doubts: Doubts): Promise<CaseResult> {
  const { op } = run;
  // fast-check is loaded only when a fuzzing case runs (start-up stays lean).
  const { fuzzOperation } = await import('../fuzz.ts');
  // A request the session would not send (the operation timed out twice, the deployment stopped answering) ends
  // the phase; the case says why once the requests in flight are in.
  let notSent: Skip | undefined;
  // A read by id that takes nothing else has its path drawn (plan/fuzz-inputs.ts); elsewhere the path stays the record's.
  const varyPath = new Set(fuzzedPath(op));
  const location = fuzzLocation(op, varyPath);
  const fuzz = await fuzzOperation(op, request, {
    seed: `${session.config.seed}:${op.operationId}`,
    numRuns: session.config.fuzzExamples ?? DEFAULT_FUZZ_EXAMPLES,
    // The drawn requests go out as many at a time as the run allows (the session bounds the run's requests in
    // flight by --concurrency), judged in the order drawn.
    parallel: session.config.concurrency,
    varyPath,
    send: (r) =>
      run
        .send(op, {
          auth: request.auth ?? 'valid',
          pathParams: r.pathParams,
          query: r.query,
          headers: r.headers,
          cookies: r.cookies,
          // A drawn body field named like a path parameter names the path's record (a drawn null names none).
          ...(r.body !== undefined ? { body: alignBodyToPath(op, r.body, r.pathParams, { keepNull: true }) } : {}),
          ...(r.contentType ? { contentType: r.contentType } : {}),
          location,
        }, { intent: true, keep: false })
        .catch((error: unknown) => {
          if (!(error instanceof Skip)) throw error;
          notSent ??= error;
          return undefined;
        }),
    // Every draw is schema-valid: it must be taken (positive-data-accepted), unless its refusal can depend on
    // stored data (it names a record the run did not get from the service, or it is a 409); a drawn path is judged
    // by its answer alone.
    answered: (r, exchange, sent) => {
      if (exchange.response === undefined && !judgedUnanswered(exchange)) return;
      // Refused where no call of the operation was taken in the run: the drawn variation is not named as the cause.
      const refusedAlike = exchange.response !== undefined && exchange.response.status >= 400 && exchange.response.status < 500 && !session.caller.accepted(op);
      const coverage = { label: `fuzzing: ${describeRequest(r, request)}`, sent, ...(refusedAlike ? { unvaried: true } : {}) };
      // A drawn path names a record nobody made: any documented answer will do (a refusal is the record's), judged for
      // its conformance and server errors only.
      if (varyPath.size > 0) run.judgeResponse(exchange, { coverage });
      else run.judgeIntent(exchange, { intent: 'success', coverage, ...doubts({ pathParams: r.pathParams, query: r.query, body: r.body }) });
    },
  });
  // The case keeps the evidence of its defects (the judge's) and its last exchange, not every draw.
  const shownLast = fuzz.unanswered ?? fuzz.last;
  if (shownLast) run.keep(shownLast);
  if (notSent) throw notSent;
  if (fuzz.error) return { ...run.result(), outcome: 'errored', errorMessage: fuzz.error };
  if (fuzz.sent === 0) return run.skipped('no fuzzing request was sent');
  if (run.evidence.size === 0 && fuzz.unanswered) return { ...run.result(), outcome: 'errored', errorMessage: fuzz.unanswered.error?.message ?? 'no response' };
  return replayed(session, run, run.result({ evidenceOnly: true }));
}
