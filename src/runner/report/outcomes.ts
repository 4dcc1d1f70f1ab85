/**
 * Outcomes, counts, the verdict and the exit code: pure functions over results. Every reporter, `run` and
 * `merge` call these, so a case, an operation and a run are judged the same way everywhere.
 *
 * Rules (ARCHITECTURE.md, "Outcomes say what was verified"):
 * - A finding blocks its case when it is not waived and its severity is `error`, or `warning` under
 *   `failOn: warning`. `info` never blocks.
 * - A case is skipped, errored or flaky as the engine recorded it. Otherwise it is missing when a blocking
 *   finding says the operation is absent (or the engine said missing), failed on any other blocking finding,
 *   passed when all its findings are non-blocking; a case without findings keeps the engine's outcome (a
 *   scenario assertion may fail without a structured finding).
 * - An operation is missing if any case is missing; else failed if any failed; else flaky if any was flaky;
 *   else errored if any errored; else untested when a positive case of it could not run (skipped: the
 *   reason is the operation's reason) or when every case was skipped; else passed. So an operation is passed
 *   only when its positive case ran and passed. `not-described` stays; an operation without cases keeps its
 *   outcome. `ran` lists the kinds of case that ran.
 * - The run is incomplete when it stopped on a configuration problem. Else it is not-conformant when any
 *   operation is failed, missing or flaky, any pact interaction failed, a waiver expired, (failOn warning)
 *   an unwaived warning exists, or (failOnUntested) an operation is untested: a definite failure outranks
 *   an interruption, what was found stays found. Else incomplete when interrupted or any operation (or pact
 *   interaction) errored: the run cannot vouch for it. Else conformant.
 * - Exit codes: conformant 0, not-conformant 1, incomplete 2 (exitCodeOf).
 */
import type {
  AccessTable,
  CaseKind,
  CaseOutcome,
  CaseResult,
  Finding,
  OperationResult,
  Outcome,
  PactInteractionResult,
  RunResults,
  SkipKind,
} from '../model.ts';
import { summed } from '../plan/input-location.ts';

export type FailOn = RunResults['failOn'];
export type Verdict = RunResults['verdict'];

/** Every outcome, in the order reports list them. */
export const OUTCOMES: readonly Outcome[] = ['passed', 'failed', 'missing', 'flaky', 'errored', 'untested', 'skipped', 'not-described'];

/**
 * The coverage line of the console and the HTML report: the operations the catalog counts, how many of them the
 * contract describes and the run tested, and how many the contract does not describe, whether the catalog lists
 * them by name or only counts them (results.json: coverage.catalogTotal, described, tested, notDescribed).
 */
export function coverageText(coverage: RunResults['coverage']): string {
  return `${coverage.described} of ${coverage.catalogTotal} catalog operations described · ${coverage.tested} tested · ${coverage.notDescribed} not described by the contract`;
}

/**
 * How the console and the HTML report name a count of operations with an outcome. The `not-described`
 * operations a report lists are only the catalog operations it names one by one (results.json:
 * counts["not-described"]), a part of the coverage line's "not described by the contract": they are named by
 * what they are, so the two counts never read as one count with two values. In the bundled catalog they are the
 * operations the interface shows without a method or path; a catalog may also name an operation with its method
 * and path that the loaded contract files lack.
 */
export function outcomeCountLabel(outcome: Outcome, operations: ReadonlyArray<{ outcome: Outcome; method: string | null; path: string | null }>): string {
  if (outcome !== 'not-described') return outcome;
  const listed = operations.filter((op) => op.outcome === 'not-described');
  return listed.every((op) => !op.method && !op.path) ? 'named in the interface without method or path: not testable' : 'named in the catalog only: not testable';
}

/** The exit code of a verdict: 0 conformant, 1 not conformant, 2 incomplete (could not vouch for the run). */
export function exitCodeOf(verdict: Verdict): 0 | 1 | 2 {
  return verdict === 'conformant' ? 0 : verdict === 'not-conformant' ? 1 : 2;
}

/** Results as the engine assembles them, before counts and verdict are derived. */
export type UnsummarisedResults = Omit<RunResults, 'counts' | 'verdict'> & Partial<Pick<RunResults, 'counts' | 'verdict'>>;

/** True when the finding fails its case under the run's failOn policy. */
export function isBlocking(finding: Finding, failOn: FailOn): boolean {
  if (finding.waived) return false;
  if (finding.severity === 'error') return true;
  return finding.severity === 'warning' && failOn === 'warning';
}

/** The findings of a case that fail it. */
export function blockingFindings(c: CaseResult, failOn: FailOn): Finding[] {
  return c.findings.filter((f) => isBlocking(f, failOn));
}

/** A case's outcome derived from its findings (see the module comment). */
export function caseOutcome(c: CaseResult, failOn: FailOn): CaseOutcome {
  if (c.outcome === 'skipped' || c.outcome === 'errored' || c.outcome === 'flaky') return c.outcome;
  const blocking = blockingFindings(c, failOn);
  if (blocking.length > 0) {
    const absent = c.outcome === 'missing' || blocking.some((f) => f.check === 'operation-present');
    return absent ? 'missing' : 'failed';
  }
  if (c.findings.length === 0) return c.outcome;
  return 'passed';
}

/** An operation's outcome from its cases' outcomes (see the module comment). */
export function operationOutcome(
  op: Pick<OperationResult, 'outcome'> & { cases: Array<Pick<CaseResult, 'outcome' | 'kind'>> },
): Outcome {
  if (op.outcome === 'not-described' || op.cases.length === 0) return op.outcome;
  const has = (o: CaseOutcome): boolean => op.cases.some((c) => c.outcome === o);
  if (has('missing')) return 'missing';
  if (has('failed')) return 'failed';
  if (has('flaky')) return 'flaky';
  if (has('errored')) return 'errored';
  if (untestedCase(op.cases) || op.cases.every((c) => c.outcome === 'skipped')) return 'untested';
  return 'passed';
}

/** The positive case that could not run (the first skipped case of kind positive), if any. */
export function untestedCase<C extends Pick<CaseResult, 'outcome' | 'kind'>>(cases: readonly C[]): C | undefined {
  return cases.find((c) => c.kind === 'positive' && c.outcome === 'skipped');
}

/** Why an untested operation is untested: the skip reason of its positive case (or of its first case). */
export function untestedReason(cases: readonly CaseResult[]): string {
  return untestedBy(cases)?.skipReason ?? 'the positive case could not run';
}

/** The kinds of case that ran (were not skipped), in canonical order. */
export function kindsRan(cases: ReadonlyArray<Pick<CaseResult, 'outcome' | 'kind'>>): CaseKind[] {
  const kinds = new Set(cases.filter((c) => c.outcome !== 'skipped').map((c) => c.kind));
  return (Object.keys(KIND_ORDER) as CaseKind[]).filter((k) => kinds.has(k));
}

/** What to do about each kind of skip, as one phrase (for the verdict line). */
const UNTESTED_BY_KIND: Record<SkipKind, string> = {
  'read-only': 'read-only run (--read-only sends no call that changes data)',
  irreversible: 'irreversible side effects (pass --allow-irreversible against a disposable deployment)',
  'otp-source': 'no one-time password source (pass --otp-source-url)',
  'no-producer': 'no operation of the contract creates the records they need',
  interrupted: 'not reached (the run was interrupted)',
  missing: 'the deployment does not serve them',
  unverified: 'they answer like an unknown route and no record proves them served',
  'setup-failed': 'setup calls failed (see the operations that make the records)',
  'no-request': 'no request could be built (add an example in contract/examples.yaml)',
  'max-failures': 'not run (--max-failures reached)',
  'timed-out': 'not sent: the operation did not answer within --timeout twice',
  'target-down': 'not run: the deployment stopped answering',
  'credential-refused': "the run's credential for their security scheme was refused (check --auth or the token)",
  'not-applicable': 'the positive case could not run',
};

/**
 * The kind of reason an operation is untested, as one phrase that says what to do (for the verdict line): by
 * the skip's kind. A row without one (a scenario suite's, or results written before kinds existed) is read
 * from its text.
 */
export function untestedCategory(reason: string, kind?: SkipKind): string {
  if (kind) return UNTESTED_BY_KIND[kind];
  if (/--read-only/.test(reason)) return UNTESTED_BY_KIND['read-only'];
  if (/irreversible/.test(reason)) return UNTESTED_BY_KIND.irreversible;
  if (/one-time password|OTP source/i.test(reason)) return UNTESTED_BY_KIND['otp-source'];
  if (/no described operation creates|does not describe|no GET/.test(reason)) return UNTESTED_BY_KIND['no-producer'];
  if (/interrupted/.test(reason)) return UNTESTED_BY_KIND.interrupted;
  if (/^setup|answered/.test(reason)) return UNTESTED_BY_KIND['setup-failed'];
  return UNTESTED_BY_KIND['not-applicable'];
}

/** The skipped case that says why an operation is untested: its positive case, else its first skipped one. */
function untestedBy(cases: readonly CaseResult[]): CaseResult | undefined {
  return untestedCase(cases) ?? cases.find((x) => x.outcome === 'skipped');
}

/** Number of operations per outcome; every outcome is present (0 when none). */
export function countOutcomes(operations: ReadonlyArray<Pick<OperationResult, 'outcome'>>): Record<Outcome, number> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const op of operations) counts[op.outcome] += 1;
  return counts;
}

/** The run's verdict (see the module comment). */
export function computeVerdict(
  results: Pick<RunResults, 'operations' | 'pact' | 'expiredWaivers' | 'interrupted' | 'failOn' | 'failOnUntested' | 'stopped' | 'targetDown'>,
): Verdict {
  if (results.stopped) return 'incomplete';
  // A deployment that falls over mid-run is the deployment's defect, not a tool problem.
  if (results.targetDown) return 'not-conformant';
  const opFailed = results.operations.some((op) => op.outcome === 'failed' || op.outcome === 'missing' || op.outcome === 'flaky');
  const pactFailed = (results.pact?.interactions ?? []).some((i) => i.outcome === 'failed');
  const expired = results.expiredWaivers.length > 0;
  const warning = results.failOn === 'warning' && unwaivedWarnings(results.operations).length > 0;
  const untested = results.failOnUntested === true && results.operations.some((op) => op.outcome === 'untested');
  if (opFailed || pactFailed || expired || warning || untested) return 'not-conformant';
  const errored =
    results.operations.some((op) => op.outcome === 'errored') || (results.pact?.interactions ?? []).some((i) => i.outcome === 'errored');
  if (results.interrupted || errored) return 'incomplete';
  return 'conformant';
}

/** Every unwaived warning of the run, with the operation and case it belongs to. */
export function unwaivedWarnings(operations: readonly OperationResult[]): Array<{ operationId: string; caseName: string; finding: Finding }> {
  return operations.flatMap((op) =>
    op.cases.flatMap((c) =>
      c.findings.filter((f) => !f.waived && f.severity === 'warning').map((finding) => ({ operationId: op.operationId, caseName: c.name, finding })),
    ),
  );
}

/**
 * The inputs of the lenient tier the deployment accepted (plan/input-tiers.ts), unwaived: warnings the reports
 * list and count apart from the others ("accepted leniently").
 */
export function lenientAcceptances(operations: readonly OperationResult[]): Array<{ operationId: string; caseName: string; finding: Finding }> {
  return unwaivedWarnings(operations).filter((w) => w.finding.lenient === true);
}

/** The count of lenient acceptances results.json carries: the cases that showed one, their requests, the operations. */
export function leniencyCounts(operations: readonly OperationResult[]): RunResults['acceptedLeniently'] {
  const found = lenientAcceptances(operations);
  if (found.length === 0) return undefined;
  return { cases: found.length, requests: found.reduce((n, w) => n + (w.finding.count ?? 1), 0), operations: new Set(found.map((w) => w.operationId)).size };
}

/** Operations the run judged (described, not scenario-only entries). */
function judged(operations: readonly OperationResult[]): OperationResult[] {
  return operations.filter((op) => op.outcome !== 'not-described' && op.method !== null);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * One line saying what the verdict means, the same on the console, in results.json, JUnit and HTML, e.g.
 * "conformant for 9 of 15 operations; 6 untested: irreversible side effects (pass --allow-irreversible
 * against a disposable deployment)".
 */
export function verdictLine(results: Pick<RunResults, 'verdict' | 'operations' | 'stopped' | 'interrupted' | 'failOnUntested' | 'expiredWaivers' | 'pact' | 'failOn' | 'targetDown'>): string {
  const ops = judged(results.operations);
  const n = (o: Outcome): number => ops.filter((op) => op.outcome === o).length;
  const untested = ops.filter((op) => op.outcome === 'untested');
  const byCategory = new Map<string, number>();
  for (const op of untested) {
    const category = untestedCategory(op.reason ?? untestedReason(op.cases), untestedBy(op.cases)?.skipKind);
    byCategory.set(category, (byCategory.get(category) ?? 0) + 1);
  }
  const untestedText =
    untested.length === 0
      ? ''
      : `${untested.length} untested${results.failOnUntested ? ' (--fail-on untested)' : ''}: ${
          byCategory.size === 1 ? [...byCategory.keys()][0] : [...byCategory].map(([k, v]) => `${v} ${k}`).join('; ')
        }`;
  const parts: string[] = [];
  if (results.verdict === 'incomplete') {
    if (results.stopped) return `incomplete: ${results.stopped}`;
    const errored = n('errored');
    if (errored > 0) parts.push(`${plural(errored, 'operation')} errored (tool or network problems): the run cannot vouch for ${errored === 1 ? 'it' : 'them'}`);
    if (results.interrupted) parts.push('the run was interrupted: operations not reached are not counted');
    const pactErrored = (results.pact?.interactions ?? []).filter((i) => i.outcome === 'errored').length;
    if (pactErrored > 0) parts.push(`${plural(pactErrored, 'pact interaction')} errored`);
    if (untestedText) parts.push(untestedText);
    return `incomplete: ${parts.join('; ') || 'the run could not vouch for every operation'}`;
  }
  if (results.verdict === 'not-conformant') {
    if (results.targetDown) parts.push(results.targetDown.message.split(': connections')[0] ?? results.targetDown.message);
    const bad = (['failed', 'missing', 'flaky'] as const).filter((o) => n(o) > 0).map((o) => `${n(o)} ${o}`);
    if (bad.length > 0) parts.push(`${bad.join(', ')} of ${plural(ops.length, 'operation')}`);
    const pactFailed = (results.pact?.interactions ?? []).filter((i) => i.outcome === 'failed').length;
    if (pactFailed > 0) parts.push(`${plural(pactFailed, 'pact interaction')} failed`);
    if (results.expiredWaivers.length > 0) parts.push(`${plural(results.expiredWaivers.length, 'waiver')} expired`);
    const warnings = results.failOn === 'warning' ? unwaivedWarnings(results.operations).length : 0;
    if (warnings > 0) parts.push(`${plural(warnings, 'warning')} (--fail-on warning)`);
    if (untestedText) parts.push(untestedText);
    return `not conformant: ${parts.join('; ')}`;
  }
  const passed = n('passed');
  if (untested.length === 0) return `conformant: ${passed === ops.length ? 'all ' : ''}${plural(passed, 'operation')} passed`;
  return `conformant for ${passed} of ${plural(ops.length, 'operation')}; ${untestedText}`;
}

/** Described operations whose positive case ran (not untested, not skipped). */
export function countTested(operations: readonly OperationResult[]): number {
  return operations.filter(
    (op) => op.outcome !== 'not-described' && op.outcome !== 'untested' && op.outcome !== 'skipped' && op.cases.some((c) => c.outcome !== 'skipped'),
  ).length;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The canonical order of operations in results.json and every report: by service, then group, then
 * operationId (plain code-unit order, the same on every machine and locale). Single runs and merged shards
 * both use it, so their results are identical.
 */
export function sortOperations<T extends Pick<OperationResult, 'service' | 'group' | 'operationId'>>(operations: readonly T[]): T[] {
  return [...operations].sort(
    (a, b) => compareText(a.service, b.service) || compareText(a.group, b.group) || compareText(a.operationId, b.operationId),
  );
}

/** The canonical order of pact interactions: by consumer, provider, pact file, then description. */
export function sortPactInteractions(interactions: readonly PactInteractionResult[]): PactInteractionResult[] {
  return [...interactions].sort(
    (a, b) =>
      compareText(a.consumer, b.consumer) ||
      compareText(a.provider, b.provider) ||
      compareText(a.pactFile, b.pactFile) ||
      compareText(a.description, b.description),
  );
}

/** The canonical order of expired waivers: by operationId, check, then expiry date. */
export function sortExpiredWaivers(waivers: RunResults['expiredWaivers']): RunResults['expiredWaivers'] {
  return [...waivers].sort(
    (a, b) => compareText(a.operationId, b.operationId) || compareText(a.check, b.check) || compareText(a.expires, b.expires),
  );
}

const KIND_ORDER: Record<CaseResult['kind'], number> = { presence: 0, positive: 1, auth: 2, negative: 3, lifecycle: 4, coverage: 5, setup: 6, scenario: 7, pact: 8 };

/**
 * Cases in canonical order: by kind (presence, positive, auth, negative, lifecycle, scenario, pact), keeping
 * the order within a kind (the plan's order, a scenario's steps). A single run and a merge of its shards
 * therefore list the same cases in the same order.
 */
export function sortCases(cases: readonly CaseResult[]): CaseResult[] {
  return cases
    .map((c, i) => [c, i] as const)
    .sort(([a, i], [b, j]) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || i - j)
    .map(([c]) => c);
}

/**
 * Derives everything derivable: case outcomes from findings, operation outcomes from cases, the canonical
 * operation order, coverage.tested, counts and the verdict. Pure: returns a new object and leaves the input
 * as it was. Idempotent: summarise(summarise(x)) deep-equals summarise(x).
 */
export function summarise(results: UnsummarisedResults): RunResults {
  const operations = sortOperations(
    results.operations.map((op) => {
      // A case whose outcome stands is the same object (tens of thousands of cases: no copy of each per pass).
      const cases = sortCases(op.cases).map((c) => {
        const outcome = caseOutcome(c, results.failOn);
        return outcome === c.outcome ? c : { ...c, outcome };
      });
      const outcome = operationOutcome({ outcome: op.outcome, cases });
      const derived: OperationResult = { ...op, cases, outcome };
      if (op.outcome !== 'not-described') derived.ran = kindsRan(cases);
      if (outcome === 'untested' && cases.length > 0) derived.reason = untestedReason(cases);
      else if (op.outcome === 'untested' && outcome !== 'untested') delete derived.reason;
      return derived;
    }),
  );
  const pact = results.pact ? { ...results.pact, interactions: sortPactInteractions(results.pact.interactions) } : undefined;
  const expiredWaivers = sortExpiredWaivers(results.expiredWaivers);
  const verdict = computeVerdict({ ...results, operations, pact, expiredWaivers });
  const line = verdictLine({ ...results, verdict, operations, pact, expiredWaivers });
  const out: RunResults = {
    ...results,
    verdict,
    verdictLine: line,
    coverage: { ...results.coverage, tested: countTested(operations) },
    counts: countOutcomes(operations),
    operations,
    expiredWaivers,
  };
  const lenient = leniencyCounts(operations);
  if (lenient) out.acceptedLeniently = lenient;
  else delete out.acceptedLeniently;
  // From the operations' counts; results read back from results.json keep the run's (operations store none).
  const byLocation = summed(operations.map((op) => op.requestsByLocation)) ?? results.requestsByLocation;
  if (byLocation) out.requestsByLocation = byLocation;
  else delete out.requestsByLocation;
  const access = accessTable(operations);
  if (access) out.access = access;
  else delete out.access;
  if (pact) out.pact = pact;
  // Keys in the order of RunResults in model.ts, so equal results serialise to identical results.json text.
  return canonicalKeyOrder(out);
}

/**
 * The access table from the access cases (execute/phases/access.ts): one row per operation and kind, the status
 * of the owner (`default`) and of each other identity. Undefined when no access case ran.
 */
export function accessTable(operations: readonly OperationResult[]): AccessTable | undefined {
  const rows: AccessTable['rows'] = [];
  const identities = new Set<string>();
  for (const op of operations) {
    const byKind = new Map<string, AccessTable['rows'][number]>();
    for (const c of op.cases) {
      const a = c.access;
      if (!a) continue;
      let row = byKind.get(a.kind);
      if (!row) {
        row = { operationId: op.operationId, method: op.method ?? '', path: op.path ?? '', kind: a.kind, ...(a.owned !== undefined ? { owned: a.owned } : {}), statuses: {} };
        byKind.set(a.kind, row);
        rows.push(row);
      }
      if (a.owner !== undefined) {
        identities.add(a.owner);
        row.statuses[a.owner] = a.ownerStatus ?? null;
      }
      identities.add(a.identity);
      row.statuses[a.identity] = a.status ?? null;
      if (a.lacking && (a.lacking.scopes || a.lacking.roles)) row.lacking = a.lacking;
      const found = c.findings.filter((f) => f.check === 'object-access-across-identities' || f.check === 'function-access-without-scope');
      const verdict: NonNullable<AccessTable['rows'][number]['verdict']> =
        c.outcome === 'skipped' ? 'skipped'
        : found.some((f) => f.severity === 'error') ? 'error'
        : found.some((f) => f.severity === 'warning') ? 'warning'
        : a.status !== undefined && a.status >= 200 && a.status <= 299 ? 'allowed'
        : 'refused';
      const rank = { error: 4, warning: 3, allowed: 2, skipped: 1, refused: 0 } as const;
      if (row.verdict === undefined || rank[verdict] > rank[row.verdict]) row.verdict = verdict;
    }
  }
  if (rows.length === 0) return undefined;
  const names = [...identities].sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : a.localeCompare(b)));
  return { identities: names, rows };
}

const KEY_ORDER: ReadonlyArray<keyof RunResults> = [
  'schemaVersion', 'tool', 'contract', 'target', 'startedAt', 'finishedAt', 'durationMs', 'verdict', 'verdictLine', 'interrupted',
  'stopped', 'targetDown', 'failOn', 'failOnUntested', 'seed', 'shard', 'coverage', 'counts', 'acceptedLeniently', 'requestsByLocation', 'operations', 'access', 'deploymentDiff', 'catalogGroups', 'pact', 'expiredWaivers',
];

function canonicalKeyOrder(results: RunResults): RunResults {
  const entries = KEY_ORDER.filter((k) => results[k] !== undefined).map((k) => [k, results[k]] as const);
  const known = new Set<string>(KEY_ORDER);
  // Fields this module does not know yet (added to the model later) are kept, after the known ones.
  const rest = Object.entries(results).filter(([k]) => !known.has(k));
  return Object.fromEntries([...entries, ...rest]) as unknown as RunResults;
}
