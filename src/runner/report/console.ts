/**
 * Console output: live progress while the run goes, and the closing summary.
 *
 * On a terminal (stream.isTTY, and neither NO_COLOR nor CI set) progress is one coloured line rewritten in
 * place with \r. Anywhere else (CI logs, pipes, files) it is plain lines without ANSI codes, one per 10 % of
 * the operations, so logs stay short. Quiet mode prints no progress at all; the caller still prints the
 * summary. Colour and layout belong here only: the results carry none.
 */
import type { Finding, OperationResult, RunResults } from '../model.ts';
import { baselineSummary } from './baseline.ts';
import { operationWithTexts } from './case-spool.ts';
import { causeKey } from './cause.ts';
import { findingEvidence } from './failures.ts';
import { blockingFindings, coverageText, OUTCOMES, outcomeCountLabel, unwaivedWarnings, verdictLine } from './outcomes.ts';
import { pactSummaryLines } from './pact-summary.ts';
import { formatDuration } from './text.ts';

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ConsoleOptions {
  /** Environment to read NO_COLOR / CI / FORCE_COLOR from. Default process.env. */
  env?: Record<string, string | undefined>;
  /** No progress output at all (the summary is printed by the caller). */
  quiet?: boolean;
}

/** True when output to this stream should be live and coloured. */
export function isInteractive(stream: Pick<ProgressStream, 'isTTY'>, env: Record<string, string | undefined> = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['CI'] !== undefined && env['CI'] !== '' && env['CI'] !== 'false') return false;
  return stream.isTTY === true;
}

/** True when progress can be live (rewritten in place): a terminal outside CI. NO_COLOR only removes colour. */
export function isLive(stream: Pick<ProgressStream, 'isTTY'>, env: Record<string, string | undefined> = process.env): boolean {
  if (env['CI'] !== undefined && env['CI'] !== '' && env['CI'] !== 'false') return false;
  return stream.isTTY === true;
}

const ESC = '\u001b[';
const colours = {
  red: (s: string): string => `${ESC}31m${s}${ESC}39m`,
  green: (s: string): string => `${ESC}32m${s}${ESC}39m`,
  yellow: (s: string): string => `${ESC}33m${s}${ESC}39m`,
  blue: (s: string): string => `${ESC}34m${s}${ESC}39m`,
  dim: (s: string): string => `${ESC}2m${s}${ESC}22m`,
  bold: (s: string): string => `${ESC}1m${s}${ESC}22m`,
};

type Painter = (s: string) => string;
const plain: Painter = (s) => s;
const paint = colours;
const noColours: typeof colours = { red: plain, green: plain, yellow: plain, blue: plain, dim: plain, bold: plain };

export class ConsoleProgress {
  private total = 0;
  private lastStep = -1;
  private live = false;
  private started = 0;
  private readonly interactive: boolean;
  private readonly color: boolean;
  private readonly quiet: boolean;

  constructor(
    private readonly stream: ProgressStream = process.stderr,
    options: ConsoleOptions = {},
  ) {
    this.interactive = isLive(stream, options.env ?? process.env);
    this.color = isInteractive(stream, options.env ?? process.env);
    this.quiet = options.quiet ?? false;
  }

  start(total: number): void {
    this.total = Math.max(0, total);
    this.lastStep = 0;
    this.started = Date.now();
    if (this.quiet) return;
    if (this.interactive) {
      this.live = true;
      this.draw(0, 0);
    } else {
      this.stream.write(`conformance: testing ${this.total} operation${this.total === 1 ? '' : 's'}\n`);
    }
  }

  update(done: number, failuresSoFar: number, current?: string): void {
    if (this.quiet) return;
    if (this.interactive) {
      this.draw(done, failuresSoFar, current);
      return;
    }
    // Plain: one line each time another 10 % of the operations is done (0 %..100 %), never more often.
    const step = this.total === 0 ? 10 : Math.min(10, Math.floor((done * 10) / this.total));
    if (step <= this.lastStep) return;
    this.lastStep = step;
    const pct = this.total === 0 ? 100 : Math.floor((Math.min(done, this.total) / this.total) * 100);
    this.stream.write(`progress: ${done}/${this.total} operations (${pct}%), ${failuresSoFar} failing\n`);
  }

  finish(): void {
    if (this.quiet) return;
    if (this.live) {
      this.stream.write(`\r${ESC}2K`);
      this.live = false;
    }
  }

  private draw(done: number, failures: number, current?: string): void {
    const paint = this.color ? colours : noColours;
    const width = 24;
    const ratio = this.total === 0 ? 1 : Math.min(1, done / this.total);
    const filled = Math.round(ratio * width);
    const bar = paint.green('█'.repeat(filled)) + paint.dim('░'.repeat(width - filled));
    const pct = `${String(Math.floor(ratio * 100)).padStart(3)}%`;
    const fails = failures > 0 ? paint.red(`${failures} failing`) : paint.green('0 failing');
    const elapsed = paint.dim(formatDuration(Date.now() - this.started));
    let line = `${bar} ${pct} ${done}/${this.total} · ${fails} · ${elapsed}`;
    if (current) {
      const room = Math.max(0, (this.stream.columns ?? 100) - visibleLength(line) - 4);
      if (room > 8) line += ` · ${paint.dim(current.length > room ? `${current.slice(0, room - 1)}…` : current)}`;
    }
    this.stream.write(`\r${ESC}2K${line}`);
  }
}

function visibleLength(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\u001b\[[0-9;]*m/g, '').length;
}

export interface ReportPaths {
  resultsJson?: string;
  junitXml?: string;
  html?: string;
}

const OUTCOME_PAINT: Record<string, keyof typeof paint> = {
  passed: 'green',
  failed: 'red',
  missing: 'red',
  flaky: 'red',
  errored: 'yellow',
  untested: 'yellow',
  skipped: 'dim',
  'not-described': 'dim',
};

function firstProblem(op: OperationResult, failOn: RunResults['failOn']): string | undefined {
  for (const c of op.cases) {
    const f = blockingFindings(c, failOn)[0];
    if (f) return `${c.name}: ${f.check}: ${f.message}${f.severity === 'warning' ? ' (a warning: --fail-on warning failed the run on it)' : ''}`;
  }
  for (const c of op.cases) {
    if (c.outcome === 'flaky') return `${c.name}: flaky: ${c.flaky ? `${c.flaky.failed} of ${c.flaky.attempts} identical attempts failed` : 'identical attempts disagreed'}`;
    if (c.outcome === 'errored') return `${c.name}: ${c.errorMessage ?? 'the tool or the network failed'}`;
    if (c.outcome === 'failed' || c.outcome === 'missing') return `${c.name}: ${c.errorMessage ?? c.outcome}`;
  }
  return op.reason;
}

/** "at /0/isMandatory expected {"type":"boolean"} got "yes"" for a finding, when it says. */
function evidenceOf(f: Finding): string | undefined {
  const e = findingEvidence(f);
  if (e.expected === undefined) return undefined;
  return `${e.at ? `at ${e.at} ` : ''}expected ${e.expected}${e.actual !== undefined ? ` got ${e.actual}` : ''}`;
}

/** Groups of an operation's failing findings listed on the console; the rest are counted ("and N more in index.html"). */
export const CONSOLE_CHECK_GROUPS = 5;

/**
 * One failing finding of an operation: the same check on the same status with the same cause (report/cause.ts),
 * however many cases and requests showed it; the first finding that showed it, its case, and how many requests did.
 */
interface CheckGroup {
  check: string;
  status?: number;
  first: { caseName: string; finding: Finding; curl?: string; reproduces: boolean };
  requests: number;
}

/** The status a finding's own exchange was answered, as the console says it. */
function statusOf(f: Finding): number | undefined {
  return f.request?.status ?? (typeof f.actual === 'number' && f.actual >= 100 && f.actual <= 599 ? f.actual : undefined);
}

/**
 * Every failing finding of an operation, grouped by check, status and cause, in the order the cases list them.
 * Each group's curl line is its first finding's own exchange's (never another case's or request's); a folded
 * finding (sameAs) is counted in the finding it points to already.
 */
function failingChecks(op: OperationResult, failOn: RunResults['failOn']): CheckGroup[] {
  const groups = new Map<string, CheckGroup>();
  for (const c of op.cases) {
    for (const f of blockingFindings(c, failOn)) {
      // Folded into an earlier case's finding (which counts it): that one's group shows it, whatever evidence the
      // folded one kept (results.json stores it without its schema errors).
      if (f.sameAs !== undefined && op.cases.some((other) => other !== c && other.name === f.sameAs)) continue;
      const status = statusOf(f);
      const key = causeKey(f, status);
      const group = groups.get(key);
      if (group) {
        if (f.sameAs === undefined) group.requests += f.count ?? 1;
        continue;
      }
      const curl = f.curl ?? c.curl;
      // The case's reproduction script replays the call of its first error: this finding's, where its line is the case's.
      const reproduces = c.reproduction !== undefined && curl !== undefined && curl === c.curl;
      groups.set(key, { check: f.check, ...(status !== undefined ? { status } : {}), first: { caseName: c.name, finding: f, ...(curl !== undefined ? { curl } : {}), reproduces }, requests: f.count ?? 1 });
    }
  }
  return [...groups.values()];
}

/** The console lines of a failing operation's findings: each group's finding, evidence, count and curl line, bounded. */
function failingCheckLines(given: OperationResult, failOn: RunResults['failOn'], dim: Painter): string[] {
  // The curl lines and reproduction scripts read back from the run's spool (the operation itself when none was left out).
  const op = operationWithTexts(given);
  const groups = failingChecks(op, failOn);
  if (groups.length === 0) {
    const first = firstProblem(op, failOn);
    return first ? [`           ${first.split('\n')[0]}`] : [];
  }
  const lines: string[] = [];
  for (const g of groups.slice(0, CONSOLE_CHECK_GROUPS)) {
    const f = g.first.finding;
    const warning = f.severity === 'warning' ? ' (a warning: --fail-on warning failed the run on it)' : '';
    lines.push(`           ${g.first.caseName}: ${f.check}: ${f.message.split('\n')[0]}${warning}`);
    const evidence = evidenceOf(f);
    if (evidence) lines.push(`           ${dim(evidence)}`);
    const shown = `${g.requests} request${g.requests === 1 ? '' : 's'}${g.status !== undefined ? ` answered ${g.status}` : ''}`;
    // A request on a record the run made (and deleted) answers otherwise alone: the line says so, and where the script is.
    const needs = f.needsRecord ? ` · needs a record the run made first${g.first.reproduces ? ' (the reproduction script in index.html and results.json makes it)' : ''}` : '';
    if (g.first.curl) lines.push(`           ${dim(`${shown}${needs} · ${g.first.curl}`)}`);
    else if (g.requests > 1) lines.push(`           ${dim(shown)}`);
  }
  const more = groups.length - CONSOLE_CHECK_GROUPS;
  if (more > 0) lines.push(`           ${dim(`and ${more} more failing finding${more === 1 ? '' : 's'} in index.html`)}`);
  return lines;
}

/** Skipped cases grouped by the kind of reason, with a reason's text and the operations it hit (bounded). */
function skippedLines(results: RunResults, c: Record<'yellow' | 'dim' | 'bold', Painter>): string[] {
  const groups = new Map<string, { kind: string; reasons: Set<string>; cases: number; operations: Set<string> }>();
  for (const op of results.operations) {
    if (op.outcome === 'not-described') continue;
    for (const k of op.cases) {
      if (k.outcome !== 'skipped') continue;
      const kind = k.skipKind ?? 'not-applicable';
      const group = groups.get(kind) ?? { kind, reasons: new Set<string>(), cases: 0, operations: new Set<string>() };
      group.cases++;
      if (k.skipReason) group.reasons.add(k.skipReason.split('\n')[0]!);
      group.operations.add(op.operationId);
      groups.set(kind, group);
    }
  }
  if (groups.size === 0) return [];
  const lines = ['', c.bold('Skipped cases, by reason:')];
  for (const g of [...groups.values()].sort((a, b) => b.cases - a.cases)) {
    const ops = [...g.operations];
    const named = ops.length > 6 ? `${ops.slice(0, 6).join(', ')} and ${ops.length - 6} more` : ops.join(', ');
    lines.push(`  ${c.yellow(String(g.cases).padStart(5))}  ${SKIP_KIND_TEXT[g.kind] ?? g.kind}: ${named}`);
    const reasons = [...g.reasons];
    if (reasons[0]) lines.push(`         ${c.dim(`e.g. ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} other reason${reasons.length === 2 ? '' : 's'})` : ''}`)}`);
  }
  return lines;
}

/** What each kind of skip means, in the words of the console. */
const SKIP_KIND_TEXT: Record<string, string> = {
  'read-only': 'not sent in a read-only run (--read-only)',
  irreversible: 'irreversible side effects (--allow-irreversible against a disposable deployment)',
  'otp-source': 'no one-time password source (--otp-source-url)',
  'no-producer': 'no operation of the contract makes the records they need',
  interrupted: 'not reached: the run was interrupted',
  missing: 'the operation is missing',
  unverified: 'the operation answers like an unknown route',
  'setup-failed': 'a setup call failed',
  'no-request': 'no request could be built',
  'max-failures': 'not run: --max-failures reached',
  'timed-out': 'the operation timed out twice',
  'target-down': 'the deployment stopped answering',
  'credential-refused': "the run's credential for the security scheme was refused",
  'not-applicable': 'not applicable',
};

/** The closing summary: verdict, counts, failing operations with their first finding, slowest, reports. */
export function renderSummary(results: RunResults, paths: ReportPaths, options: { color: boolean }): string {
  const c = options.color ? paint : { red: plain, green: plain, yellow: plain, blue: plain, dim: plain, bold: plain };
  const lines: string[] = [];
  if (results.pact && results.operations.length === 0) return pactSummaryLines(results, paths, c).join('\n') + '\n';
  const verdictText = results.verdict.replace('-', ' ').toUpperCase();
  const verdictPaint = results.verdict === 'conformant' ? c.green : results.verdict === 'not-conformant' ? c.red : c.yellow;
  lines.push(
    `${c.bold(verdictPaint(verdictText))}  ${results.contract.title} ${results.contract.version} · ${formatDuration(results.durationMs)}`,
  );
  const cov = results.coverage;
  lines.push(`Coverage: ${coverageText(cov)}`);
  const counts = OUTCOMES.filter((o) => results.counts[o] > 0 || o === 'passed' || o === 'failed').map((o) => {
    const text = `${results.counts[o]} ${outcomeCountLabel(o, results.operations)}`;
    const painter = c[OUTCOME_PAINT[o] ?? 'dim'];
    return results.counts[o] > 0 ? painter(text) : text;
  });
  lines.push(`Operations: ${counts.join(' · ')}`);
  // Case-level skips are counted apart from operation-level outcomes: a skipped case is not a passed one.
  const cases = results.operations.flatMap((op) => op.cases);
  const skippedCases = cases.filter((k) => k.outcome === 'skipped').length;
  const skippedText = `${skippedCases} case${skippedCases === 1 ? '' : 's'} skipped`;
  lines.push(`Cases: ${cases.length - skippedCases} ran · ${skippedCases > 0 ? c.yellow(skippedText) : skippedText}`);
  lines.push(`Verdict: ${verdictPaint(results.verdictLine ?? verdictLine(results))}`);
  if (results.interrupted) lines.push(c.yellow('The run was interrupted: operations not reached are not counted.'));
  const down = results.targetDown;
  if (down) {
    lines.push('', c.bold(c.red(`The deployment stopped answering (${down.service}, ${down.baseUrl}): the cases after it were not run.`)));
    if (down.after) lines.push(`  last answered (${down.after.status}): ${down.after.curl}`);
    for (const r of down.inFlight ?? []) lines.push(`  in flight then${(down.inFlight?.length ?? 0) > 1 ? ' (the likely cause among them)' : ', the likely cause'} (${r.error}): ${r.curl}`);
  }

  const problems = results.operations.filter(
    (op) => op.outcome === 'failed' || op.outcome === 'missing' || op.outcome === 'flaky' || op.outcome === 'errored',
  );
  if (problems.length > 0) {
    lines.push('', c.bold('Failed, missing, flaky and errored operations:'));
    for (const op of problems) {
      const painter = op.outcome === 'errored' ? c.yellow : c.red;
      const route = op.method && op.path ? `${op.method} ${op.path}` : '';
      lines.push(`  ${painter(op.outcome.padEnd(7))}  ${op.operationId}${route ? `  ${c.dim(route)}` : ''}`);
      lines.push(...failingCheckLines(op, results.failOn, c.dim));
    }
  }
  const untested = results.operations.filter((op) => op.outcome === 'untested');
  if (untested.length > 0) {
    lines.push('', c.bold(`Untested operations (their positive case could not run${results.failOnUntested ? '; --fail-on untested fails the run' : ''}):`));
    for (const op of untested) {
      lines.push(`  ${c.yellow('untested')}  ${op.operationId}`);
      if (op.reason) lines.push(`            ${op.reason.split('\n')[0]}`);
    }
  }
  const fatal = results.failOn === 'warning';
  const allWarnings = unwaivedWarnings(results.operations);
  const warnings = allWarnings.filter((w) => !w.finding.lenient);
  if (warnings.length > 0) {
    lines.push('', c.bold(fatal ? c.red('Warnings (--fail-on warning: they fail the run):') : 'Warnings (reported, not failing the run; --fail-on warning makes them fatal):'));
    for (const w of warnings) {
      lines.push(`  ${(fatal ? c.red : c.yellow)('warning')}  ${w.operationId} › ${w.caseName}: ${w.finding.check}: ${w.finding.message.split('\n')[0]}`);
    }
  }
  const lenient = allWarnings.filter((w) => w.finding.lenient);
  if (lenient.length > 0) {
    const counted = results.acceptedLeniently;
    const tally = counted ? ` ${counted.requests} request${counted.requests === 1 ? '' : 's'} in ${counted.cases} case${counted.cases === 1 ? '' : 's'} of ${counted.operations} operation${counted.operations === 1 ? '' : 's'}` : '';
    lines.push(
      '',
      c.bold(`Accepted leniently:${tally} (input the contract does not describe as valid, but does not forbid outright; warnings${fatal ? ' that --fail-on warning makes fatal' : ''}; a profile's strictInput makes them errors):`),
    );
    for (const w of lenient) lines.push(`  ${(fatal ? c.red : c.yellow)('lenient')}  ${w.operationId} › ${w.caseName}: ${leniently(w.finding.message)}`);
  }
  if (results.access) {
    // Who could do what: the tally of the access table (index.html and results.json have it whole).
    const by = (v: string) => results.access!.rows.filter((r) => r.verdict === v).length;
    const others = results.access.identities.filter((n) => n !== 'default');
    lines.push(
      '',
      `Access (${others.join(', ')} beside default): ${results.access.rows.length} row${results.access.rows.length === 1 ? '' : 's'}: ${by('error')} error, ${by('warning')} warning, ${by('refused')} refused, ${by('allowed')} allowed where nothing declares ownership or scopes (information), ${by('skipped')} skipped; the table is in index.html`,
    );
  }
  const pactFailed = (results.pact?.interactions ?? []).filter((i) => i.outcome === 'failed' || i.outcome === 'errored');
  if (pactFailed.length > 0) {
    lines.push('', c.bold('Pact interactions that did not pass:'));
    for (const i of pactFailed) {
      lines.push(`  ${(i.outcome === 'failed' ? c.red : c.yellow)(i.outcome.padEnd(7))}  ${i.consumer} › ${i.description}`);
      const m = i.mismatches[0];
      if (m) lines.push(`           ${m.message}`);
    }
  }
  if (results.baseline) lines.push('', ...baselineSummary(results.baseline, c));
  if (results.expiredWaivers.length > 0) {
    lines.push('', c.bold(c.red('Expired waivers (each fails the run; remove or renew them):')));
    for (const w of results.expiredWaivers) lines.push(`  ${w.operationId} / ${w.check}  expired ${w.expires}: ${w.reason}`);
  }
  lines.push(...skippedLines(results, c));
  lines.push(...leftBehindLines(results, c));
  lines.push(...catalogGroupLines(results, c));
  const slowest = results.operations
    .filter((op) => op.outcome !== 'not-described' && op.durationMs > 0)
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, 5);
  if (slowest.length > 0) {
    lines.push('', c.bold('Slowest operations (wall time from the first request to the last answer):'));
    for (const op of slowest) {
      const requests = op.requests !== undefined ? `  ${c.dim(`${op.requests} request${op.requests === 1 ? '' : 's'}`)}` : '';
      lines.push(`  ${formatDuration(Math.min(op.durationMs, results.durationMs)).padStart(9)}  ${op.operationId}${requests}`);
    }
  }
  const reportLines: Array<[string, string | undefined]> = [
    ['results.json', paths.resultsJson],
    ['junit.xml', paths.junitXml],
    ['index.html', paths.html],
  ];
  const written = reportLines.filter((entry): entry is [string, string] => entry[1] !== undefined);
  if (written.length > 0) {
    lines.push('', c.bold('Reports:'));
    for (const [label, path] of written) lines.push(`  ${label.padEnd(13)}${c.blue(path)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** "body.x = null (not nullable) accepted with 200" from a lenient acceptance's finding message. */
function leniently(message: string): string {
  const m = /accepted leniently with (\d+)(?: \((.*?)\))?\.?(?: \(seen on (\d+) requests\))?$/.exec(message.split('\n')[0] ?? '');
  if (!m) return message.split('\n')[0] ?? message;
  return `${m[2] ?? 'the input'} accepted with ${m[1]}${m[3] ? ` (seen on ${m[3]} requests)` : ''}`;
}

/**
 * The catalog's groups the contract describes no path of, asked at their prefixes: how many the deployment serves,
 * and each served one (a warning, with its curl line) or left unanswered (a note).
 */
export function catalogGroupLines(results: Pick<RunResults, 'catalogGroups'>, c: Record<'yellow' | 'dim' | 'bold', Painter>): string[] {
  const groups = results.catalogGroups;
  if (!groups) return [];
  const lines = ['', c.bold(`Catalog groups served without a description: ${groups.served} of ${groups.asked} (the catalog's groups the contract describes no path of, each asked at its prefix)`)];
  for (const g of groups.groups.filter((x) => x.served !== false)) {
    lines.push(`  ${c.yellow(g.served ? 'warning' : 'note')}  ${g.prefix}: ${g.message}`);
    lines.push(`        ${c.dim(g.curl)}`);
  }
  return lines;
}

/** The records the run created and could not delete: a note (not a failure of the service), grouped by create. */
function leftBehindLines(results: RunResults, c: Record<'yellow' | 'dim' | 'bold', Painter>): string[] {
  const left = results.leftBehind ?? [];
  if (left.length === 0) return [];
  const records = (list: NonNullable<RunResults['leftBehind']>): number => list.reduce((n, r) => n + (r.count ?? 1), 0);
  const total = records(left);
  const lines = ['', c.bold(c.yellow(`Left behind: ${total} record${total === 1 ? '' : 's'} the run created could not be deleted (delete them by hand):`))];
  const groups = new Map<string, NonNullable<RunResults['leftBehind']>>();
  for (const r of left) {
    const key = `${r.operationId}\u0000${r.reason}`;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  for (const group of groups.values()) {
    const first = group[0]!;
    const ids = group.flatMap((r) => (r.id !== undefined ? [r.id] : []));
    lines.push(`  ${c.yellow('note')}  ${records(group)} × ${first.operationId} (${first.method} ${first.path}): ${first.reason}`);
    lines.push(`        ${c.dim(ids.length > 0 ? `ids ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''} · created by ${first.createdBy}` : `created by ${first.createdBy}`)}`);
  }
  return lines;
}
