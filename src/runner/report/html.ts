/**
 * The HTML report: one self-contained file (inline CSS and one small inline script, no network, no external
 * assets), rendered with eta from templates/report.eta with autoEscape on. Everything from the run (bodies,
 * messages, header values) reaches the page only through escaped interpolation, as text or attribute values;
 * the script reads data-* attributes and never evaluates data. A Content-Security-Policy with the hashes of
 * the inline style and script blocks everything else (no other script, no network, no external images).
 *
 * The view model is computed here (its types and the views of one operation: report/html-view.ts), so the
 * template only loops and prints.
 *
 * A large run (more than LAZY_OPERATIONS operations or LAZY_CASES cases) gets a lighter page: the summary,
 * "What failed" (at most LAZY_FAILURE_ROWS rows per reason, with the count of the others) and one row per
 * operation are rendered here; the details of each operation (cases, findings, exchanges, reproduction) travel
 * as JSON, gzip-compressed and base64-encoded, in a <script type="application/json"> that the browser never
 * executes, and the page's script renders them with DOM calls (text only, never HTML) when a row is opened.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { OperationResult, RunResults } from '../model.ts';
import { baselineLine, failureKey } from './baseline.ts';
import { failureGroups } from './failures.ts';
import { Base64Gzip } from './gzip-base64.ts';
import { coverageText, lenientAcceptances, sortOperations, sortPactInteractions } from './outcomes.ts';
import { pactHeadline } from './pact-summary.ts';
import { formatDuration } from './text.ts';
import { anchorFor, countsOf, operationView, readableTime, resetCurlIds, type OperationView, type ReportView } from './html-view.ts';

export { OUTCOME_LABELS, type ReportView } from './html-view.ts';

export interface HtmlOptions {
  /** Request and response bodies are cut at this many bytes. Default 8 KiB. */
  maxBodyBytes?: number;
  /** Render the details in the browser (see the module comment): default for a large run. */
  lazy?: boolean;
  /** Characters of those details compressed at a time (default GZIP_BATCH). */
  dataBatch?: number;
}

/** Above this many operations, or this many cases, a run is large and its page renders details on demand. */
export const LAZY_OPERATIONS = 200;
export const LAZY_CASES = 2000;
/** In a large run's page, "What failed" shows this many rows per reason and counts the others. */
export const LAZY_FAILURE_ROWS = 20;
/** Rows of the accepted-leniently table (the operations' own findings have every one). */
const LENIENT_ROWS = 50;

/** Whether the page of these results renders its details in the browser. */
export function isLargeRun(results: Pick<RunResults, 'operations'>): boolean {
  return results.operations.length > LAZY_OPERATIONS || results.operations.reduce((n, op) => n + op.cases.length, 0) > LAZY_CASES;
}

const TEMPLATES = fileURLToPath(new URL('./templates/', import.meta.url));
const VERDICT_LABELS: Record<RunResults['verdict'], { label: string; explain: string }> = {
  conformant: { label: 'Conformant', explain: 'Every tested operation behaved as the contract describes.' },
  'not-conformant': { label: 'Not conformant', explain: 'The deployment broke the contract (see the failures below).' },
  incomplete: { label: 'Incomplete', explain: 'The run could not vouch for every operation (interrupted, errored or stopped).' },
};



/**
 * The data the template renders (exported for tests). `casesLater`: the operations' views come without the views
 * of their cases (a large run's page renders those one operation at a time, see renderHtmlTo).
 */
export function buildReportView(results: RunResults, options: HtmlOptions = {}, casesLater = false): Omit<ReportView, 'csp' | 'css' | 'script'> {
  const maxBytes = options.maxBodyBytes ?? 8192;
  resetCurlIds();
  const operations = sortOperations(results.operations);
  const groups = new Map<string, OperationView[]>();
  for (const op of operations) {
    const list = groups.get(op.group) ?? [];
    list.push(operationView(op, results, maxBytes, !casesLater));
    groups.set(op.group, list);
  }
  const cov = results.coverage;
  const meta: Array<[string, string]> = [
    ['Contract', `${results.contract.title} ${results.contract.version}`],
    ['Started', readableTime(results.startedAt)],
    ['Finished', readableTime(results.finishedAt)],
    ['Duration', formatDuration(results.durationMs)],
    ['Fail on', results.failOn === 'warning' ? 'errors and warnings' : 'errors'],
    ['Seed', String(results.seed)],
    ['Tool', `${results.tool.name} ${results.tool.version}`],
  ];
  if (results.shard) meta.push(['Shard', `${results.shard.index} of ${results.shard.count}`]);
  if (results.contract.files.length > 0) meta.push(['Contract files', results.contract.files.join(', ')]);

  const waived: ReportView['waived'] = [];
  for (const op of operations) {
    for (const c of op.cases) {
      for (const f of c.findings) {
        if (f.waived) {
          waived.push({ operationId: op.operationId, caseName: c.name, check: f.check, reason: f.waived.reason, expires: f.waived.expires, anchor: anchorFor(op) });
        }
      }
    }
  }

  const accepted = lenientAcceptances(operations).map((w) => ({ operationId: w.operationId, caseName: w.caseName, what: w.finding.message.split('\n')[0] ?? '', anchor: anchorFor({ service: operations.find((o) => o.operationId === w.operationId)?.service ?? '', operationId: w.operationId }) }));
  const lenient = { rows: accepted.slice(0, LENIENT_ROWS), cases: accepted.length, requests: lenientAcceptances(operations).reduce((n, w) => n + (w.finding.count ?? 1), 0), operations: new Set(accepted.map((a) => a.operationId)).size, more: Math.max(0, accepted.length - LENIENT_ROWS) };

  const newKeys = results.baseline ? new Set(results.baseline.new.map((e) => e.key)) : undefined;
  const failures = failureGroups({ operations, failOn: results.failOn, ...(results.pact ? { pact: results.pact } : {}) }).map((g) => ({
    ...g,
    rows: g.rows.map((r) => {
      const row: ReportView['failures'][number]['rows'][number] = { ...r, anchor: r.service === 'pact' ? 'pact' : anchorFor(r) };
      if (newKeys?.has(failureKey(r.service, r.operationId, r.caseName, g.reason))) row.isNew = true;
      return row;
    }),
    total: g.rows.length,
    more: 0,
  }));
  if (options.lazy) {
    // A large run: the first rows of each reason; the operations list (filter "Problems") has every one.
    for (const g of failures) {
      g.more = Math.max(0, g.rows.length - LAZY_FAILURE_ROWS);
      g.rows = g.rows.slice(0, LAZY_FAILURE_ROWS);
    }
  }
  const pactOnly = results.pact !== undefined && operations.length === 0;
  const verdict =
    pactOnly && results.pact
      ? pactVerdict(results.verdict, results.pact)
      : { value: results.verdict, ...VERDICT_LABELS[results.verdict], ...(results.verdictLine ? { explain: results.verdictLine } : {}) };
  const view: Omit<ReportView, 'csp' | 'css' | 'script'> = {
    title: `${results.contract.title} ${results.contract.version}: ${verdict.label.toLowerCase()}`,
    verdict,
    failures,
    failureCount: failures.reduce((n, g) => n + g.total, 0),
    pactOnly,
    contract: results.contract,
    tool: results.tool,
    meta,
    targets: results.target.services,
    embedded: results.target.embedded,
    coverage: coverageText(cov),
    counts: countsOf(operations),
    countsOf: 'operations',
    total: operations.length,
    interrupted: results.interrupted,
    groups: [...groups].map(([name, ops]) => ({ name, operations: ops, counts: countsOf(ops).filter((c) => c.n > 0) })),
    groupNames: [...groups.keys()],
    expiredWaivers: results.expiredWaivers,
    waived,
    lenient,
    ...(results.access
      ? {
          access: {
            identities: results.access.identities,
            rows: results.access.rows.map(({ lacking, ...r }) => ({
              ...r,
              anchor: anchorFor({ service: operations.find((o) => o.operationId === r.operationId)?.service ?? '', operationId: r.operationId }),
              ...(lacking ? { lacking: [...(lacking.scopes ?? []).map((l) => l.join(' + ')), ...(lacking.roles ?? [])].join(' or ') } : {}),
            })),
          },
        }
      : {}),
    slowest: [...operations]
      .filter((op) => op.outcome !== 'not-described' && op.durationMs > 0)
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, 5)
      .map((op) => ({ operationId: op.operationId, anchor: anchorFor(op), duration: formatDuration(op.durationMs) })),
  };
  if (results.pact) {
    const sorted = sortPactInteractions(results.pact.interactions);
    // Interactions that did not pass lead; the canonical order holds within each outcome.
    const rank: Record<string, number> = { failed: 0, errored: 1, skipped: 2, passed: 3 };
    const interactions = pactOnly ? [...sorted].sort((a, b) => (rank[a.outcome] ?? 9) - (rank[b.outcome] ?? 9)) : sorted;
    if (pactOnly) {
      const files = new Set(interactions.map((i) => i.pactFile));
      view.counts = (['passed', 'failed', 'errored', 'skipped'] as const).map((o) => ({ outcome: o, label: o, n: interactions.filter((i) => i.outcome === o).length }));
      view.countsOf = 'interactions';
      view.total = interactions.length;
      view.coverage = `${interactions.length} interaction${interactions.length === 1 ? '' : 's'} from ${files.size} pact file${files.size === 1 ? '' : 's'} · ${results.pact.mode === 'check' ? 'checked against the contract' : 'verified against the deployment'}`;
    }
    const tally = (o: string): number => interactions.filter((i) => i.outcome === o).length;
    view.pact = {
      mode: results.pact.mode,
      counts: `${interactions.length} interactions · ${tally('passed')} passed · ${tally('failed')} failed · ${tally('errored')} errored · ${tally('skipped')} skipped`,
      rows: interactions.map((i) => {
        const row: NonNullable<ReportView['pact']>['rows'][number] = {
          consumer: i.consumer,
          provider: i.provider,
          description: i.description,
          states: i.providerStates,
          outcome: i.outcome,
          duration: formatDuration(i.durationMs),
          pactFile: i.pactFile,
          mismatches: i.mismatches,
        };
        if (i.operationId) row.operationId = i.operationId;
        return row;
      }),
    };
  }
  if (results.baseline) {
    view.baseline = { line: baselineLine(results.baseline), fixed: results.baseline.fixed, newCount: results.baseline.new.length };
  }
  if (results.deploymentDiff && (results.deploymentDiff.extra.length > 0 || results.deploymentDiff.lacking.length > 0)) {
    view.deploymentDiff = results.deploymentDiff;
  }
  if (results.compatibility) {
    const c = results.compatibility;
    view.compatibility = {
      line: `${c.breaking ? 'Breaking' : 'Compatible'}: ${c.counts.breaking} breaking, ${c.counts.warning} warning(s), ${c.counts.info} info${c.counts.ignored ? `, ${c.counts.ignored} ignored` : ''}${c.pacts?.broken ? `, ${c.pacts.broken} consumer interaction(s) broken` : ''} since ${c.base.source}${c.base.version ? ` (${c.base.version})` : ''}`,
      note: c.provenNote,
      changes: c.changes.filter((x) => x.level !== 'info'),
      interactions: c.pacts?.failures ?? [],
    };
  }
  if (results.catalogGroups) view.catalogGroups = results.catalogGroups;
  return view;
}

/** The banner of a pact run that tested no operations: it speaks of interactions. */
function pactVerdict(value: RunResults['verdict'], pact: NonNullable<RunResults['pact']>): ReportView['verdict'] {
  const failed = pact.interactions.filter((i) => i.outcome === 'failed').length;
  const headline = pactHeadline(pact);
  const label = VERDICT_LABELS[value].label;
  if (value === 'conformant') return { value, label, explain: `${headline}.` };
  if (value === 'not-conformant' && failed > 0) return { value, label, explain: `${headline}; ${failed} failed (see the interactions below).` };
  return { value, label, explain: `${headline}. ${VERDICT_LABELS[value].explain}` };
}

// ---------------------------------------------------------------------------------------------------------
// Rendering

let eta: Eta | undefined;
let assets: { css: string; script: string } | undefined;

function engine(): Eta {
  eta ??= new Eta({ views: TEMPLATES, autoEscape: true, cache: true });
  return eta;
}

function loadAssets(): { css: string; script: string } {
  assets ??= {
    css: readFileSync(new URL('./templates/report.css', import.meta.url), 'utf8'),
    script: readFileSync(new URL('./templates/report.client.js', import.meta.url), 'utf8'),
  };
  return assets;
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Renders results as one self-contained HTML page. */
export function renderHtml(results: RunResults, options: HtmlOptions = {}): string {
  const chunks: string[] = [];
  renderHtmlTo(results, (chunk) => void chunks.push(chunk), options);
  return chunks.join('');
}

/** Where the details of a large run go in its page (escaped data can never contain it). */
const DATA_MARK = '<!--conformance-data-->';

/** What the page's script renders when an operation's row is opened (a large run). */
function lazyDetails(op: OperationView): unknown {
  const { reason, checks, cases, summaries, outcome, service, operationId } = op;
  // The page's script numbers its own copy buttons.
  const shown = cases.map(({ curlId: _c, reproductionId: _r, ...c }) => ({ ...c, findings: c.findings.map(({ curlId: _f, ...f }) => f) }));
  return { outcome, service, operationId, ...(reason ? { reason } : {}), checks, cases: shown, summaries };
}

/** The outcomes of an operation's cases, counted (the row of a large run shows these instead of every case). */
function tally(op: OperationResult): Array<{ outcome: string; n: number }> {
  const counts = new Map<string, number>();
  for (const c of op.cases) counts.set(c.outcome, (counts.get(c.outcome) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => ({ outcome, n }));
}

/** Where an operation row goes in a page rendered with `streamed` (escaped data can never contain it). */
const OPERATION_MARK = '<!--conformance-operation-->';

/**
 * The same page as renderHtml, written piece by piece: the page around the operation rows first, then each
 * row rendered on its own as it is written, so the page of a large run is never one string in memory.
 */
export function renderHtmlTo(results: RunResults, write: (chunk: string) => void, options: HtmlOptions = {}): void {
  const lazy = (options.lazy ?? isLargeRun(results)) && results.operations.length > 0;
  // A large run's rows need no case views: those are made one operation at a time for the details below, so
  // the views of every case of the run are never in memory at once.
  const view = pageView(results, { ...options, lazy }, lazy);
  const parts = engine().render('./report', { ...view, streamed: true, lazy }).split(OPERATION_MARK);
  const rows = view.groups.flatMap((g) => g.operations);
  if (parts.length !== rows.length + 1) throw new Error('the report template placed the operation rows unexpectedly');
  write(parts[0]!);
  if (!lazy) {
    rows.forEach((op, i) => {
      write(engine().render('./operation', op));
      write(parts[i + 1]!);
    });
    return;
  }
  const byAnchor = new Map(sortOperations(results.operations).map((op) => [anchorFor(op), op]));
  rows.forEach((op, i) => {
    const result = byAnchor.get(op.anchor);
    write(engine().render('./operation-lazy', { ...op, index: i, tally: result ? tally(result) : [] }));
    if (i < rows.length - 1) write(parts[i + 1]!);
  });
  const [before, after] = parts[rows.length]!.split(DATA_MARK);
  if (after === undefined) throw new Error('the report template has no place for the details of a large run');
  write(before!);
  // The details, compressed as they are serialised (never one string); base64 holds no "<", so the data cannot
  // end its script element.
  const data = new Base64Gzip(write, options.dataBatch);
  const maxBytes = options.maxBodyBytes ?? 8192;
  data.write('[');
  rows.forEach((row, i) => {
    const result = byAnchor.get(row.anchor);
    const op = result ? operationView(result, results, maxBytes) : row;
    data.write(`${i > 0 ? ',' : ''}${JSON.stringify(lazyDetails(op))}`);
  });
  data.write(']');
  data.end();
  write(after);
}

function pageView(results: RunResults, options: HtmlOptions, casesLater = false): ReportView {
  const { css, script } = loadAssets();
  if (css.includes('</style') || script.includes('</script')) throw new Error('report assets must not close their own element');
  const csp = [
    "default-src 'none'",
    `style-src ${sha256(css)}`,
    `script-src ${sha256(script)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return { ...buildReportView(results, options, casesLater), csp, css, script };
}
