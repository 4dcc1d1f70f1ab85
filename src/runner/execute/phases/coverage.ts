/**
 * The coverage phase of one operation: the planned variations of the positive request in their fixed order
 * (the same seed sends the same requests). Every answer is judged: a schema-valid request as a positive (no
 * server error, a documented answer that matches its schema; a 4xx is the service's own answer to a value that
 * may be semantically impossible), a schema-invalid one as a negative (refused with a documented 4xx). A
 * request the operation's media types do not include may be refused with 415, one asking for a media type no
 * answer declares with 406: a warning where the contract documents neither. A valid request that broke the server is shrunk (optional fields left out, varied values
 * put back) while it still fails; each finding is then shown with the smallest request that showed it.
 */
import { isSafeNumber, LosslessNumber, parse as parseLossless, stringify as losslessStringify } from 'lossless-json';
import { isDeepStrictEqual } from 'node:util';
import type { Exchange, Finding, HttpMethod, Operation } from '../../model.ts';
import { describeVariation, shrinkSteps, type Variation } from '../../plan/coverage.ts';
import { responseFor } from '../../description/load.ts';
import type { CaseRun } from '../case-run.ts';
import { judgedUnanswered, type JudgeInput, type Judgement } from '../judge.ts';
import { answerErrorText } from '../../checks/error-text.ts';
import { sameButMadeUp } from '../../plan/named-values.ts';
import { alignBodyToPath, type Doubts } from '../records/references.ts';
import { accepts } from '../../plan/accepts.ts';
import { hasBigInt, type CoverageRequest } from '../../plan/coverage-classes.ts';
import { requiredOnly } from '../../plan/cases.ts';
import type { CallRequest } from '../request-builder.ts';
import { locationOf } from '../../plan/input-location.ts';

/**
 * One request of the coverage phase (plan/coverage-classes.ts); a shrinking step has no class of its own.
 */
export type CoverageItem = Omit<CoverageRequest, 'class'> & {
  class?: string;
  /** Sent with another method than the operation's: judged by the unsupported-method check alone. */
  method?: HttpMethod;
  unsupportedMethod?: JudgeInput['unsupportedMethod'];
};

/**
 * Whether the operation documents how it refuses invalid input (a 4xx other than 401, 403 and 404, a 4XX range
 * or a default): then an invalid request is held to it; otherwise any 4xx refuses it correctly.
 */
function documentsRefusal(op: Operation): boolean {
  return op.responses.some((r) => r.status === 'default' || r.status.toUpperCase() === '4XX' || (/^4\d\d$/.test(r.status) && !['401', '403', '404'].includes(r.status)));
}

/** The classes that change the body as a whole or its media type: a 415 is a right refusal of each. */
const BODY_CLASSES = new Set(['not-utf8', 'undeclared-media-type', 'malformed-json', 'empty-body', 'non-object-body', 'null-body', 'wrong-type-body']);

/** Requests a shrinking may send for one failure. */
const SHRINK_BUDGET = 25;

export interface CoverageOutcome {
  sent: number;
  /** Exchanges that showed an error, with the request that made each (for the replay). */
  failing: Exchange[];
}

function isServerError(e: Exchange): boolean {
  return e.response !== undefined && e.response.status >= 500;
}

/** The request with the JSON value its raw body holds (integers beyond 2^53 kept exact), to say what it names. */
function sentBody(request: CallRequest): CallRequest {
  if (request.rawBody === undefined || request.rawBodyEncoding !== undefined) return request;
  const body = parseExact(request.rawBody);
  return body === undefined ? request : { ...request, body };
}

/** The request of an item: the positive request with the item's overrides. */
export function itemRequest(op: Operation, base: CallRequest, item: CoverageItem): CallRequest {
  const out: CallRequest = { ...base };
  if (item.pathParams) {
    out.pathParams = { ...(base.pathParams ?? {}), ...item.pathParams };
    // The body's field of the same name follows the path: the request still names one record.
    if (item.body === undefined && item.rawBody === undefined) out.body = alignBodyToPath(op, base.body, item.pathParams);
  }
  // Segments sent as they are (plan/path-classes.ts): the body keeps its value (no record is named).
  if (item.rawPathParams) out.rawPathParams = { ...(base.rawPathParams ?? {}), ...item.rawPathParams };
  if (item.query) out.query = item.query;
  if (item.headers) out.headers = { ...(base.headers ?? {}), ...item.headers };
  if (item.cookies) out.cookies = { ...(base.cookies ?? {}), ...item.cookies };
  if (item.noBody) {
    out.noBody = true;
    delete out.body;
  } else if (item.rawBody !== undefined) {
    out.rawBody = item.rawBody;
    if (item.rawBodyEncoding) out.rawBodyEncoding = item.rawBodyEncoding;
    delete out.body;
  } else if (item.body !== undefined) out.body = item.body;
  if (item.contentType !== undefined) out.contentType = item.contentType;
  if (item.method !== undefined) out.method = item.method;
  out.location = locationOf(item);
  return out;
}

/** The doubts of a valid request with one more reason its refusal may be right. */
/** Whether a refusal says that a value is taken already: a 409, or its own error text (`has already been taken`, `exists`). */
function saysTaken(exchange: Exchange): boolean {
  const response = exchange.response;
  if (!response) return false;
  if (response.status === 409) return true;
  const text = answerErrorText(response.json, response.body, response.headers['content-type']);
  return text !== undefined && /\b(taken|exists?|already|unique|duplicate|in use|conflict)/i.test(text);
}

function withReason(doubted: ReturnType<Doubts>, reason: string | undefined): ReturnType<Doubts> {
  return reason === undefined ? doubted : { ...doubted, unshown: [...(doubted.unshown ?? []), reason] };
}

/**
 * mustRefuseOnly: the items are all requests a correct deployment must refuse, and the operation's valid request
 * may not be sent (an irreversible side effect): no request unvaried, no re-send on a smaller valid request.
 */
export async function runCoverage(
  run: CaseRun,
  base: CallRequest & { query: Record<string, unknown> },
  items: CoverageItem[],
  doubts: Doubts = () => ({}),
  options: { mustRefuseOnly?: boolean } = {},
): Promise<CoverageOutcome> {
  const pass = new CoveragePass(run, base, doubts, options);
  for (const item of items) await pass.sendItem(item);
  await pass.resendRefusedQueries();
  await pass.resendFailedBodies();
  if (pass.last) run.keep(pass.last);
  return { sent: pass.sent, failing: pass.failing };
}

/** The state of one coverage phase: its requests sent and judged, the re-sends they call for, what stays with the case. */
class CoveragePass {
  sent = 0;
  readonly failing: Exchange[] = [];
  // Only the evidence of a defect (kept by the judge) and the last exchange stay with the case: a phase of a
  // hundred requests holds no more than that in memory.
  last: Exchange | undefined;
  // Whether the request without any variation breaks the server too (sent once, at the first server error): then
  // no variation is what broke it, and none is named as the broken part.
  private unvaried: boolean | undefined;
  // The request without any variation, sent at most once: whether it breaks the server, and whether it is refused
  // (the re-sends below).
  private plainAnswer: Promise<Exchange> | undefined;
  private baseNames: Set<string> | undefined;
  // Query variations refused (4xx): sent again without the optional query parameters if the request they vary is
  // itself refused, so that one parameter's refusal does not hide what another breaks.
  private readonly refusedQuery: CoverageItem[] = [];
  // Body variations answered as the body they vary is (a server error, a refusal): sent again on the body without
  // its optional fields where that one is taken, so that one optional field's fault does not hide the others'.
  private readonly failedBody: CoverageItem[] = [];
  private readonly op: Operation;

  constructor(
    private readonly run: CaseRun,
    private readonly base: CallRequest & { query: Record<string, unknown> },
    private readonly doubts: Doubts,
    private readonly options: { mustRefuseOnly?: boolean },
  ) {
    this.op = run.op;
  }

  // A connection that broke before any answer is sent once more by the session (Session.call).
  private async sendOnce(request: CallRequest): Promise<Exchange> {
    this.sent++;
    return this.run.send(this.op, request, { intent: true, keep: false });
  }

  private unvariedAnswer(): Promise<Exchange> {
    return (this.plainAnswer ??= this.sendOnce(this.base));
  }

  private async breaksUnvaried(): Promise<boolean> {
    if (this.options.mustRefuseOnly) return false;
    if (this.unvaried === undefined) {
      const plain = await this.unvariedAnswer();
      this.unvaried = isServerError(plain);
      if (this.unvaried) this.judgeItem(plain, { label: 'the request unvaried', valid: true } as CoverageItem, 'the request unvaried', this.base, true);
    }
    return this.unvaried;
  }

  // Whether the request without any variation was taken (2xx): then what it names (a made-up id, an owner) is no
  // reason for a variation of it to be refused.
  private async unvariedTaken(): Promise<boolean> {
    const status = (await this.unvariedAnswer()).response?.status;
    return status !== undefined && status >= 200 && status < 300;
  }

  /**
   * The doubts of a valid request: where it was refused naming something the run did not get, less the names the
   * request without the variation also sends, if that one was taken (asked at most once per case).
   */
  private async doubtsOf(request: CallRequest, refused: boolean): Promise<ReturnType<Doubts>> {
    const found = this.doubts(sentBody(request));
    if (!refused || found.madeUpReferences === undefined) return found;
    // What the request without the variation names, as the run knew it before asking (its answer may teach the pool).
    this.baseNames ??= new Set(this.doubts(sentBody(this.base)).madeUpReferences ?? []);
    if (!(await this.unvariedTaken())) return found;
    const { madeUpReferences, ...rest } = found;
    const left = madeUpReferences.filter((name) => !this.baseNames!.has(name));
    return left.length > 0 ? { ...rest, madeUpReferences: left } : rest;
  }

  private judgeItem(exchange: Exchange, item: CoverageItem, label: string, request: CallRequest, shared = false, doubted?: ReturnType<Doubts>): Judgement {
    const { run, op } = this;
    this.last = exchange;
    if (exchange.response === undefined && !judgedUnanswered(exchange)) {
      run.unanswered(exchange);
      return { outcome: 'errored', checks: [], findings: [] };
    }
    const adjust =
      item.class !== undefined && BODY_CLASSES.has(item.class) ? (j: Judgement) => softenUndocumented(op, exchange, j, 415)
      : item.class === 'accept-undeclared' ? (j: Judgement) => softenUndocumented(op, exchange, j, 406)
      : item.class === 'malformed-content-type' ? (j: Judgement) => softenUndocumented(op, exchange, softenUndocumented(op, exchange, j, 415), 400)
      : notAUri(item) ? (j: Judgement) => softenHttpLayer(exchange, j)
      : undefined;
    const coverage = { label, sent: this.sent, ...(shared ? { unvaried: true } : {}), ...(item.judgeAs === 'response' && !item.unsupportedMethod ? { unsettled: true } : {}) };
    // A valid request must be taken (positive-data-accepted), unless its refusal can depend on stored data or on a
    // rule the contract does not show.
    const judgement = item.unsupportedMethod
      ? run.judgeIntent(exchange, { intent: 'unsupported-method', unsupportedMethod: item.unsupportedMethod })
      : item.judgeAs === 'response'
      ? run.judgeResponse(exchange, { coverage }, adjust)
      : item.valid
      ? run.judgeIntent(exchange, { intent: 'success', coverage, ...withReason(doubted ?? this.doubts(sentBody(request)), item.refusalMayBeRight ?? (item.refusalIfTaken !== undefined && saysTaken(exchange) ? item.refusalIfTaken : undefined)) }, adjust)
      : run.judgeIntent(exchange, { intent: 'rejected', coverage, anyClientError: !documentsRefusal(op), ...(item.class !== undefined ? { inputClass: item.class } : {}) }, adjust);
    if (judgement.findings.some((f) => f.severity === 'error')) this.failing.push(run.kept(exchange));
    return judgement;
  }

  /** One planned item sent and judged; noted for a re-send, or shrunk where a valid one broke the server. */
  async sendItem(item: CoverageItem): Promise<void> {
    const { op, base, options } = this;
    const request = itemRequest(op, base, item);
    const exchange = await this.sendOnce(request);
    const shared = isServerError(exchange) && (await this.breaksUnvaried());
    const doubted = item.valid && item.judgeAs === undefined ? await this.doubtsOf(request, isClientError(exchange)) : undefined;
    // A valid variation refused where the request without it is refused too: the variation is not named as the cause.
    const refusedAlike = item.valid && item.judgeAs === undefined && !options.mustRefuseOnly && isClientError(exchange) && !(await this.unvariedTaken());
    this.judgeItem(exchange, item, item.label, request, shared || refusedAlike, doubted);
    if (!options.mustRefuseOnly && isQueryOnly(item) && isClientError(exchange)) this.refusedQuery.push(item);
    if (!options.mustRefuseOnly && isBodyOnly(item) && (shared || isClientError(exchange))) this.failedBody.push(item);
    if (shared || !item.valid || !isServerError(exchange) || (item.pathParams ?? item.headers ?? item.cookies ?? item.rawBody ?? item.noBody) !== undefined) return;
    await this.shrink(item);
  }

  /** Shrink a server error of a valid body or query variation: the first smaller request that still fails. */
  private async shrink(item: CoverageItem): Promise<void> {
    const { op, base } = this;
    let current: Variation = { label: item.label, ...(item.body !== undefined ? { body: item.body } : {}), ...(item.query ? { query: item.query } : {}) };
    let budget = SHRINK_BUDGET;
    for (let improved = true; improved && budget > 0; ) {
      improved = false;
      for (const step of shrinkSteps(op, current, { body: base.body, query: base.query })) {
        // A step must still be valid (left out only what no rule needs): else its refusal is right.
        if (step.body !== undefined && op.requestBody && accepts(op.requestBody.schema, step.body) === false) continue;
        if (budget-- <= 0) break;
        const label = describeVariation(step, { body: base.body, query: base.query });
        const stepRequest = itemRequest(op, base, { ...step, label, valid: true });
        const tried = await this.sendOnce(stepRequest);
        this.judgeItem(tried, { ...step, label, valid: true }, label, stepRequest);
        if (isServerError(tried)) {
          current = step;
          improved = true;
          break;
        }
      }
    }
  }

  /** The refused query variations sent again without the optional query parameters, where the request with them is refused. */
  async resendRefusedQueries(): Promise<void> {
    const { op, base } = this;
    const minimal = requiredQuery(op, base.query);
    if (this.refusedQuery.length > 1 && Object.keys(minimal).length < Object.keys(base.query).length) {
      const plain = await this.unvariedAnswer();
      this.last = plain;
      // Only where the request without its optional query parameters is taken: else no variation is what is refused.
      const minimalTaken = isClientError(plain) && is2xx(await this.sendOnce({ ...base, query: minimal, location: 'query' }));
      if (minimalTaken) {
        // Those most likely to break a server first.
        for (const item of [...this.refusedQuery].sort((a, b) => breakingRank(a) - breakingRank(b)).slice(0, REBASED_LIMIT)) {
          const query = rebased(item.query!, base.query, minimal);
          if (query === undefined) continue;
          const label = `${item.label}, the optional query parameters left out (the request with them is refused: ${plain.response!.status})`;
          const request = itemRequest(op, { ...base, query }, { ...item, query, label });
          this.judgeItem(await this.sendOnce(request), { ...item, query, label }, label, request);
        }
      }
    }
  }

  /** The failed body variations sent again on the body without its optional fields, where that one is taken. */
  async resendFailedBodies(): Promise<void> {
    const { op, base } = this;
    const minimalBody = this.failedBody.length > 0 && base.body !== undefined ? requiredOnly(op, base.body) : undefined;
    if (!minimalBody || !op.requestBody) return;
    const plain = await this.unvariedAnswer();
    this.last = plain;
    const fails = isServerError(plain) || isClientError(plain);
    const taken = fails ? await this.sendOnce({ ...base, body: minimalBody, location: 'body' }) : undefined;
    if (taken) this.last = taken;
    if (!(taken?.response && taken.response.status >= 200 && taken.response.status < 300)) return;
    for (const item of [...this.failedBody].sort((a, b) => breakingRank(a) - breakingRank(b)).slice(0, REBASED_LIMIT)) {
      const varied = item.body !== undefined ? item.body : parseExact(item.rawBody as string);
      const body = isRecord(varied) && isRecord(base.body) ? rebased(varied, base.body, minimalBody) : undefined;
      // Its validity must not change with the fields left out (a field another one depends on).
      if (body === undefined || accepts(op.requestBody.schema, body) === !item.valid) continue;
      const label = `${item.label}, the optional body fields left out (the body with them is answered ${plain.response?.status ?? plain.error?.message})`;
      const over = hasBigInt(body) ? { rawBody: losslessStringify(body) as string, ...(item.contentType ? { contentType: item.contentType } : {}) } : { body };
      const rebasedItem: CoverageItem = { ...item, ...over, label };
      if (!('rawBody' in over)) delete rebasedItem.rawBody;
      const request = itemRequest(op, base, rebasedItem);
      this.judgeItem(await this.sendOnce(request), rebasedItem, label, request);
    }
  }
}

/** Where an item's class stands among those most likely to break a server (BREAKING; unlisted last). */
function breakingRank(item: CoverageItem): number {
  return item.class === undefined ? BREAKING.length : BREAKING.indexOf(item.class) + 1 || BREAKING.length;
}

/** JSON with numbers as numbers where a double holds them exactly, else as LosslessNumber; undefined if it is no JSON. */
function parseExact(text: string): unknown {
  try {
    return parseLossless(text, null, (value) => (isSafeNumber(value) ? Number(value) : new LosslessNumber(value)));
  } catch {
    return undefined;
  }
}

/** An item that varies the JSON body alone (one of its fields: not the whole body, its media type or encoding). */
function isBodyOnly(item: CoverageItem): boolean {
  if (item.method !== undefined || (item.pathParams ?? item.headers ?? item.cookies ?? item.noBody ?? item.query ?? item.rawBodyEncoding) !== undefined) return false;
  if (item.class !== undefined && (BODY_CLASSES.has(item.class) || item.class === 'malformed-content-type')) return false;
  return isRecord(item.body) || (item.rawBody !== undefined && item.rawBody.startsWith('{'));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Query variations sent again on the request without optional query parameters, at most. */
const REBASED_LIMIT = 40;
/** The classes of input that break servers most often, in that order. */
const BREAKING = ['beyond-int64', 'identifier-like', 'bound', 'unicode', 'wrong-type', 'invalid-format'];

/** A refusal of the input: a 4xx other than those of credentials, of a missing route or record, and of rate. */
function isClientError(e: Exchange): boolean {
  const status = e.response?.status;
  return status !== undefined && status >= 400 && status < 500 && ![401, 403, 404, 405, 429].includes(status);
}

/** An item that varies the query alone. */
function isQueryOnly(item: CoverageItem): boolean {
  return item.query !== undefined && item.method === undefined && (item.pathParams ?? item.headers ?? item.cookies ?? item.body ?? item.rawBody ?? item.noBody ?? item.contentType) === undefined;
}

/** The query with only the parameters the operation requires. */
function requiredQuery(op: Operation, query: Record<string, unknown>): Record<string, unknown> {
  const required = new Set(op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => p.name));
  return Object.fromEntries(Object.entries(query).filter(([name]) => required.has(name)));
}

/**
 * The item's query or body variation over the minimal one (the required parameters or fields): the names it sets
 * differently from the base; undefined where it varies none, or where that is the item's own request.
 */
function rebased(varied: Record<string, unknown>, base: Record<string, unknown>, minimal: Record<string, unknown>): Record<string, unknown> | undefined {
  // A field whose made-up text alone was drawn afresh (each variation of a write has its own) is no change.
  const changed = Object.entries(varied).filter(([name, value]) => !sameButMadeUp(value, base[name]));
  const dropped = Object.keys(base).filter((name) => !(name in varied) && name in minimal);
  if (changed.length === 0 && dropped.length === 0) return undefined;
  const out = { ...minimal, ...Object.fromEntries(changed) };
  for (const name of dropped) delete out[name];
  return isDeepStrictEqual(out, varied) ? undefined : out;
}

/**
 * A 415 to a body the operation cannot take (a media type it does not declare, no body, not JSON), a 406 to an
 * Accept no answer declares, a 400 or 415 to a malformed Content-Type, is a right refusal; where the contract
 * documents no such status for the operation, leaving it out is a warning, not an error (users rarely document
 * them).
 */
/** A path segment with a `%` that starts no escape (`%ZZ`): the request-target is no URI (RFC 3986), whatever the API. */
function notAUri(item: CoverageItem): boolean {
  return Object.values(item.rawPathParams ?? {}).some((raw) => /%(?![0-9A-Fa-f]{2})/.test(raw));
}

/**
 * A request whose target is no URI may be refused by the HTTP server before the API sees it (Go's net/http answers
 * `400 Bad Request` as text/plain): a 4xx answer's media type and body are then the server's, not the API's, and a
 * finding about them is a warning. Its status is judged as any answer's.
 */
function softenHttpLayer(exchange: Exchange, judgement: Judgement): Judgement {
  const status = exchange.response?.status ?? 0;
  if (status < 400 || status >= 500) return judgement;
  const layer = new Set(['content-type-conformance', 'response-schema-conformance', 'error-envelope-conformance', 'response-headers-conformance']);
  const findings = judgement.findings.map((f) => (layer.has(f.check) && f.severity === 'error' ? { ...f, severity: 'warning' as const, message: `${f.message} The request's path is no URI (a % that starts no escape): the HTTP server may refuse it before the API.` } : f));
  const failed = findings.some((f) => f.severity === 'error');
  return { ...judgement, findings, outcome: judgement.outcome === 'failed' && !failed ? 'passed' : judgement.outcome };
}

export function softenUndocumented(op: Operation, exchange: Exchange, judgement: Judgement, status: 400 | 406 | 415): Judgement {
  if (exchange.response?.status !== status || responseFor(op, status)) return judgement;
  const soften = (f: Finding): Finding => (f.check === 'status-code-conformance' || f.check === 'negative-data-rejected' ? { ...f, severity: 'warning' } : f);
  const findings = judgement.findings.map(soften);
  const failed = findings.some((f) => f.severity === 'error');
  return { ...judgement, findings, outcome: judgement.outcome === 'failed' && !failed ? 'passed' : judgement.outcome };
}

function is2xx(exchange: Exchange): boolean {
  const status = exchange.response?.status ?? 0;
  return status >= 200 && status < 300;
}
