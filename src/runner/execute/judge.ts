/**
 * The one judge: every exchange of every case and phase goes through `judge`, which runs every response
 * conformance check and, where the case says what it meant, the intent checks of that expectation. A case
 * gathers the judgements of all its exchanges in `Evidence`: the same defect seen on many exchanges
 * (operation × check × status × schema location × cause, report/cause.ts) is one finding with its count, shown
 * with the smallest request that showed it (that exchange travels with the finding: its curl line is made from it).
 */
import { CHECKS, runChecks, runUnansweredChecks, statusOf } from '../checks/registry.ts';
import { SchemaCompileError, type SchemaValidator } from '../checks/schema.ts';
import type { CheckContext, RelatedRead } from '../checks/types.ts';
import { cutProbe } from '../checks/unsupported-method.ts';
import { ipDeniedReason } from './diagnose.ts';
import { ownCredentialOf } from './own-credential.ts';
import { unavailableReason } from './repeat.ts';
import { boundedFinding, RECORDED_BODY_CAP } from '../report/assemble.ts';
import { causeKey } from '../report/cause.ts';
import type { CaseOutcome, CaseResult, CheckResult, Exchange, Finding, Operation, RecordedResponse } from '../model.ts';
import type { Expectation_ } from '../plan/cases.ts';
import type { Expectation } from '../description/examples.ts';
import { responseFor } from '../description/load.ts';
import type { Profile } from '../description/profile.ts';

export type Answered = Exchange & { response: RecordedResponse };

export function answered(e: Exchange): e is Answered {
  return e.response !== undefined;
}

/** An exchange answered with a success (2xx). */
export function is2xx(e: Exchange): e is Answered {
  return e.response !== undefined && e.response.status >= 200 && e.response.status < 300;
}

/**
 * Whether an exchange without an answer is judged all the same (a request that hung past --timeout, a connection
 * the server cut on this request alone: the service's doing), rather than leaving its case errored.
 */
export function judgedUnanswered(e: Exchange): boolean {
  return e.response === undefined && (e.error?.kind === 'timeout' || e.error?.kind === 'dropped');
}

/** What the judge needs to judge one exchange. */
export interface JudgeInput {
  operation: Operation;
  profile: Profile;
  validator: SchemaValidator;
  exchange: Exchange;
  /** What the case meant by this request (its intent checks run); absent: response conformance only. */
  intent?: Expectation_;
  expect?: Expectation[];
  lifecycle?: CheckContext['lifecycle'];
  reads?: RelatedRead[];
  secrets?: string[];
  caseExchanges?: Exchange[];
  unknownRoute?: CheckContext['unknownRoute'];
  coverage?: CheckContext['coverage'];
  anyClientError?: boolean;
  unsupportedMethod?: CheckContext['unsupportedMethod'];
  madeUpReferences?: string[];
  unshown?: string[];
  gone?: string[];
  timeoutMs?: number;
  /** The input class of an invalid request (its tier: plan/input-tiers.ts). */
  inputClass?: string;
  /** Bytes of an answer the client reads (--max-body-size): what a longer body was judged on. */
  bodyCapBytes?: number;
  /** An access case: who called, and what the run knows of the record and the caller (execute/phases/access.ts). */
  access?: CheckContext['access'];
  /** A PUT sent twice alike: the first call and the reads after each (execute/phases/stateful.ts runSequences). */
  repeat?: CheckContext['repeat'];
  /** A create's Location followed (execute/follow-location.ts). */
  location?: CheckContext['location'];
  /** A list paged through (execute/phases/paging.ts). */
  paging?: CheckContext['paging'];
  /** A write sent properties it must not set, and the record after it (execute/phases/mass-assignment.ts). */
  massAssignment?: CheckContext['massAssignment'];
  /** What the case did before this request that its findings name (a write the read shows). */
  note?: JudgeNote;
}

/** What a case did before a request that the findings of its answer name (execute/phases/edge-writes.ts). */
export interface JudgeNote {
  /** Put before each finding's message. */
  text: string;
  /** Where the answer shows what the note names (JSON pointers: a record in a list): a schema error elsewhere goes without it. */
  within?: string[];
}

/** Whether a finding is about what a note names: any finding without a schema error, else one whose first error lies within. */
function noted(f: Finding, note: JudgeNote): boolean {
  const path = f.schemaErrors?.[0]?.instancePath;
  return path === undefined || note.within === undefined || note.within.some((p) => path === p || path.startsWith(`${p}/`));
}

/** One exchange judged: passed, failed, missing (the route is unknown) or errored (the tool or the network). */
export interface Judgement {
  outcome: Exclude<CaseOutcome, 'skipped' | 'flaky'>;
  checks: CheckResult[];
  findings: Finding[];
  errorMessage?: string;
}

/** "<file>#<pointer>" of the documented response for a status (what a tool error about its schema names). */
export function responseLocation(op: Operation, status: number): string {
  return `${op.specFile}#${responseFor(op, status)?.pointer ?? `${op.pointer}/responses`}`;
}

export function judge(input: JudgeInput): Judgement {
  if (input.note !== undefined) {
    const { note, ...rest } = input;
    const judged = judge(rest);
    return { ...judged, findings: judged.findings.map((f) => (noted(f, note) ? { ...f, message: `${note.text}: ${f.message}` } : f)) };
  }
  const { exchange, operation } = input;
  if (!answered(exchange)) return judgeUnanswered(input, exchange);
  const denied = ipDeniedReason(input.profile, exchange.response.status, exchange.response.json);
  if (denied) return { outcome: 'errored', checks: [], findings: [], errorMessage: denied };
  let judged: ReturnType<typeof runChecks>;
  try {
    judged = runChecks(checkContextOf(input, exchange));
  } catch (error) {
    // The tool cannot judge this response (e.g. a schema ajv cannot compile): not the service's fault.
    if (error instanceof SchemaCompileError) {
      return { outcome: 'errored', checks: [], findings: [], errorMessage: `${responseLocation(operation, exchange.response.status)}: ${error.message}` };
    }
    throw error;
  }
  return verdictOf(input, exchange, judged);
}

/** An exchange without an answer judged: a cut probe of an undocumented method, a timeout or drop, else errored. */
function judgeUnanswered(input: JudgeInput, exchange: Exchange): Judgement {
  const { operation } = input;
  // A method the contract does not document, cut without an answer: the check of that class says what it is.
  const cut = input.unsupportedMethod ? cutProbe(exchange, operation) : [];
  if (cut.length > 0) return { outcome: 'passed', checks: [{ id: 'unsupported-method', status: 'warning' }], findings: cut };
  const { checks, findings } = runUnansweredChecks({ exchange, operation, ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}), ...(input.coverage ? { coverage: input.coverage } : {}) });
  // A network failure is the network's (or the tool's), never the service's: nothing was judged.
  if (findings.length === 0) return { outcome: 'errored', checks: [], findings: [], errorMessage: exchange.error?.message ?? 'no response' };
  return { outcome: 'failed', checks, findings };
}

/** What the checks of an answered exchange are given: the judge's input, the parts it has. */
function checkContextOf(input: JudgeInput, exchange: Answered): CheckContext {
  return {
    exchange,
    operation: input.operation,
    profile: input.profile,
    validator: input.validator,
    ...(input.intent ? { expectation: input.intent } : {}),
    ...(input.expect ? { expect: input.expect } : {}),
    ...(input.lifecycle ? { lifecycle: input.lifecycle } : {}),
    ...(input.reads ? { reads: input.reads } : {}),
    ...(input.secrets ? { secrets: input.secrets } : {}),
    ...(input.caseExchanges ? { caseExchanges: input.caseExchanges } : {}),
    ...(input.unknownRoute ? { unknownRoute: input.unknownRoute } : {}),
    ...(input.coverage ? { coverage: input.coverage } : {}),
    ...(input.anyClientError ? { anyClientError: true } : {}),
    ...(input.unsupportedMethod ? { unsupportedMethod: input.unsupportedMethod } : {}),
    ...(input.madeUpReferences?.length ? { madeUpReferences: input.madeUpReferences } : {}),
    ...(input.gone?.length ? { gone: input.gone } : {}),
    ...(input.unshown?.length ? { unshown: input.unshown } : {}),
    ...(input.inputClass !== undefined ? { inputClass: input.inputClass } : {}),
    ...(input.bodyCapBytes !== undefined ? { bodyCapBytes: input.bodyCapBytes } : {}),
    ...(input.access ? { access: input.access } : {}),
    ...(input.repeat ? { repeat: input.repeat } : {}),
    ...(input.location ? { location: input.location } : {}),
    ...(input.paging ? { paging: input.paging } : {}),
    ...(input.massAssignment ? { massAssignment: input.massAssignment } : {}),
    ...(ownCredentialOf(exchange) ? { ownCredential: ownCredentialOf(exchange)! } : {}),
  };
}

/** The outcome of an answered exchange from what its checks found (a persisting 503, a large answer, an absent route). */
function verdictOf(input: JudgeInput, exchange: Answered, checked: ReturnType<typeof runChecks>): Judgement {
  let judged = checked;
  // A documented 503 that persisted: the deployment did not serve the request (its body is still held to its schema).
  const unavailable = unavailableReason(input.operation, exchange.response, input.profile);
  if (unavailable) {
    const findings = judged.findings.filter((f) => f.check !== 'not-a-server-error');
    if (!findings.some((f) => f.severity === 'error')) return { outcome: 'errored', checks: [], findings: [], errorMessage: unavailable };
    judged = { ...judged, findings };
  }
  // An answer larger than the reports keep: its findings bounded, holding nothing of the answer's text.
  if (exchange.response.size > RECORDED_BODY_CAP || exchange.response.body.length > RECORDED_BODY_CAP) judged = { ...judged, findings: judged.findings.map(boundedFinding) };
  const checks = [{ id: 'response-timeout' as const, status: 'passed' as const }, ...judged.checks.filter((c) => c.id !== 'response-timeout')];
  const absent = judged.findings.some((f) => f.check === 'operation-present' && f.severity === 'error');
  // A route the deployment does not serve says nothing about the operation's answers: only its absence counts.
  if (absent) return { outcome: 'missing', checks: checks.filter((c) => c.id === 'operation-present'), findings: judged.findings.filter((f) => f.check === 'operation-present') };
  const failed = judged.findings.some((f) => f.severity === 'error');
  return { outcome: failed ? 'failed' : 'passed', checks, findings: judged.findings };
}

/**
 * The key under which the same defect seen on many exchanges is one finding. Each kind of lenient input accepted is
 * a finding of its own (a few classes, plan/input-tiers.ts): what a deployment takes leniently is listed by kind;
 * each part of a request whose variation breaks the server is a server error of its own.
 */
function defectKey(f: Finding, status: number | undefined): string {
  return `${f.operationId}\u0000${causeKey(f, status)}`;
}

/**
 * The same response defect seen by several cases of one operation (an undocumented status, a schema violation
 * on every answer) is shown once: in full in the first case that saw it, with the count of all; a later case
 * that saw it too still fails on it (its own request showed it), with a short finding that points to the first
 * (`sameAs`) and says what its own evidence showed. Only the same finding folds: the same check, status, schema
 * location and cause (causeKey). Cases in their planned order.
 */
export function groupAcrossCases(cases: CaseResult[]): CaseResult[] {
  const counts = new Map<Finding, number>();
  const first = new Map<string, { finding: Finding; caseName: string }>();
  const out = cases.map((c) => {
    if (c.findings.length === 0) return c;
    // A case of many requests (coverage, fuzzing) keeps its own account of a defect: its smallest request.
    const single = c.kind !== 'coverage';
    const findings = c.findings.map((f) => {
      // A timeout stays with each case it ended: that case's request got no answer, so its intent never ran.
      if (f.waived || f.check === 'response-timeout' || CHECKS.get(f.check)?.scope !== 'response') return f;
      const key = causeKey(f);
      const shown = first.get(key);
      if (!shown || !single) {
        const own = { ...f };
        if (!shown) first.set(key, { finding: own, caseName: c.name });
        counts.set(own, f.count ?? 1);
        return own;
      }
      counts.set(shown.finding, (counts.get(shown.finding) ?? 1) + (f.count ?? 1));
      const { schemaErrors: _errors, count: _count, ...rest } = f;
      return { ...rest, sameAs: shown.caseName, message: `the same as in "${shown.caseName}": ${firstLine(f.message)}` };
    });
    return { ...c, findings };
  });
  return out.map((c) => ({ ...c, findings: c.findings.map((f) => ((counts.get(f) ?? 1) > 1 ? counted(f, counts.get(f) as number) : f)) }));
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').replace(/ \(seen on \d+ requests\)$/, '');
}

/** A finding seen on `count` requests: the count kept, and said in its message. */
function counted(f: Finding, count: number): Finding {
  const message = f.message.replace(/ \(seen on \d+ requests\)$/, '');
  return { ...f, count, message: `${message} (seen on ${count} requests)` };
}

/**
 * The exchange a finding of an Evidence comes from: it travels with the finding and every copy of it (an
 * enumerable symbol property: copied by spreads, never serialised), until the case's curl lines are made from it.
 */
const SHOWN_BY = Symbol('shown by');
type Shown = { [SHOWN_BY]?: Exchange };

/** The one exchange that showed this finding (undefined: a finding not gathered by an Evidence). */
export function shownBy(f: Finding): Exchange | undefined {
  return (f as Finding & Shown)[SHOWN_BY];
}

/** The finding without the exchange it came from. */
export function unshown(f: Finding): Finding {
  if (!(SHOWN_BY in f)) return f;
  const { [SHOWN_BY]: _exchange, ...rest } = f as Finding & Shown;
  return rest;
}

/** Size of a request, to pick the smallest one that shows a defect. */
function requestSize(e: Exchange): number {
  return e.request.url.length + (e.request.body?.length ?? 0);
}

const WORST: Record<CheckResult['status'], number> = { skipped: 0, passed: 1, waived: 2, warning: 3, failed: 4 };

interface Group {
  finding: Finding;
  exchange: Exchange;
  count: number;
  /** When its exchange was judged (to show the evidence in the order it was sent). */
  seq: number;
}

/**
 * What the exchanges of one case showed, gathered: each defect once (with its count and the smallest request
 * that showed it), each check's worst status, the exchanges that are evidence, and the case's outcome.
 */
export class Evidence {
  private readonly groups = new Map<string, Group>();
  private readonly checks = new Map<CheckResult['id'], CheckResult['status']>();
  private missing = false;
  private errored: string | undefined;
  private judged = 0;

  /** Adds one judged exchange. */
  add(exchange: Exchange, judgement: Judgement): Judgement {
    this.judged++;
    if (judgement.outcome === 'errored') this.errored ??= judgement.errorMessage ?? 'no response';
    if (judgement.outcome === 'missing') this.missing = true;
    for (const c of judgement.checks) {
      // The status follows the findings as they stand (a finding softened after the checks ran counts as such).
      const own = judgement.findings.filter((f) => f.check === c.id);
      const status = c.status === 'skipped' ? c.status : statusOf(own);
      const before = this.checks.get(c.id);
      if (before === undefined || WORST[status] > WORST[before]) this.checks.set(c.id, status);
    }
    for (const f of judgement.findings) {
      const key = defectKey(f, exchange.response?.status);
      const group = this.groups.get(key);
      if (!group) this.groups.set(key, { finding: f, exchange, count: 1, seq: this.judged });
      else {
        group.count++;
        if (requestSize(exchange) < requestSize(group.exchange)) {
          group.finding = f;
          group.exchange = exchange;
          group.seq = this.judged;
        }
      }
    }
    return judgement;
  }

  get size(): number {
    return this.judged;
  }

  get failing(): boolean {
    return this.missing || [...this.groups.values()].some((g) => g.finding.severity === 'error');
  }

  /** The groups, errors first and among them server errors first, else in the order they were seen. */
  private ordered(): Group[] {
    return [...this.groups.values()].sort((a, b) => severityRank(a.finding) - severityRank(b.finding) || serverErrorFirst(a.finding) - serverErrorFirst(b.finding));
  }

  /**
   * The findings, each with its count and the request that showed it (and that exchange itself, `shownBy`); errors
   * first (server errors first among them).
   */
  findings(): Finding[] {
    return this.ordered().map((g) => {
      const { method, url } = g.exchange.request;
      const status = g.exchange.response?.status;
      const shown: Finding & Shown = { ...g.finding, request: { method, url, ...(status !== undefined ? { status } : {}) } };
      const out: Finding & Shown = g.count > 1 ? counted(shown, g.count) : shown;
      out[SHOWN_BY] = g.exchange;
      return out;
    });
  }

  /** The exchanges that show the findings (the smallest request of each), in the order they were judged. */
  evidence(): Exchange[] {
    return [...new Set([...this.groups.values()].sort((a, b) => a.seq - b.seq).map((g) => g.exchange))];
  }

  /** The exchange that shows the first error (the one a reproduction replays), if any. */
  firstFailing(): Exchange | undefined {
    return this.ordered().find((g) => g.finding.severity === 'error')?.exchange;
  }

  checkResults(): CheckResult[] {
    return [...this.checks].map(([id, status]) => ({ id, status }));
  }

  /** The case's outcome from what was gathered: missing, failed, errored (nothing judged the service), passed. */
  outcome(): Exclude<CaseOutcome, 'skipped' | 'flaky'> {
    if (this.missing) return 'missing';
    if (this.failing) return 'failed';
    if (this.errored !== undefined && this.checks.size === 0) return 'errored';
    return 'passed';
  }

  get errorMessage(): string | undefined {
    return this.errored;
  }
}

function serverErrorFirst(f: Finding): number {
  // A connection closed without an answer (a crash) is a server error without a status.
  return f.check === 'not-a-server-error' || f.check === 'connection-dropped' ? 0 : 1;
}

function severityRank(f: Finding): number {
  return f.severity === 'error' ? 0 : f.severity === 'warning' ? 1 : 2;
}

export { statusOf };
