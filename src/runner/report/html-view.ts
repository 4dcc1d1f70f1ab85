/**
 * The HTML report's view model (report/html.ts renders it): the types the template reads, and the views of one
 * operation, its cases, findings and exchanges, computed here so the template only loops and prints.
 */
import { faultCodeOf } from '../checks/fault-codes.ts';
import type { CaseResult, CheckStatus, Exchange, Finding, OperationResult, Outcome, RunResults } from '../model.ts';
import { findingEvidence, type FailureGroup } from './failures.ts';
import { operationWithTexts } from './case-spool.ts';
import { blockingFindings, OUTCOMES, outcomeCountLabel } from './outcomes.ts';
import { bodyText, formatDuration, showValue } from './text.ts';

export const OUTCOME_LABELS: Record<Outcome, string> = {
  passed: 'passed',
  failed: 'failed',
  missing: 'missing',
  flaky: 'flaky',
  errored: 'errored',
  untested: 'untested',
  skipped: 'skipped',
  'not-described': 'not described',
};

const CHECK_RANK: Record<CheckStatus, number> = { failed: 4, warning: 3, waived: 2, passed: 1, skipped: 0 };

export interface BodyView {
  text: string;
  note?: string;
}

export interface ExchangeView {
  title: string;
  requestLine: string;
  requestHeaders: Array<[string, string]>;
  requestBody?: BodyView;
  responseStatus?: number;
  responseHeaders: Array<[string, string]>;
  responseBody?: BodyView;
  error?: string;
}

export interface FindingView {
  check: string;
  /** Its Web Fuzzing Commons fault code (checks/fault-codes.ts), where an error of its check proves one. */
  faultCode?: number;
  severity: string;
  /** failing | warning | info | waived: what the finding does to its case. */
  effect: 'failing' | 'warning' | 'info' | 'waived';
  message: string;
  request: string;
  expected?: string;
  actual?: string;
  schemaErrors: Array<{ instancePath: string; schemaPath: string; message: string; expected?: string; actual?: string }>;
  specLocation?: string;
  waived?: { reason: string; expires: string };
  /** An input of the lenient tier was accepted (a warning counted apart). */
  lenient?: true;
  /** The status its own exchange was answered. */
  answered?: number;
  /** The curl line of its own exchange, where it is not the case's (shown below the case). */
  curl?: string;
  curlId?: string;
  /** That request names a record the run made first (its line alone no longer answers as it did). */
  needsRecord?: true;
}

export interface CaseView {
  name: string;
  kind: string;
  outcome: string;
  duration: string;
  skipReason?: string;
  errorMessage?: string;
  /** What the case's setup did that a reader should know (CaseResult.notes). */
  notes?: string[];
  checks: Array<{ id: string; status: CheckStatus }>;
  findings: FindingView[];
  exchanges: ExchangeView[];
  curl?: string;
  curlId: string;
  /** The whole chain as a bash script (setup calls, the call, clean-up), when the case needed setup. */
  reproduction?: string;
  reproductionId: string;
}

export interface OperationView {
  anchor: string;
  operationId: string;
  method: string;
  path: string;
  service: string;
  group: string;
  outcome: Outcome;
  outcomeLabel: string;
  reason?: string;
  duration: string;
  open: boolean;
  search: string;
  cases: CaseView[];
  checks: Array<{ id: string; status: CheckStatus }>;
  findingCount: number;
  waivedCount: number;
  /** Unwaived warnings of the operation (the Problems filter shows operations that have any). */
  warningCount: number;
  /** Row chips: every case when there are few, else the cases that did not pass plus one "N passed" chip. */
  chips: Array<{ name: string; outcome: string }>;
  passedChip?: { count: number; names: string };
  skippedChip?: { count: number; names: string };
  /**
   * Passed and skipped cases with nothing more to show than their name (no finding, no exchange), one line
   * per outcome and reason: the page grows with what failed, not with the number of cases.
   */
  summaries: Array<{ outcome: string; count: number; names: string; reason?: string }>;
}

export interface GroupView {
  name: string;
  operations: OperationView[];
  counts: Array<{ outcome: Outcome; label: string; n: number }>;
}

export interface ReportView {
  title: string;
  csp: string;
  css: string;
  script: string;
  verdict: { value: RunResults['verdict']; label: string; explain: string };
  contract: RunResults['contract'];
  tool: RunResults['tool'];
  meta: Array<[string, string]>;
  targets: RunResults['target']['services'];
  embedded: boolean;
  coverage: string;
  counts: Array<{ outcome: Outcome; label: string; n: number }>;
  /** What the counts count: operations, or interactions in a pact run without operations. */
  countsOf: 'operations' | 'interactions';
  total: number;
  interrupted: boolean;
  groups: GroupView[];
  groupNames: string[];
  /** What failed, grouped by reason, with links to the operations. */
  failures: Array<FailureGroup & { rows: Array<FailureGroup['rows'][number] & { anchor: string; isNew?: boolean }>; total: number; more: number }>;
  /** With --baseline: the comparison line and what was fixed since. */
  baseline?: { line: string; fixed: NonNullable<RunResults['baseline']>['fixed']; newCount: number };
  failureCount: number;
  /** Pact runs without operations lead with the interactions and show no operations section. */
  pactOnly: boolean;
  pact?: {
    mode: string;
    counts: string;
    rows: Array<{
      consumer: string;
      provider: string;
      description: string;
      states: string[];
      operationId?: string;
      outcome: string;
      duration: string;
      pactFile: string;
      mismatches: Array<{ message: string; location?: string }>;
    }>;
  };
  expiredWaivers: RunResults['expiredWaivers'];
  waived: Array<{ operationId: string; caseName: string; check: string; reason: string; expires: string; anchor: string }>;
  /** Inputs of the lenient tier the deployment accepted (warnings counted apart), the first LENIENT_ROWS of them. */
  lenient: { rows: Array<{ operationId: string; caseName: string; what: string; anchor: string }>; cases: number; requests: number; operations: number; more: number };
  deploymentDiff?: NonNullable<RunResults['deploymentDiff']>;
  /** `--base-contract`: what the contract changes for the last release's clients (info changes left out). */
  compatibility?: {
    line: string;
    note: string;
    changes: NonNullable<RunResults['compatibility']>['changes'];
    /** The consumers' interactions that fail against the revision. */
    interactions: NonNullable<NonNullable<RunResults['compatibility']>['pacts']>['failures'];
  };
  /** The catalog's groups the contract describes no path of, asked at their prefixes. */
  catalogGroups?: NonNullable<RunResults['catalogGroups']>;
  /** Who could do what (--identity): the access table, each row with its operation's anchor. */
  access?: { identities: string[]; rows: Array<Omit<NonNullable<RunResults['access']>['rows'][number], 'lacking'> & { anchor: string; lacking?: string }> };
  slowest: Array<{ operationId: string; anchor: string; duration: string }>;
  /** Operation rows left as markers, to be rendered one by one (renderHtmlTo). */
  streamed?: boolean;
  /** The details of each operation are rendered in the browser from data in the page (a large run). */
  lazy?: boolean;
}

export function anchorFor(op: Pick<OperationResult, 'service' | 'operationId'>): string {
  return `op-${op.service}-${op.operationId}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** "2025-06-01T10:00:12.500Z" -> "2025-06-01 10:00:12 UTC"; other text unchanged. */
export function readableTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

function findingView(f: Finding, failOn: RunResults['failOn'], caseCurl?: string): FindingView {
  const effect: FindingView['effect'] = f.waived
    ? 'waived'
    : f.severity === 'error' || (f.severity === 'warning' && failOn === 'warning')
      ? 'failing'
      : f.severity === 'warning'
        ? 'warning'
        : 'info';
  const view: FindingView = {
    check: f.check,
    severity: f.severity,
    effect,
    message: f.message,
    request: `${f.method} ${f.path}`,
    schemaErrors: (f.schemaErrors ?? []).map((e) => {
      const evidence = findingEvidence({ ...f, schemaErrors: [e], expected: e.expected });
      const row: FindingView['schemaErrors'][number] = { instancePath: e.instancePath || '(root)', schemaPath: e.schemaPath, message: e.message };
      if (evidence.expected !== undefined) row.expected = evidence.expected;
      if (evidence.actual !== undefined) row.actual = evidence.actual;
      return row;
    }),
  };
  const faultCode = f.faultCode ?? faultCodeOf(f);
  if (faultCode !== undefined) view.faultCode = faultCode;
  if (f.expected !== undefined) view.expected = showValue(f.expected);
  if (f.actual !== undefined) view.actual = showValue(f.actual);
  if (f.specLocation) view.specLocation = f.specLocation;
  if (f.waived) view.waived = f.waived;
  if (f.lenient) view.lenient = true;
  if (f.request?.status !== undefined) view.answered = f.request.status;
  // Each finding reproduced by its own exchange: its line where the case's shows another request.
  if (f.curl !== undefined && f.curl !== caseCurl) {
    view.curl = f.curl;
    view.curlId = `curl-${++curlCounter}`;
  }
  if (f.needsRecord) view.needsRecord = true;
  return view;
}

function body(text: string | undefined, maxBytes: number, response?: Exchange['response']): BodyView | undefined {
  if (text === undefined || text === '') return undefined;
  const cut = bodyText(text, maxBytes, response);
  return cut.note ? { text: cut.text, note: cut.note } : { text: cut.text };
}

function exchangeView(e: Exchange, index: number, total: number, maxBytes: number): ExchangeView {
  const view: ExchangeView = {
    title: total > 1 ? `Exchange ${index + 1} of ${total} · ${formatDuration(e.durationMs)}` : `Exchange · ${formatDuration(e.durationMs)}`,
    requestLine: `${e.request.method} ${e.request.url}`,
    requestHeaders: Object.entries(e.request.headers),
    responseHeaders: e.response ? Object.entries(e.response.headers) : [],
  };
  const requestBody = body(e.request.body, maxBytes);
  if (requestBody) view.requestBody = requestBody;
  if (e.response) {
    view.responseStatus = e.response.status;
    const responseBody = body(e.response.body, maxBytes, e.response);
    if (responseBody) view.responseBody = responseBody;
  }
  if (e.error) view.error = `${e.error.kind}: ${e.error.message}`;
  return view;
}

function worstChecks(cases: CaseResult[]): Array<{ id: string; status: CheckStatus }> {
  const worst = new Map<string, CheckStatus>();
  for (const c of cases) {
    for (const check of c.checks) {
      const seen = worst.get(check.id);
      if (!seen || CHECK_RANK[check.status] > CHECK_RANK[seen]) worst.set(check.id, check.status);
    }
  }
  return [...worst].map(([id, status]) => ({ id, status }));
}

/** Numbers the page's curl and reproduction ids, from 1 for each report (resetCurlIds). */
let curlCounter = 0;

/** Starts a report's curl and reproduction ids afresh. */
export function resetCurlIds(): void {
  curlCounter = 0;
}

/** Above this many cases, a row shows only the cases that did not pass, and a count of the others. */
const MAX_CHIPS = 4;

/** A passed or skipped case with nothing more to show than its name, outcome and reason. */
function summaryOnly(c: CaseResult): boolean {
  return (c.outcome === 'passed' || c.outcome === 'skipped') && c.findings.length === 0 && c.exchanges.length === 0 && !c.errorMessage && !c.reproduction;
}

function caseSummaries(cases: CaseResult[]): OperationView['summaries'] {
  const lines = new Map<string, { outcome: string; names: string[]; reason?: string }>();
  for (const c of cases) {
    const key = `${c.outcome}\u0000${c.skipReason ?? ''}`;
    const line = lines.get(key) ?? { outcome: c.outcome, names: [], ...(c.skipReason ? { reason: c.skipReason } : {}) };
    line.names.push(c.name);
    lines.set(key, line);
  }
  return [...lines.values()].map((l) => ({ outcome: l.outcome, count: l.names.length, names: l.names.join(', '), ...(l.reason ? { reason: l.reason } : {}) }));
}

/** The view of an operation's row; `withCases` false: without the views of its cases (rendered later, see renderHtmlTo). */
export function operationView(given: OperationResult, results: RunResults, maxBytes: number, withCases = true): OperationView {
  // The cases' curl lines and reproduction scripts read back from the run's spool, one operation at a time.
  const op = operationWithTexts(given);
  const anchor = anchorFor(op);
  const cases = !withCases ? [] : op.cases.filter((c) => !summaryOnly(c)).map((c): CaseView => {
    const failing = new Set(blockingFindings(c, results.failOn));
    // Failing findings first, then warnings, waived and info, each in recorded order.
    const findings = [...c.findings.filter((f) => failing.has(f)), ...c.findings.filter((f) => !failing.has(f))];
    const view: CaseView = {
      name: c.name,
      kind: c.kind,
      outcome: c.outcome,
      duration: formatDuration(c.durationMs),
      checks: c.checks.map((k) => ({ id: k.id, status: k.status })),
      findings: findings.map((f) => findingView(f, results.failOn, c.curl)),
      exchanges: c.exchanges.map((e, i) => exchangeView(e, i, c.exchanges.length, maxBytes)),
      curlId: `curl-${++curlCounter}`,
      reproductionId: `repro-${curlCounter}`,
    };
    if (c.reproduction) view.reproduction = c.reproduction;
    if (c.skipReason) view.skipReason = c.skipReason;
    if (c.notes?.length) view.notes = c.notes;
    if (c.errorMessage) view.errorMessage = c.errorMessage;
    if (c.curl) view.curl = c.curl;
    return view;
  });
  const view: OperationView = {
    anchor,
    operationId: op.operationId,
    method: op.method ?? '',
    path: op.path ?? '',
    service: op.service,
    group: op.group,
    outcome: op.outcome,
    outcomeLabel: OUTCOME_LABELS[op.outcome],
    duration: op.outcome === 'not-described' ? '' : formatDuration(op.durationMs),
    open: op.outcome === 'failed' || op.outcome === 'missing' || op.outcome === 'errored' || op.outcome === 'flaky',
    search: [op.operationId, op.method ?? '', op.path ?? '', op.service, op.group].join(' ').toLowerCase(),
    cases,
    checks: [
      ...worstChecks(op.cases),
      // Read from a results.json of schemaVersion 2: the checks that passed are counted per operation.
      ...Object.keys(op.passedChecks ?? {})
        .filter((id) => !op.cases.some((c) => c.checks.some((k) => k.id === id)))
        .map((id) => ({ id, status: 'passed' as const })),
    ],
    findingCount: op.cases.reduce((n, c) => n + c.findings.length, 0),
    waivedCount: op.cases.reduce((n, c) => n + c.findings.filter((f) => f.waived).length, 0),
    warningCount: op.cases.reduce((n, c) => n + c.findings.filter((f) => !f.waived && f.severity === 'warning').length, 0),
    chips: op.cases.map((c) => ({ name: c.name, outcome: c.outcome })),
    summaries: caseSummaries(op.cases.filter(summaryOnly)),
  };
  if (op.cases.length > MAX_CHIPS) {
    const passed = op.cases.filter((c) => c.outcome === 'passed');
    const skipped = op.cases.filter((c) => c.outcome === 'skipped');
    view.chips = op.cases.filter((c) => c.outcome !== 'passed' && c.outcome !== 'skipped').map((c) => ({ name: c.name, outcome: c.outcome }));
    if (passed.length > 0) view.passedChip = { count: passed.length, names: passed.map((c) => c.name).join('\n') };
    if (skipped.length > 0) view.skippedChip = { count: skipped.length, names: skipped.map((c) => c.name).join('\n') };
  }
  if (op.reason) view.reason = op.reason;
  return view;
}

/** Operations per outcome, each count named as on the console (outcomeCountLabel). */
export function countsOf(ops: ReadonlyArray<{ outcome: Outcome; method: string | null; path: string | null }>): Array<{ outcome: Outcome; label: string; n: number }> {
  return OUTCOMES.map((outcome) => ({ outcome, label: outcomeCountLabel(outcome, ops), n: ops.filter((o) => o.outcome === outcome).length }));
}
