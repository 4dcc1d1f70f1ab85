/**
 * The four reports of one run (the console, results.json, junit.xml, index.html) read back and compared: the
 * same verdict, the same operation counts and the same failing operations. Used by the run-level tests on the
 * suite's servers, faulty and correct.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { expect } from 'vitest';
import type { Outcome, RunResults } from '../../src/runner/model.ts';
import { exitCodeOf, OUTCOMES } from '../../src/runner/report/outcomes.ts';
import { requireResults, type CliRun } from './runs.ts';

/** What a report says of a run. */
export interface ReportView {
  verdict: string;
  /** Operations per outcome (only the outcomes the report shows: the console leaves out zero counts but passed and failed). */
  counts: Partial<Record<Outcome, number>>;
  /** The operations that failed (flaky and missing ones included), "<service> <operationId>" (index.html: the operationId), sorted. */
  failing: string[];
}

const key = (service: string, operationId: string) => `${service} ${operationId}`;

/** The outcomes that fail an operation (and its JUnit testcase): failed, flaky, missing. */
const FAILING = new Set<Outcome>(['failed', 'flaky', 'missing']);

export function resultsView(results: RunResults): ReportView {
  return {
    verdict: results.verdict,
    counts: Object.fromEntries(OUTCOMES.map((o) => [o, results.counts[o]])),
    failing: results.operations.filter((o) => FAILING.has(o.outcome)).map((o) => key(o.service, o.operationId)).sort(),
  };
}

/** What the console says of a run, with its two lists of operations read whole. */
export interface ConsoleView extends ReportView {
  /** The entries of "Failed, missing, flaky and errored operations:" ("<outcome> <operationId>[  <route>]"), sorted. */
  problems: string[];
  /** The entries of "Untested operations …:" (their operationIds), sorted. */
  untested: string[];
}

/** The entries of the console section whose heading starts with `heading`: its lines at `indent` up to the blank line. */
function sectionEntries(lines: string[], heading: string, entry: RegExp): string[] {
  const at = lines.findIndex((l) => l.startsWith(heading));
  if (at < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (line === '') break;
    const m = entry.exec(line);
    if (m) out.push(m.slice(1).join(' '));
  }
  return out.sort();
}

/**
 * The console's closing summary (NO_COLOR): its first line's verdict, the Operations line, and the operations the
 * section "Failed, missing, flaky and errored operations" lists, each read as a whole line of that section.
 */
export function consoleView(stdout: string, results: RunResults): ConsoleView {
  const lines = stdout.split('\n');
  const verdictAt = lines.findIndex((l) => /^(CONFORMANT|NOT CONFORMANT|INCOMPLETE)\b/.test(l));
  const verdict = (/^(CONFORMANT|NOT CONFORMANT|INCOMPLETE)\b/.exec(lines[verdictAt] ?? '')?.[1] ?? '').toLowerCase().replace(' ', '-');
  const summary = verdictAt < 0 ? [] : lines.slice(verdictAt);
  const opsLine = summary.find((l) => l.startsWith('Operations: ')) ?? '';
  const counts: Partial<Record<Outcome, number>> = {};
  for (const part of opsLine.slice('Operations: '.length).split(' · ')) {
    const m = /^(\d+) (\S+)/.exec(part);
    const outcome = OUTCOMES.find((o) => o === m?.[2]);
    if (m && outcome) counts[outcome] = Number(m[1]);
  }
  // Each problem is a line "  <outcome padded to 7>  <operationId>[  <method> <path>]", followed by its checks (indented deeper).
  const problems = sectionEntries(summary, 'Failed, missing, flaky and errored operations:', /^ {2}(failed|missing|flaky|errored) *? {2}(\S.*)$/);
  const untested = sectionEntries(summary, 'Untested operations', /^ {2}untested {2}(\S.*)$/);
  // The failing operations (failed, flaky, missing) by "<service> <operationId>": each problem line matched whole against results.json's operations.
  const lineOf = (o: RunResults['operations'][number]) => `${o.outcome} ${o.operationId}${o.method && o.path ? `  ${o.method} ${o.path}` : ''}`;
  const failing = results.operations.filter((o) => FAILING.has(o.outcome) && problems.includes(lineOf(o))).map((o) => key(o.service, o.operationId)).sort();
  return { verdict, counts, failing, problems, untested };
}

/** What the console's problem section must list for a run: every failed, missing, flaky and errored operation, whole. */
export function expectedProblems(results: RunResults): string[] {
  return results.operations
    .filter((o) => FAILING.has(o.outcome) || o.outcome === 'errored')
    .map((o) => `${o.outcome} ${o.operationId}${o.method && o.path ? `  ${o.method} ${o.path}` : ''}`)
    .sort();
}

/** junit.xml: the run's verdict property, and the operations with a failing testcase (classname "<service>.<group>.<operationId>"). */
export function junitView(xml: string, results: RunResults): ReportView & { failures: number } {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) }).parse(xml) as {
    testsuites: { failures: string; testsuite?: Array<{ properties?: { property?: Array<{ name: string; value: string }> }; testcase?: Array<{ classname: string; failure?: unknown }> }> };
  };
  const suites = doc.testsuites.testsuite ?? [];
  const verdict = suites[0]?.properties?.property?.find((p) => p.name === 'verdict')?.value ?? '';
  const byClass = new Map(results.operations.map((o) => [`${o.service}.${o.group}.${o.operationId}`, key(o.service, o.operationId)]));
  const failing = new Set<string>();
  for (const suite of suites) for (const c of suite.testcase ?? []) if (c.failure !== undefined && byClass.has(c.classname)) failing.add(byClass.get(c.classname)!);
  return { verdict, counts: {}, failing: [...failing].sort(), failures: Number(doc.testsuites.failures) };
}

/** index.html: the verdict header's class, the operation counts, and the operations drawn as failed, flaky or missing. */
export function htmlView(html: string): ReportView {
  const verdict = /<header class="verdict v-([a-z-]+)"/.exec(html)?.[1] ?? '';
  const list = /<ul class="counts"[^>]*data-counts-of="operations">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
  const counts: Partial<Record<Outcome, number>> = {};
  for (const m of list.matchAll(/class="count o-([a-z-]+)[^"]*"><span class="n">(\d+)<\/span>/g)) {
    const outcome = OUTCOMES.find((o) => o === m[1]);
    if (outcome) counts[outcome] = Number(m[2]);
  }
  // Each operation is a <details> whose summary names its operationId (HTML-escaped).
  const failing = [...html.matchAll(/<details class="op o-(?:failed|flaky|missing)"[\s\S]*?<span class="opid">([^<]*)<\/span>/g)].map((m) => unescapeHtml(m[1]!));
  return { verdict, counts, failing: failing.sort() };
}

function unescapeHtml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

/**
 * Asserts that the console, results.json, junit.xml and index.html of a run agree: verdict, counts (as far as
 * each shows them) and failing operations; a run that is not conformant has at least one JUnit failure.
 */
export async function expectReportsAgree(run: CliRun): Promise<void> {
  const results = requireResults(run);
  const json = resultsView(results);
  const xml = junitView(await readFile(join(run.out, 'junit.xml'), 'utf8'), results);
  const page = htmlView(await readFile(join(run.out, 'index.html'), 'utf8'));
  const text = consoleView(run.stdout, results);
  const where = `${run.stdout.slice(0, 4000)}`;
  expect(xml.verdict, 'junit.xml verdict').toBe(json.verdict);
  expect(page.verdict, 'index.html verdict').toBe(json.verdict);
  expect(text.verdict, `console verdict (no verdict line read)\n${where}`).toBe(json.verdict);
  for (const [outcome, n] of Object.entries(text.counts)) expect(n, `console count of ${outcome}\n${where}`).toBe(json.counts[outcome as Outcome]);
  // The console shows every outcome some operation has (passed and failed always; not-described under words of its own).
  const shown = OUTCOMES.filter((o) => o !== 'not-described' && (json.counts[o]! > 0 || o === 'passed' || o === 'failed'));
  expect(Object.keys(text.counts).sort(), `the outcomes the console counts\n${where}`).toEqual([...shown].sort());
  expect(run.code, 'exit code of the verdict').toBe(exitCodeOf(results.verdict));
  for (const [outcome, n] of Object.entries(page.counts)) expect(n, `index.html count of ${outcome}`).toBe(json.counts[outcome as Outcome]);
  expect(xml.failing, 'junit.xml failing operations').toEqual(json.failing);
  expect(page.failing, 'index.html failing operations').toEqual(results.operations.filter((o) => FAILING.has(o.outcome)).map((o) => o.operationId).sort());
  expect(text.problems, `console: the failed, missing, flaky and errored operations\n${where}`).toEqual(expectedProblems(results));
  expect(text.failing, 'console failing operations').toEqual(json.failing);
  expect(text.untested, 'console untested operations').toEqual(results.operations.filter((o) => o.outcome === 'untested').map((o) => o.operationId).sort());
  if (json.verdict === 'not-conformant') expect(xml.failures, 'junit.xml failures of a run that is not conformant').toBeGreaterThanOrEqual(1);
}
