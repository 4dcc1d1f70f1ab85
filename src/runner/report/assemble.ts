import type { CaseResult, Contract, Exchange, OperationResult } from '../model.ts';
import { toCurl } from './curl.ts';

/**
 * Turns case results gathered per operationId into the run's operation results, whichever engine ran them
 * (the engine's own scheduler for generated cases, vitest for scenario suites). Pure.
 *  - every selected operation gets a result, in the selection's (canonical) order, even when no case ran;
 *  - case results under an operationId outside the selection (a scenario that exercised it) are appended.
 * Outcomes here are provisional: `summarise` derives the real ones.
 */
export function assembleOperations(input: {
  operations: Contract['operations'];
  allOperations: Contract['operations'];
  cases: ReadonlyMap<string, CaseResult[]>;
  interrupted: boolean;
}): OperationResult[] {
  const rest = new Map(input.cases);
  const operations: OperationResult[] = input.operations.map((op) => {
    const cases = rest.get(op.operationId) ?? [];
    rest.delete(op.operationId);
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      group: op.group,
      service: op.service,
      outcome: cases.length === 0 ? 'skipped' : 'passed',
      ...(cases.length === 0 ? { reason: input.interrupted ? 'not reached: the run was interrupted' : 'no case ran' } : {}),
      durationMs: cases.reduce((n, c) => n + c.durationMs, 0),
      cases,
    };
  });
  const byId = new Map(input.allOperations.map((o) => [o.operationId, o]));
  for (const [operationId, cases] of rest) {
    const op = byId.get(operationId);
    operations.push({
      operationId,
      method: op?.method ?? null,
      path: op?.path ?? null,
      group: op?.group ?? 'scenarios',
      service: op?.service ?? 'scenarios',
      outcome: 'passed',
      durationMs: cases.reduce((n, c) => n + c.durationMs, 0),
      cases,
    });
  }
  return operations;
}

/** The case with a curl line reproducing its last exchange (when it has one and none yet). */
export function withCurl(result: CaseResult): CaseResult {
  const last = result.exchanges.at(-1);
  return last && !result.curl ? { ...result, curl: toCurl(last.request) } : result;
}

/**
 * What a case keeps in the results: a passed case keeps its summary (name, outcome, checks, duration, the curl
 * line), a skipped one its name, outcome and reason; both drop their exchanges unless asked to keep them or the
 * case was retried; any other case keeps everything (report/evidence-limit.ts then limits how often one failure is shown in full).
 */
export function compactCase(result: CaseResult, keepPassedExchanges: boolean): CaseResult {
  const curled = withCurl(result);
  if (curled.exchanges.length === 0) return curled;
  // A retried case keeps its exchanges: they carry the retries, the evidence of what the network did.
  if (!keepPassedExchanges && result.outcome === 'passed' && !result.retried) return { ...curled, exchanges: [] };
  // A skipped case sent only what it needed first (its reason says what failed): its summary is the reason.
  if (!keepPassedExchanges && result.outcome === 'skipped' && !result.retried) {
    const { curl: _curl, reproduction: _reproduction, ...summary } = result;
    return { ...summary, exchanges: [] };
  }
  return curled.exchanges.some(oversized) ? { ...curled, exchanges: curled.exchanges.map(capRecorded) } : curled;
}

/**
 * Bodies kept in the reports are cut at this size (the checks saw up to the body cap): a report carries the
 * evidence of a huge or binary answer without its megabytes. `size` keeps the real size, `truncated` says so.
 */
export const RECORDED_BODY_CAP = 64 * 1024;

function oversized(e: Exchange): boolean {
  return (e.response?.body.length ?? 0) > RECORDED_BODY_CAP || (e.request.body?.length ?? 0) > RECORDED_BODY_CAP;
}

function capRecorded(e: Exchange): Exchange {
  if (!oversized(e)) return e;
  const request = e.request.body !== undefined && e.request.body.length > RECORDED_BODY_CAP ? { ...e.request, body: e.request.body.slice(0, RECORDED_BODY_CAP) } : e.request;
  if (!e.response || e.response.body.length <= RECORDED_BODY_CAP) return { ...e, request };
  // The parsed JSON of a cut body would repeat what was cut: only the text is kept.
  const { json: _json, ...response } = e.response;
  return { ...e, request, response: { ...response, body: response.body.slice(0, RECORDED_BODY_CAP), truncated: true } };
}
