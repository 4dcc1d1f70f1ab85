import type { CaseResult, Contract, Exchange, Finding, OperationResult } from '../model.ts';
import { toCurl } from './curl.ts';
import { summed } from '../plan/input-location.ts';

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
      ...wallTime(cases),
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
      ...wallTime(cases),
      cases,
    });
  }
  return operations;
}

/**
 * An operation's time and requests from its cases: the wall time from the first case's start to the last one's end
 * where the cases say when they started (they overlap: a sum would exceed the run), else the sum.
 */
function wallTime(cases: readonly CaseResult[]): Pick<OperationResult, 'durationMs' | 'requests' | 'requestsByLocation'> {
  const timed = cases.filter((c) => c.startedAt !== undefined);
  const durationMs =
    timed.length > 0
      ? Math.round(Math.max(...timed.map((c) => c.startedAt! + c.durationMs)) - Math.min(...timed.map((c) => c.startedAt!)))
      : cases.reduce((n, c) => n + c.durationMs, 0);
  const counted = cases.filter((c) => c.requests !== undefined);
  const byLocation = summed(cases.map((c) => c.requestsByLocation));
  return { durationMs, ...(counted.length > 0 ? { requests: counted.reduce((n, c) => n + c.requests!, 0) } : {}), ...(byLocation ? { requestsByLocation: byLocation } : {}) };
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
  const exchanges = curled.exchanges.map(capRecorded);
  return exchanges.every((e, i) => e === curled.exchanges[i]) ? curled : { ...curled, exchanges };
}

/**
 * Bodies kept in the reports are cut where they would take more than this many characters in results.json (the
 * checks saw up to the body cap): a report carries the evidence of a huge or binary answer without its megabytes
 * (a control character takes six characters as JSON, so a body of NUL bytes is cut at about 11,000). `size` keeps
 * the real size, `truncated` says so.
 */
export const RECORDED_BODY_CAP = 64 * 1024;

/** How many leading characters of `text` fit in RECORDED_BODY_CAP characters of JSON (all of them: its length). */
export function recordedLength(text: string): number {
  // Every character takes at most six characters as JSON: a short text always fits.
  if (text.length * 6 <= RECORDED_BODY_CAP) return text.length;
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let w = 1;
    if (code < 0x20) w = code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
    else if (code === 0x22 || code === 0x5c) w = 2;
    else if (code >= 0xd800 && code <= 0xdfff) {
      const pair = code <= 0xdbff ? text.charCodeAt(i + 1) : NaN;
      if (pair >= 0xdc00 && pair <= 0xdfff) {
        if (width + 2 > RECORDED_BODY_CAP) return i;
        width += 2;
        i++;
        continue;
      }
      w = 6; // a lone surrogate is escaped
    }
    if (width + w > RECORDED_BODY_CAP) return i;
    width += w;
  }
  return text.length;
}

/**
 * A copy of a text cut from a larger one that holds no reference to it. V8 represents `slice` of a long string
 * as a view of the whole: 64 KiB kept of a 1 MiB answer would keep the megabyte alive as long as the case.
 */
export function detached(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}

/** A recorded answer with its body cut at RECORDED_BODY_CAP characters of JSON (the same object when it fits). */
export function capResponse(response: NonNullable<Exchange['response']>): NonNullable<Exchange['response']> {
  const kept = recordedLength(response.body);
  if (kept >= response.body.length) return response;
  const { json: _json, ...rest } = response;
  return { ...rest, body: detached(response.body.slice(0, kept)), truncated: true };
}

/** The exchange with its bodies cut to what the reports keep (the same object when nothing is cut). */
export function capRecorded(e: Exchange): Exchange {
  const requestBody = e.request.body;
  const requestKept = requestBody === undefined ? 0 : recordedLength(requestBody);
  const responseKept = e.response ? recordedLength(e.response.body) : 0;
  const requestCut = requestBody !== undefined && requestKept < requestBody.length;
  const responseCut = e.response !== undefined && responseKept < e.response.body.length;
  if (!requestCut && !responseCut) return e;
  const request = requestCut ? { ...e.request, body: detached(requestBody.slice(0, requestKept)) } : e.request;
  if (!responseCut || !e.response) return { ...e, request };
  // The parsed JSON of a cut body would repeat what was cut: only the text is kept.
  const { json: _json, ...response } = e.response;
  return { ...e, request, response: { ...response, body: detached(response.body.slice(0, responseKept)), truncated: true } };
}

/** How many characters of JSON a finding's expected or actual value keeps (a whole answer is evidence enough cut). */
export const FINDING_VALUE_CAP = 16 * 1024;

/**
 * The finding as a case keeps it when it was judged on an answer larger than the reports keep: its expected and
 * actual values cut to FINDING_VALUE_CAP characters of JSON (a whole parsed answer becomes the start of its text),
 * and every text copied, so that nothing in it holds on to the answer it was cut from.
 */
export function boundedFinding(f: Finding): Finding {
  const bounded: Finding = { ...f };
  if (f.actual !== undefined) bounded.actual = boundedValue(f.actual);
  if (f.expected !== undefined) bounded.expected = boundedValue(f.expected);
  return JSON.parse(JSON.stringify(bounded)) as Finding;
}

/** The value itself when its JSON fits FINDING_VALUE_CAP, else the start of that JSON as text (never the whole JSON made). */
function boundedValue(value: unknown): unknown {
  if (typeof value === 'string') return value.length <= FINDING_VALUE_CAP ? value : `${value.slice(0, FINDING_VALUE_CAP)}… (${value.length} characters, cut)`;
  if (typeof value !== 'object' || value === null || !largerThan(value, FINDING_VALUE_CAP)) return value;
  // Long texts and long arrays shortened first: the JSON made is about as large as what is kept.
  const text = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' && v.length > 1024 ? `${v.slice(0, 1024)}…` : Array.isArray(v) && v.length > 64 ? [...v.slice(0, 64), `… ${v.length - 64} more`] : v,
  );
  return `${text.slice(0, FINDING_VALUE_CAP)}… (cut)`;
}

/** Whether a JSON value takes more than `limit` characters, walking no more of it than that. */
function largerThan(value: unknown, limit: number): boolean {
  let budget = limit;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') budget -= v.length + 2;
    else if (Array.isArray(v)) {
      budget -= v.length + 2;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        budget -= k.length + 4;
        stack.push(item);
      }
    } else budget -= 8;
    if (budget < 0) return true;
  }
  return false;
}
