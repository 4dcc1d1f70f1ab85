/**
 * JUnit XML from results.json, for CI servers. Written with xmlbuilder's streaming writer (escaping and
 * invalid XML characters are the library's job; it writes as it goes, with no document tree per element). The default output validates against the Jenkins xUnit plugin's junit-10.xsd.
 *
 * Layout: <testsuites> with one <testsuite> per resource group (canonical operation order), one named
 * "pact" for pact interactions and one named "waivers" when waivers expired. One <testcase> per
 * operation x case, classname "<service>.<group>.<operationId>", name "<operationId> › <case>"; the skipped
 * cases of an operation that carry nothing but the same reason are one <testcase> named after the first of
 * them ("<operationId> › <case> (+N more)"); results.json and index.html name them all. So are the failing cases
 * of an operation whose failure was already shown in full (their evidence left out): one <failure> whose text
 * names the others.
 *
 * Size: the run's properties (contract, verdict, seed, base URLs) are on the first <testsuite> only; the service and operationId are in the classname, not repeated as properties; a testcase lists as properties (and on its "checks:" line) only the checks that did not pass, and
 * how many passed; a failing case whose evidence results.json left out (the same failure shown in full
 * before) has no exchanges and no reproduce line here (results.json and index.html keep its curl line);
 * <system-out> and failure texts are cut at MAX_TEXT characters.
 *
 * Per-testcase properties: junit-10.xsd (like the other published JUnit schemas) does not allow
 * <properties> inside <testcase>. By default they are written as [[PROPERTY|name=value]] lines at the top of
 * the testcase's <system-out> (the convention documented by the common JUnit XML format, read by Testmo and
 * others); `testcaseProperties: 'element'` writes <properties> inside <testcase> instead, which Jenkins
 * (junit keepProperties), pytest-style and Playwright-style consumers read but the schema rejects.
 */
import xmlbuilder from 'xmlbuilder';
import type { CaseResult, Finding, OperationResult, PactInteractionResult, RunResults } from '../model.ts';
import { blockingFindings, sortOperations, sortPactInteractions, untestedCase } from './outcomes.ts';
import { operationWithTexts } from './case-spool.ts';
import { failureSignature } from './evidence-limit.ts';
import { faultCodeOf } from '../checks/fault-codes.ts';
import { exchangeTranscript, findingText, seconds } from './text.ts';

export interface JunitOptions {
  /** Where per-testcase properties go (see the module comment). Default 'system-out'. */
  testcaseProperties?: 'system-out' | 'element';
  /** Request and response bodies in <system-out> are cut at this many bytes. Default 4 KiB. */
  maxBodyBytes?: number;
}

export const CASE_SEPARATOR = ' › ';

/** <system-out> and the text of a <failure> or <error> are cut at this many characters. */
export const MAX_TEXT = 16 * 1024;

function bounded(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT)}\n[cut: ${text.length - MAX_TEXT} more characters; results.json has everything]`;
}

type Result =
  | { kind: 'failure' | 'error'; message: string; type: string; text: string }
  | { kind: 'skipped'; message: string };

interface JCase {
  classname: string;
  name: string;
  timeMs: number;
  result?: Result;
  properties: Array<[string, string]>;
  out: string[];
}

interface JSuite {
  name: string;
  timestamp: string;
  properties: Array<[string, string]>;
  cases: JCase[];
}

/** Renders results as JUnit XML (UTF-8, pretty-printed). */
export function renderJunit(results: RunResults, options: JunitOptions = {}): string {
  const chunks: string[] = [];
  renderJunitTo(results, (chunk) => void chunks.push(chunk), options);
  return chunks.join('');
}

/** Renders results as JUnit XML piece by piece into `write` (a file, without the whole document in memory). */
export function renderJunitTo(results: RunResults, write: (chunk: string) => void, options: JunitOptions = {}): void {
  const maxBody = options.maxBodyBytes ?? 4096;
  // Suites are built one at a time, twice: once to count (the root element carries the totals), once to write.
  function* suites(): Generator<JSuite> {
    // The run's properties (contract, verdict, seed, base URLs) go on the first testsuite only: they are the
    // same for every suite, and a large run has hundreds of suites.
    let first = true;
    const all = function* (): Generator<JSuite> {
      yield* operationSuites(results, maxBody, options.testcaseProperties ?? 'system-out');
      if (results.pact) yield pactSuite(results, results.pact.interactions);
      if (results.expiredWaivers.length > 0) yield waiverSuite(results);
      if (results.catalogGroups) yield catalogGroupSuite(results, results.catalogGroups);
      const down = deploymentSuite(results);
      if (down) yield down;
      if (results.compatibility) yield compatibilitySuite(results.compatibility, results.startedAt);
    };
    const services = results.target.services.map((t) => t.id);
    for (const suite of all()) {
      const own = suite.properties.filter(([name]) => !RUN_PROPERTIES.has(name) && !name.startsWith('base-url.'));
      yield { ...suite, properties: first ? [...suiteProperties(results, services), ...own] : own };
      first = false;
    }
  }
  const totals = { tests: 0, failures: 0, errors: 0 };
  for (const suite of suites()) {
    totals.tests += suite.cases.length;
    totals.failures += count(suite.cases, 'failure');
    totals.errors += count(suite.cases, 'error');
  }

  // The streaming writer writes as it goes: no document tree of every test case is held in memory. Its pretty
  // mode would indent the text of <failure> and <system-out> (changing it), so lines are broken by hand, only
  // after an element is closed (whitespace between elements, which JUnit readers ignore).
  const doc = xmlbuilder.begin({ invalidCharReplacement: '\uFFFD', writer: { pretty: false } }, write);
  const newline = () => write('\n');
  doc.dec('1.0', 'UTF-8');
  newline();
  doc.ele('testsuites', safe({
    name: `${results.contract.title} ${results.contract.version} conformance`,
    tests: String(totals.tests),
    failures: String(totals.failures),
    errors: String(totals.errors),
    time: seconds(results.durationMs),
  }));
  for (const suite of suites()) writeSuite(doc, newline, suite, options.testcaseProperties ?? 'system-out');
  doc.up();
  newline();
  doc.end();
}

/** Characters XML 1.0 cannot carry (controls, lone surrogates) become U+FFFD, so the file stays well-formed. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
function xmlSafe(text: string): string {
  return text.replace(NOT_XML, '\uFFFD');
}
function safe(attrs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, xmlSafe(v)]));
}

function count(cases: JCase[], kind: Result['kind']): number {
  return cases.filter((c) => c.result?.kind === kind).length;
}

function writeSuite(el: xmlbuilder.XMLDocumentCB, newline: () => void, suite: JSuite, propertiesMode: 'system-out' | 'element'): void {
  const time = suite.cases.reduce((sum, c) => sum + c.timeMs, 0);
  el.ele('testsuite', safe({
    name: suite.name,
    tests: String(suite.cases.length),
    failures: String(count(suite.cases, 'failure')),
    errors: String(count(suite.cases, 'error')),
    skipped: String(count(suite.cases, 'skipped')),
    time: seconds(time),
    timestamp: suite.timestamp,
  }));
  if (suite.properties.length > 0) {
    el.ele('properties');
    for (const [name, value] of suite.properties) el.ele('property', safe({ name, value })).up();
    el.up();
    newline();
  }
  for (const c of suite.cases) {
    el.ele('testcase', safe({ classname: c.classname, name: c.name, time: seconds(c.timeMs) }));
    if (propertiesMode === 'element' && c.properties.length > 0) {
      el.ele('properties');
      for (const [name, value] of c.properties) el.ele('property', safe({ name, value })).up();
      el.up();
    }
    if (c.result) {
      const attrs: Record<string, string> = c.result.kind === 'skipped' ? { message: c.result.message } : { message: c.result.message, type: c.result.type };
      el.ele(c.result.kind, safe(attrs));
      if (c.result.kind !== 'skipped' && c.result.text) el.txt(xmlSafe(bounded(c.result.text)));
      el.up();
    }
    const out = [
      ...(propertiesMode === 'system-out' ? c.properties.map(([name, value]) => `[[PROPERTY|${name}=${oneLine(value)}]]`) : []),
      ...c.out,
    ];
    if (out.length > 0) el.ele('system-out').txt(xmlSafe(bounded(out.join('\n')))).up();
    el.up();
    newline();
  }
  el.up();
  newline();
}

/** Attribute values and property values are single lines. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

const RUN_PROPERTIES = new Set(['contract', 'contract-version', 'verdict', 'verdict-line', 'fail-on', 'seed', 'interrupted', 'accepted-leniently']);

function suiteProperties(results: RunResults, services: string[]): Array<[string, string]> {
  const props: Array<[string, string]> = [
    ['contract', results.contract.title],
    ['contract-version', results.contract.version],
    ['verdict', results.verdict],
    ...(results.verdictLine ? ([['verdict-line', results.verdictLine]] as Array<[string, string]>) : []),
    ['fail-on', results.failOnUntested ? `${results.failOn},untested` : results.failOn],
    ['seed', String(results.seed)],
  ];
  for (const id of services) {
    const target = results.target.services.find((s) => s.id === id);
    if (target) props.push([`base-url.${id}`, target.baseUrl]);
  }
  if (results.interrupted) props.push(['interrupted', 'true']);
  const lenient = results.acceptedLeniently;
  if (lenient) props.push(['accepted-leniently', `${lenient.requests} requests in ${lenient.cases} cases of ${lenient.operations} operations: warnings, counted apart`]);
  return props;
}

function* operationSuites(results: RunResults, maxBody: number, propertiesMode: 'system-out' | 'element'): Generator<JSuite> {
  const byGroup = new Map<string, OperationResult[]>();
  for (const op of sortOperations(results.operations)) {
    const list = byGroup.get(op.group) ?? [];
    list.push(op);
    byGroup.set(op.group, list);
  }
  for (const [group, ops] of byGroup) {
    const services = [...new Set(ops.map((op) => op.service))];
    yield {
      name: group,
      timestamp: results.startedAt,
      properties: suiteProperties(results, services),
      // The cases' curl lines and reproduction scripts read back from the run's spool, one operation at a time.
      cases: ops.flatMap((op) => operationCases(results, operationWithTexts(op), maxBody, propertiesMode)),
    };
  }
}

/** The classname already names the service and the operationId: a testcase's properties add method and path. */
function baseProperties(op: OperationResult): Array<[string, string]> {
  const props: Array<[string, string]> = [];
  if (op.method) props.push(['method', op.method]);
  if (op.path) props.push(['path', op.path]);
  return props;
}

function operationCases(results: RunResults, op: OperationResult, maxBody: number, propertiesMode: 'system-out' | 'element'): JCase[] {
  const classname = `${op.service}.${op.group}.${op.operationId}`;
  const testcase = (caseName: string): Pick<JCase, 'classname' | 'name'> => ({
    classname,
    name: `${op.operationId}${CASE_SEPARATOR}${caseName}`,
  });
  if (op.outcome === 'not-described') {
    const reason = op.reason ?? 'the catalog lists the operation, the contract does not describe it';
    return [
      {
        ...testcase('not described'),
        timeMs: 0,
        result: { kind: 'skipped', message: `not described: ${oneLine(reason)}` },
        properties: [...baseProperties(op), ['outcome', 'not-described']],
        out: [],
      },
    ];
  }
  if (op.cases.length === 0) {
    return [
      {
        ...testcase(op.outcome),
        timeMs: op.durationMs,
        result: operationOnlyResult(op),
        properties: [...baseProperties(op), ['outcome', op.outcome]],
        out: op.reason ? [`reason: ${op.reason}`] : [],
      },
    ];
  }
  const skips = plainSkips(op.cases);
  const repeats = repeatedFailures(op.cases);
  return op.cases.flatMap((c): JCase[] => {
    const repeated = repeats.get(c);
    if (repeated) {
      // One testcase for the failing cases whose failure was already shown in full: the first stands for them all
      // and its failure text names the others.
      if (repeated[0] !== c) return [];
      const result = caseResult(results, op, c);
      const others = repeated.slice(1).map((x) => x.name);
      if (result && result.kind !== 'skipped') result.text = `${result.text}\n\nthe same failure in ${others.length} more case${others.length === 1 ? '' : 's'} of this operation:\n${others.map((n) => `  ${n}`).join('\n')}`;
      return [
        {
          ...testcase(`${c.name} (+${others.length} more)`),
          timeMs: repeated.reduce((n, x) => n + x.durationMs, 0),
          result,
          properties: caseProperties(op, c),
          out: caseOutput(results, c, maxBody, propertiesMode),
        },
      ];
    }
    const group = skips.get(c);
    if (group) {
      // One testcase for the skipped cases of the same reason: the first stands for them all.
      if (group[0] !== c) return [];
      const more = group.length > 1 ? ` (+${group.length - 1} more)` : '';
      return [
        {
          ...testcase(`${c.name}${more}`),
          timeMs: group.reduce((n, x) => n + x.durationMs, 0),
          result: caseResult(results, op, c),
          // Properties describe one case; a testcase standing for several has none (results.json names them all).
          properties: group.length > 1 ? [] : caseProperties(op, c),
          out: [],
        },
      ];
    }
    return [
      {
        ...testcase(c.name),
        timeMs: c.durationMs,
        result: caseResult(results, op, c),
        properties: caseProperties(op, c),
        out: caseOutput(results, c, maxBody, propertiesMode),
      },
    ];
  });
}

/** Skipped cases with nothing but a reason, by reason: each maps to its group (in case order). */
/**
 * Failing cases of one operation with the same failure (failureSignature) whose evidence results.json left out
 * (evidence-limit.ts: that failure was shown in full before), when there are two or more of them.
 */
function repeatedFailures(cases: CaseResult[]): Map<CaseResult, CaseResult[]> {
  const bySignature = new Map<string, CaseResult[]>();
  for (const c of cases) {
    if (c.outcome !== 'failed' || !c.omittedExchanges || c.exchanges.length > 0 || c.reproduction) continue;
    const signature = failureSignature(c);
    const list = bySignature.get(signature);
    if (list) list.push(c);
    else bySignature.set(signature, [c]);
  }
  const groups = new Map<CaseResult, CaseResult[]>();
  for (const group of bySignature.values()) if (group.length > 1) for (const c of group) groups.set(c, group);
  return groups;
}
function plainSkips(cases: CaseResult[]): Map<CaseResult, CaseResult[]> {
  const byReason = new Map<string, CaseResult[]>();
  for (const c of cases) {
    if (c.outcome !== 'skipped' || c.findings.length > 0 || c.exchanges.length > 0 || c.reproduction || c.errorMessage) continue;
    const reason = c.skipReason ?? '';
    const list = byReason.get(reason);
    if (list) list.push(c);
    else byReason.set(reason, [c]);
  }
  const groups = new Map<CaseResult, CaseResult[]>();
  for (const group of byReason.values()) for (const c of group) groups.set(c, group);
  return groups;
}

function operationOnlyResult(op: OperationResult): Result | undefined {
  const reason = op.reason ? oneLine(op.reason) : undefined;
  switch (op.outcome) {
    case 'missing':
      return { kind: 'failure', type: 'operation-present', message: `missing: ${reason ?? 'the deployment does not serve this operation'}`, text: reason ?? '' };
    case 'failed':
      return { kind: 'failure', type: 'failed', message: reason ?? 'failed', text: reason ?? '' };
    case 'flaky':
      return { kind: 'failure', type: 'flaky', message: reason ?? 'flaky', text: reason ?? '' };
    case 'errored':
      return { kind: 'error', type: 'error', message: reason ?? 'errored', text: reason ?? '' };
    case 'untested':
      return { kind: 'skipped', message: `untested: ${reason ?? 'the positive case could not run'}` };
    case 'skipped':
      return { kind: 'skipped', message: reason ?? 'skipped' };
    default:
      return undefined;
  }
}

function caseProperties(op: OperationResult, c: CaseResult): Array<[string, string]> {
  // The outcome only where the testcase's element does not say it (failed: <failure>, errored: <error>,
  // skipped: <skipped>, passed: none).
  const implied = c.outcome === 'failed' || c.outcome === 'errored' || c.outcome === 'skipped' || c.outcome === 'passed';
  const props = [...baseProperties(op), ['case-kind', c.kind], ...(implied ? [] : [['outcome', c.outcome]])] as Array<[string, string]>;
  for (const check of c.checks) if (check.status !== 'passed') props.push(['check', check.id]);
  for (const note of c.notes ?? []) props.push(['setup-note', oneLine(note)]);
  const passed = c.checks.filter((k) => k.status === 'passed').length;
  if (passed > 0) props.push(['checks-passed', String(passed)]);
  for (const f of c.findings) {
    // The Web Fuzzing Commons category of each unwaived error (checks/fault-codes.ts), once per code and check.
    const code = f.waived ? undefined : (f.faultCode ?? faultCodeOf(f));
    if (code !== undefined && !props.some(([n, v]) => n === 'fault-code' && v === `${code} ${f.check}`)) props.push(['fault-code', `${code} ${f.check}`]);
    if (f.waived) props.push(['waived', `${f.check} until ${f.waived.expires}: ${oneLine(f.waived.reason)}`]);
    else if (f.lenient) props.push(['accepted-leniently', oneLine(f.message)]);
  }
  return props;
}

function caseResult(results: RunResults, op: OperationResult, c: CaseResult): Result | undefined {
  const blocking = blockingFindings(c, results.failOn);
  const first = blocking[0];
  const more = blocking.length > 1 ? ` (+${blocking.length - 1} more)` : '';
  // The request line only where the finding is about another operation's call (the properties name method and path).
  // Each finding reproduced by its own exchange: its curl line where it is not the case's (the reproduce line below).
  const describe = (f: Finding): string => {
    const text = findingText(f, { request: f.method !== op.method || f.path !== op.path });
    if (f.curl === undefined || f.curl === c.curl) return text;
    const answered = f.request?.status !== undefined ? ` (answered ${f.request.status}${f.needsRecord ? '; it names a record the run made first: alone it no longer answers so' : ''})` : '';
    return `${text}\n  reproduce${answered}: ${f.curl}`;
  };
  const text = blocking.map(describe).join('\n\n');
  switch (c.outcome) {
    case 'passed':
      return undefined;
    case 'skipped': {
      const untested = op.outcome === 'untested' && untestedCase(op.cases) === c;
      return { kind: 'skipped', message: `${untested ? 'untested: ' : ''}${oneLine(c.skipReason ?? 'skipped')}` };
    }
    case 'flaky': {
      const attempts = c.flaky ? `${c.flaky.failed} of ${c.flaky.attempts} identical attempts failed` : 'identical attempts disagreed';
      const why = first ? `; ${first.check}: ${oneLine(first.message)}` : '';
      return { kind: 'failure', type: 'flaky', message: `flaky: ${attempts}${why}`, text: text || attempts };
    }
    case 'errored': {
      const transport = [...c.exchanges].reverse().find((e) => e.error)?.error;
      const message = c.errorMessage ?? transport?.message ?? 'the tool or the network failed';
      return { kind: 'error', type: transport?.kind ?? 'error', message: oneLine(message), text: message };
    }
    case 'missing': {
      const why = first?.message ?? op.reason ?? 'the deployment does not serve this operation';
      const line = oneLine(why);
      return { kind: 'failure', type: first?.check ?? 'operation-present', message: `${line.startsWith('missing:') ? '' : 'missing: '}${line}${more}`, text };
    }
    case 'failed':
      if (!first) {
        const message = c.errorMessage ?? 'failed';
        return { kind: 'failure', type: 'assertion', message: oneLine(message), text: message };
      }
      return { kind: 'failure', type: first.check, message: `${first.check}: ${oneLine(first.message)}${more}`, text };
  }
}

function caseOutput(results: RunResults, c: CaseResult, maxBody: number, propertiesMode: 'system-out' | 'element'): string[] {
  const out: string[] = [];
  const notPassed = c.checks.filter((k) => k.status !== 'passed');
  const passed = c.checks.length - notPassed.length;
  // With the properties in <system-out>, they already name the checks that did not pass and count the others.
  if (c.checks.length > 0 && propertiesMode === 'element') out.push(`checks: ${[...notPassed.map((k) => `${k.id}=${k.status}`), ...(passed > 0 ? [`${passed} passed`] : [])].join(', ')}`);
  const blocking = new Set(blockingFindings(c, results.failOn));
  const others = c.findings.filter((f) => !blocking.has(f) && !f.lenient);
  const lenient = c.findings.filter((f) => !blocking.has(f) && f.lenient);
  if (others.length > 0) out.push('', 'other findings (not failing this case):', ...others.map((f) => findingText(f)));
  if (lenient.length > 0) out.push('', 'accepted leniently (input the contract does not describe as valid, taken; warnings):', ...lenient.map((f) => findingText(f)));
  c.exchanges.forEach((exchange, i) => {
    out.push('', `--- exchange ${i + 1} of ${c.exchanges.length} (${Math.round(exchange.durationMs)} ms) ---`, exchangeTranscript(exchange, maxBody));
  });
  if (c.reproduction) out.push('', 'reproduce (bash script: the setup calls, the call, the clean-up):', c.reproduction);
  // A passed case's call held: its curl line stays only with its exchanges (--keep-passed-exchanges).
  else if (c.curl && !c.omittedExchanges && (c.outcome !== 'passed' || c.exchanges.length > 0)) out.push('', `reproduce: ${c.curl}`);
  return out;
}

function pactSuite(results: RunResults, interactions: PactInteractionResult[]): JSuite {
  const mode = results.pact?.mode ?? 'verify';
  return {
    name: 'pact',
    timestamp: results.startedAt,
    properties: [...suiteProperties(results, []), ['pact-mode', mode]],
    cases: sortPactInteractions(interactions).map((i) => {
      const properties: Array<[string, string]> = [
        ['consumer', i.consumer],
        ['provider', i.provider],
        ['pact-file', i.pactFile],
      ];
      for (const state of i.providerStates) properties.push(['provider-state', state]);
      if (i.operationId) properties.push(['operationId', i.operationId]);
      const mismatches = i.mismatches.map((m) => (m.location ? `${m.message}\n  at ${m.location}` : m.message));
      const first = i.mismatches[0];
      const more = i.mismatches.length > 1 ? ` (+${i.mismatches.length - 1} more)` : '';
      let result: Result | undefined;
      if (i.outcome === 'failed') {
        result = { kind: 'failure', type: 'pact-mismatch', message: oneLine(first ? `${first.message}${more}` : 'interaction failed'), text: mismatches.join('\n') };
      } else if (i.outcome === 'errored') {
        result = { kind: 'error', type: 'error', message: oneLine(first?.message ?? 'the tool or the network failed'), text: mismatches.join('\n') };
      } else if (i.outcome === 'skipped') {
        result = { kind: 'skipped', message: oneLine(first?.message ?? 'skipped') };
      }
      return {
        classname: `pact.${i.consumer}.${i.provider}`,
        name: `${i.consumer}${CASE_SEPARATOR}${i.description}`,
        timeMs: i.durationMs,
        result,
        properties,
        out: i.providerStates.length > 0 ? [`provider states: ${i.providerStates.join('; ')}`] : [],
      } satisfies JCase;
    }),
  };
}

/**
 * The deployment stopped answering and no case failed on it (no request of a case was cut in flight: it went
 * down between requests): the verdict is not conformant, so one failing testcase says why, with the last
 * request it answered and the requests in flight then. Where a case's request was cut in flight, that case
 * fails on its operation instead (not-a-server-error) and this suite is not written.
 */
function deploymentSuite(results: RunResults): JSuite | undefined {
  const down = results.targetDown;
  if (!down || results.operations.some((o) => o.cases.some((c) => c.outcome === 'failed'))) return undefined;
  const lines = [
    ...(down.after ? [`last answered (${down.after.status}):`, down.after.curl] : []),
    ...(down.inFlight ?? []).flatMap((r) => [`in flight then (${r.error}):`, r.curl]),
  ];
  return {
    name: 'deployment',
    timestamp: results.startedAt,
    properties: suiteProperties(results, []),
    cases: [
      {
        classname: `deployment.${down.service}`,
        name: `${down.service}${CASE_SEPARATOR}stopped answering`,
        timeMs: 0,
        result: { kind: 'failure', type: 'target-down', message: down.message, text: lines.join('\n') },
        properties: [['baseUrl', down.baseUrl]],
        out: [],
      },
    ],
  };
}

/**
 * The catalog's groups the contract describes no path of, each asked at its prefix: one testcase per group, passing
 * (a served group is a warning, never a failure: its message and curl line in <system-out> and a `warning`
 * property); a group whose probe got no answer is skipped.
 */
function catalogGroupSuite(results: RunResults, groups: NonNullable<RunResults['catalogGroups']>): JSuite {
  return {
    name: 'catalog groups',
    timestamp: results.startedAt,
    properties: suiteProperties(results, []),
    cases: groups.groups.map((g) => ({
      classname: `catalog-groups.${g.service}`,
      name: `${g.prefix}${CASE_SEPARATOR}${g.served ? 'served without a description' : g.served === false ? 'not served' : 'no answer'}`,
      timeMs: 0,
      ...(g.served === undefined ? { result: { kind: 'skipped' as const, message: g.message } } : {}),
      properties: [['count', String(g.count)], ...(g.status !== undefined ? [['status', String(g.status)] as [string, string]] : []), ...(g.served ? [['warning', g.message] as [string, string]] : [])],
      out: g.served ? [`warning: ${g.message}`, g.curl] : [],
    })),
  };
}

function waiverSuite(results: RunResults): JSuite {
  return {
    name: 'waivers',
    timestamp: results.startedAt,
    properties: suiteProperties(results, []),
    cases: results.expiredWaivers.map((w) => ({
      classname: `waivers.${w.operationId}`,
      name: `expired waiver${CASE_SEPARATOR}${w.operationId}${CASE_SEPARATOR}${w.check}`,
      timeMs: 0,
      result: {
        kind: 'failure',
        type: 'expired-waiver',
        message: `expired waiver: ${w.operationId} / ${w.check} expired on ${w.expires}`,
        text: `reason: ${w.reason}\nRemove the waiver from the waiver file or renew its expiry date.`,
      },
      properties: [
        ['operationId', w.operationId],
        ['check', w.check],
        ['expires', w.expires],
      ],
      out: [],
    })),
  };
}

/** `--base-contract`: one testcase per breaking change and warning (failed unless ignored; a warning passes). */
function compatibilitySuite(compat: NonNullable<RunResults['compatibility']>, timestamp: string): JSuite {
  const shown = compat.changes.filter((c) => c.level !== 'info');
  const cases: JCase[] = shown.map((c) => ({
    classname: `compatibility.${c.operation ?? 'api'}`,
    name: `${c.rule}: ${c.sentence}`,
    timeMs: 0,
    ...(c.ignored
      ? { result: { kind: 'skipped' as const, message: `ignored: ${c.ignored.reason}` } }
      : c.level === 'breaking'
        ? { result: { kind: 'failure' as const, type: c.rule, message: c.sentence, text: [`fingerprint ${c.fingerprint}`, c.base && `base ${c.base}`, c.revision && `revision ${c.revision}`, c.deploymentDetail, c.consumers && `consumers: ${c.consumers.join(', ')}`].filter(Boolean).join('\n') } }
        : {}),
    properties: [['level', c.level], ['fingerprint', c.fingerprint], ...(c.deployment ? [['deployment', c.deployment] as [string, string]] : [])],
    out: [],
  }));
  // The consumers' interactions the revision no longer satisfies fail; those the base failed too are skipped.
  for (const f of compat.pacts?.failures ?? []) {
    const text = f.mismatches.map((m) => `${m.message}${m.location ? ` (${m.location})` : ''}`).join('\n');
    cases.push({
      classname: `compatibility.pact.${f.consumer}`,
      name: `${f.interaction} (${f.request})`,
      timeMs: 0,
      result: f.alreadyFailing ? { kind: 'skipped', message: 'fails against the base too' } : { kind: 'failure', type: 'pact-interaction-broken', message: f.mismatches[0]?.message ?? '', text },
      properties: [['pact', f.pact]],
      out: [],
    });
  }
  if (cases.length === 0) cases.push({ classname: 'compatibility', name: `no breaking change since the base contract (${compat.provenNote})`, timeMs: 0, properties: [], out: [] });
  return { name: 'compatibility', timestamp, properties: [['base-contract', compat.base.source]], cases };
}
