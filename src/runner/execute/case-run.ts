/**
 * One case as it runs: every call it makes goes through `send`, and every answer is judged there by the one
 * judge (execute/judge.ts). The case's own operation's answers gather in its Evidence; a call of another
 * operation (a record made first, a read-back, a related read) is judged for that operation, as a setup
 * finding of it (Session.side). The call the case is about is judged again with its intent (`judgeIntent`).
 */
import { CHECKS } from '../checks/registry.ts';
import { capResponse } from '../report/assemble.ts';
import { toCurl } from '../report/curl.ts';
import type { CaseResult, Exchange, Finding, LocationCounts, Operation, SkipKind } from '../model.ts';
import { caseLocation, count, summed } from '../plan/input-location.ts';
import type { PlannedCase } from '../plan/cases.ts';
import { Evidence, judge, type JudgeInput, type JudgeNote, type Judgement } from './judge.ts';
import type { CallRequest } from './request-builder.ts';

/** What a case needs of the session. */
export interface CaseHost {
  call(op: Operation, request: CallRequest): Promise<Exchange>;
  judgeInput(op: Operation): Pick<JudgeInput, 'profile' | 'validator' | 'timeoutMs'>;
  /** Judges an answer of an operation that a case of another operation called (`note`: before each finding's message). */
  side(op: Operation, exchange: Exchange, more?: Finding[], extra?: Pick<JudgeInput, 'note'>): void;
}

export class CaseRun {
  /** Every exchange of the case, in the order sent (the reproduction replays them). */
  readonly exchanges: Exchange[] = [];
  readonly evidence = new Evidence();
  private readonly started = performance.now();
  /** Requests sent so far. */
  private sent = 0;
  /** Those requests by the location of the input each varies (plan/input-location.ts). */
  private readonly byLocation: LocationCounts = {};
  /** The requests behind the exchanges (to send one again alone). */
  private readonly requests = new WeakMap<Exchange, { op: Operation; request: CallRequest }>();
  /** The POST and PUT requests the case sent (their records are settled when it is done). */
  readonly writes: Array<Exchange['request']> = [];
  /** The kept copy of each exchange whose answer was cut (one copy however often it is kept). */
  private readonly keptCopies = new WeakMap<Exchange, Exchange>();
  /** Exchanges judged with their intent: their response conformance is part of that judgement. */
  private readonly withIntent = new WeakSet<Exchange>();
  /** Exchanges already judged for response conformance (an intent judgement of one adds only its intent). */
  private readonly responseJudged = new WeakSet<Exchange>();
  /** What each exchange judged with its intent was judged with (its replay is judged the same way). */
  private readonly intents = new WeakMap<Exchange, Partial<JudgeInput>>();
  /** The call the case is about got no answer (a network error): the case is errored whatever else passed. */
  private mainError: string | undefined;
  /** What the case's setup did that its result says (CaseResult.notes), each once. */
  private readonly notes: string[] = [];

  constructor(
    private readonly host: CaseHost,
    readonly planned: PlannedCase,
    readonly op: Operation,
  ) {}

  /**
   * Sends one call. An answer of the case's own operation is judged for response conformance unless the
   * caller judges it with its intent (`intent: true`); another operation's answer is that operation's. `note` says
   * what came before the call that its findings name (put before their messages), or makes that of the answer.
   */
  async send(op: Operation, request: CallRequest, options: { intent?: boolean; keep?: boolean; note?: JudgeNote | ((exchange: Exchange) => JudgeNote) } = {}): Promise<Exchange> {
    const exchange = await this.host.call(op, request);
    this.sent++;
    // Another operation's call (a record made first, a read-back) varies nothing of this one.
    count(this.byLocation, request.location ?? (op.operationId === this.op.operationId ? caseLocation(this.planned) : 'none'));
    this.requests.set(exchange, { op, request });
    // The requests that may have made a record, kept or not: settled when the case is done (MadeRecords.settle).
    if (exchange.request.method === 'POST' || exchange.request.method === 'PUT') this.writes.push(exchange.request);
    // The case keeps its exchanges as a report shows them; the caller reads the whole answer it returns.
    if (options.keep !== false) this.exchanges.push(this.kept(exchange));
    const note = typeof options.note === 'function' ? options.note(exchange) : options.note;
    const noted = note !== undefined ? { note } : {};
    if (op.operationId !== this.op.operationId) this.host.side(op, exchange, [], noted);
    else if (!options.intent) this.judgeResponse(exchange, noted);
    return exchange;
  }

  /** Response conformance only (a variation, a read of the case's own operation). */
  judgeResponse(exchange: Exchange, extra: Partial<JudgeInput> = {}, adjust: (j: Judgement) => Judgement = (j) => j): Judgement {
    if (this.withIntent.has(exchange) || this.responseJudged.has(exchange)) return { outcome: 'passed', checks: [], findings: [] };
    this.responseJudged.add(exchange);
    return this.evidence.add(this.kept(exchange), adjust(judge({ operation: this.op, exchange, ...this.host.judgeInput(this.op), ...extra })));
  }

  /** The call the case is about, judged with what the case meant (and every response check). */
  judgeIntent(exchange: Exchange, extra: Partial<JudgeInput> = {}, adjust: (j: Judgement) => Judgement = (j) => j): Judgement {
    this.withIntent.add(exchange);
    this.intents.set(exchange, extra);
    const judgement = adjust(judge({
      operation: this.op,
      exchange,
      ...this.host.judgeInput(this.op),
      intent: this.planned.expectation,
      expect: this.planned.expect,
      ...(this.planned.anyClientError ? { anyClientError: true } : {}),
      ...(this.planned.inputClass ? { inputClass: this.planned.inputClass } : {}),
      ...extra,
    }));
    if (judgement.outcome === 'errored') this.mainError ??= judgement.errorMessage ?? 'no response';
    if (!this.responseJudged.has(exchange)) return this.evidence.add(this.kept(exchange), judgement);
    // Its response conformance was judged already: only what the intent adds.
    const intentOnly = (id: string) => CHECKS.get(id as never)?.scope === 'intent';
    return this.evidence.add(this.kept(exchange), { ...judgement, checks: judgement.checks.filter((c) => intentOnly(c.id)), findings: judgement.findings.filter((f) => intentOnly(f.check)) });
  }

  /**
   * The exchange as the evidence keeps it: its answer only as far as a report shows it (a case of a hundred
   * requests against a server answering megabytes holds no more); the request behind it stays known.
   */
  kept(exchange: Exchange): Exchange {
    if (!exchange.response) return exchange;
    const made = this.keptCopies.get(exchange);
    if (made) return made;
    const response = capResponse(exchange.response);
    if (response === exchange.response) return exchange;
    const copy = { ...exchange, response };
    const origin = this.requests.get(exchange);
    if (origin) this.requests.set(copy, origin);
    const intent = this.intents.get(exchange);
    if (intent) this.intents.set(copy, intent);
    this.keptCopies.set(exchange, copy);
    return copy;
  }

  /** Adds an exchange sent outside `send` (a probe, a repeat, the variation shown) to the case's own. */
  keep(exchange: Exchange): void {
    this.exchanges.push(this.kept(exchange));
  }

  /** The case's requests by location, for its result (nothing where it sent none). */
  private locations(): Pick<CaseResult, 'requestsByLocation'> {
    const counted = summed([this.byLocation]);
    return counted ? { requestsByLocation: counted } : {};
  }

  /** Says in the case's result what its setup did (a record made another way than asked). */
  note(...notes: string[]): void {
    for (const note of notes) if (!this.notes.includes(note)) this.notes.push(note);
  }

  /** A request the case needed got no answer (a network error): the case is errored unless a defect shows. */
  unanswered(exchange: Exchange): void {
    this.mainError ??= exchange.error?.message ?? 'no response';
  }

  /** What an exchange judged with its intent was judged with, beyond the case's own expectation. */
  intentOf(exchange: Exchange): Partial<JudgeInput> | undefined {
    return this.intents.get(exchange);
  }

  /** The request behind an exchange of this case (to send it again alone). */
  requestOf(exchange: Exchange): { op: Operation; request: CallRequest } | undefined {
    return this.requests.get(exchange);
  }

  /** The case result from what its exchanges showed; `over` sets the outcome of a case that did not run. */
  result(over: Partial<CaseResult> & { evidenceOnly?: boolean } = {}): CaseResult {
    const { evidenceOnly, ...rest } = over;
    const outcome = this.mainError !== undefined && !this.evidence.failing ? 'errored' : this.evidence.outcome();
    const errorMessage = outcome === 'errored' ? (this.mainError ?? this.evidence.errorMessage) : undefined;
    const exchanges = evidenceOnly && this.evidence.failing ? this.evidence.evidence() : this.exchanges;
    // A case of many requests reproduces the request behind its first error, not its last request.
    const shown = evidenceOnly ? this.evidence.firstFailing() : undefined;
    return {
      name: this.planned.name,
      kind: this.planned.kind,
      outcome,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
      checks: this.evidence.checkResults(),
      findings: this.evidence.findings(),
      exchanges,
      durationMs: Math.round(performance.now() - this.started),
      startedAt: this.started,
      requests: this.sent,
      ...this.locations(),
      ...(this.exchanges.some((e) => e.retries?.length) ? { retried: true } : {}),
      ...(shown ? { curl: toCurl(shown.request) } : {}),
      ...(this.notes.length > 0 ? { notes: [...this.notes] } : {}),
      ...rest,
    };
  }

  /** A case that could not go on, with why; what its own operation's answers showed so far still counts. */
  skipped(reason: string, kind: SkipKind = 'not-applicable'): CaseResult {
    if (this.evidence.failing) return this.result();
    return {
      name: this.planned.name,
      kind: this.planned.kind,
      outcome: 'skipped',
      skipReason: reason,
      skipKind: kind,
      checks: [],
      findings: [],
      exchanges: this.exchanges,
      durationMs: Math.round(performance.now() - this.started),
      startedAt: this.started,
      requests: this.sent,
      ...this.locations(),
      ...(this.exchanges.some((e) => e.retries?.length) ? { retried: true } : {}),
      ...(this.notes.length > 0 ? { notes: [...this.notes] } : {}),
    };
  }
}
