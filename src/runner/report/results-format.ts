/**
 * results.json on disk (schemaVersion 2) and back. The reports are rendered from the run's results in memory;
 * results.json stores them compactly, and every reader (merge, --baseline, the tests) expands the file back into
 * the same model with `expandResults`, whichever schemaVersion wrote it (1 or 2).
 *
 * What schemaVersion 2 leaves out of an operation, and how it comes back:
 *  - empty arrays (`ran`, `checks`, `findings`, `exchanges`) are omitted; they come back empty;
 *  - checks that passed are counted per operation in `passedChecks` ({ check id: cases it passed in }); a case
 *    lists in `checks` ({ check id: status }) only the checks that did not pass, and not a failed one that an
 *    unwaived error finding of the case names (it comes back as failed, after the listed ones);
 *  - a finding does not repeat its operation's operationId, method and path;
 *  - a skipped case with nothing but its reason is listed by name under `skipped`, grouped by reason and kind
 *    ({ reason, cases: { kind: [names] } }); it comes back with durationMs 0 after the cases of its kind;
 *  - a passed case keeps its `curl` line only when it kept its exchanges (--keep-passed-exchanges, a retry);
 *  - requests by input location are kept for the run only (`requestsByLocation` at the top), not per operation;
 *  - a finding keeps its `curl` line only where it is not its case's (stored) one: absent, the case's line is it;
 *  - records left behind that no id names are counted (one entry per operation and reason, with a `count` when
 *    more than one, the model's own shape); alike entries (shards merged) are one entry with their counts added;
 *  - a failing case whose evidence was left out (evidence-limit.ts) and whose checks and findings are those of an
 *    earlier such case of the same operation is stored as `sameAs: <that case's name>`: it comes back with that
 *    case's checks and findings, without a curl line of its own (the one named keeps its curl line).
 * Pure.
 */
import type { CaseKind, CaseResult, CheckId, CheckResult, CheckStatus, Finding, LeftBehindRecord, OperationResult, RunResults, SkipKind } from '../model.ts';
import { faultCodeOf } from '../checks/fault-codes.ts';
import { sortCases } from './outcomes.ts';

export const RESULTS_SCHEMA_VERSION = 2;
/** Every schemaVersion this tool reads. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1, 2];

export interface StoredCase {
  name: string;
  kind: CaseKind;
  outcome: CaseResult['outcome'];
  durationMs: number;
  skipReason?: string;
  skipKind?: SkipKind;
  errorMessage?: string;
  flaky?: CaseResult['flaky'];
  checks?: Record<string, Exclude<CheckStatus, 'passed'>>;
  findings?: Array<Partial<Finding> & Pick<Finding, 'check' | 'severity' | 'message'>>;
  exchanges?: CaseResult['exchanges'];
  curl?: string;
  reproduction?: string;
  retried?: boolean;
  omittedExchanges?: number;
  /** The earlier case of the operation with the same checks and findings (see the module comment). */
  sameAs?: string;
  access?: CaseResult['access'];
  notes?: string[];
}

export interface SkippedGroup {
  reason: string;
  kind?: SkipKind;
  cases: Partial<Record<CaseKind, string[]>>;
}

export type StoredOperation = Omit<OperationResult, 'cases' | 'ran'> & {
  ran?: CaseKind[];
  passedChecks?: Record<string, number>;
  cases?: StoredCase[];
  skipped?: SkippedGroup[];
};

/** A skipped case that says nothing but its reason: listed by name in its operation's `skipped` groups. */
function plainSkip(c: CaseResult): c is CaseResult & { skipReason: string } {
  return (
    c.outcome === 'skipped' &&
    typeof c.skipReason === 'string' &&
    c.checks.length === 0 &&
    c.findings.length === 0 &&
    c.exchanges.length === 0 &&
    c.curl === undefined &&
    c.reproduction === undefined &&
    c.errorMessage === undefined &&
    c.flaky === undefined &&
    !c.retried &&
    c.omittedExchanges === undefined &&
    c.access === undefined &&
    c.notes === undefined
  );
}

/** A failing case whose evidence was left out and that carries nothing but its checks and findings. */
function repeatable(c: CaseResult): boolean {
  return (
    c.outcome === 'failed' &&
    c.omittedExchanges !== undefined &&
    c.exchanges.length === 0 &&
    c.findings.length > 0 &&
    c.reproduction === undefined &&
    c.errorMessage === undefined &&
    c.skipReason === undefined &&
    c.flaky === undefined &&
    !c.retried &&
    c.access === undefined &&
    c.notes === undefined
  );
}

function storedFinding(f: Finding, op: OperationResult): StoredCase['findings'] extends Array<infer F> | undefined ? F : never {
  const { operationId, method, path, ...rest } = f;
  const faultCode = f.faultCode ?? faultCodeOf(f);
  return {
    ...(operationId !== op.operationId ? { operationId } : {}),
    ...(method !== op.method ? { method } : {}),
    ...(path !== op.path ? { path } : {}),
    ...rest,
    ...(faultCode !== undefined ? { faultCode } : {}),
  };
}

function withoutRequest(f: Finding): Finding {
  const { request: _request, ...rest } = f;
  return rest;
}

/** The finding without its curl line where the case's own (stored) line is the same, or the case keeps none. */
function withoutCurl(f: Finding, caseCurl: string | undefined): Finding {
  if (f.curl === undefined || (caseCurl !== undefined && f.curl !== caseCurl)) return f;
  const { curl: _curl, ...rest } = f;
  return rest;
}

/** The checks an unwaived error finding names: they failed, so their status need not be stored. */
function impliedFailures(findings: ReadonlyArray<Pick<Finding, 'check' | 'severity' | 'waived'>>): Set<string> {
  return new Set(findings.filter((f) => f.severity === 'error' && !f.waived).map((f) => f.check));
}

function storedCase(c: CaseResult, op: OperationResult): StoredCase {
  const out: StoredCase = { name: c.name, kind: c.kind, outcome: c.outcome, durationMs: c.durationMs };
  if (c.skipReason !== undefined) out.skipReason = c.skipReason;
  if (c.skipKind !== undefined) out.skipKind = c.skipKind;
  if (c.errorMessage !== undefined) out.errorMessage = c.errorMessage;
  if (c.flaky) out.flaky = c.flaky;
  const implied = impliedFailures(c.findings);
  const notPassed = c.checks.filter((k) => k.status !== 'passed' && !(k.status === 'failed' && implied.has(k.id)));
  if (notPassed.length > 0) out.checks = Object.fromEntries(notPassed.map((k) => [k.id, k.status])) as StoredCase['checks'];
  // A passed case's curl repeats a call that held; it stays only with the exchanges it belongs to.
  const curl = c.curl !== undefined && (c.outcome !== 'passed' || c.exchanges.length > 0) ? c.curl : undefined;
  // A finding names the request that showed it only where the case's exchanges (which show it) were left out, and
  // its curl line only where it is not the case's (and the case keeps one).
  if (c.findings.length > 0) out.findings = c.findings.map((f) => storedFinding(withoutCurl(c.exchanges.length > 0 && f.request ? withoutRequest(f) : f, curl), op));
  if (c.exchanges.length > 0) out.exchanges = c.exchanges;
  if (curl !== undefined) out.curl = curl;
  if (c.reproduction !== undefined) out.reproduction = c.reproduction;
  if (c.retried) out.retried = true;
  if (c.omittedExchanges !== undefined) out.omittedExchanges = c.omittedExchanges;
  if (c.access !== undefined) out.access = c.access;
  if (c.notes !== undefined && c.notes.length > 0) out.notes = c.notes;
  return out;
}

/** One operation as schemaVersion 2 stores it (see the module comment). */
export function storedOperation(op: OperationResult): StoredOperation {
  // Requests by input location are stored summed over the run only (a few bytes per operation at 2,770 of them).
  const { cases, ran, passedChecks: _passed, requestsByLocation: _byLocation, ...rest } = op;
  const out: StoredOperation = { ...rest };
  if (ran && ran.length > 0) out.ran = ran;
  const passed: Record<string, number> = { ...op.passedChecks };
  for (const c of cases) for (const k of c.checks) if (k.status === 'passed') passed[k.id] = (passed[k.id] ?? 0) + 1;
  if (Object.keys(passed).length > 0) out.passedChecks = passed;
  const listed: StoredCase[] = [];
  const groups = new Map<string, SkippedGroup>();
  const repeated = new Map<string, string>();
  for (const c of cases) {
    if (!plainSkip(c)) {
      const stored = storedCase(c, op);
      // A finding's own curl line is its case's: a case that keeps one is never another's repeat.
      if (repeatable(c) && !stored.findings?.some((f) => f.curl !== undefined)) {
        const key = JSON.stringify([stored.outcome, stored.checks, stored.findings]);
        const first = repeated.get(key);
        if (first === undefined) repeated.set(key, c.name);
        else {
          listed.push({ name: c.name, kind: c.kind, outcome: c.outcome, durationMs: c.durationMs, omittedExchanges: c.omittedExchanges, sameAs: first });
          continue;
        }
      }
      listed.push(stored);
      continue;
    }
    const key = `${c.skipKind ?? ''}\u0000${c.skipReason}`;
    const group = groups.get(key) ?? { reason: c.skipReason, ...(c.skipKind ? { kind: c.skipKind } : {}), cases: {} };
    groups.set(key, group);
    (group.cases[c.kind] ??= []).push(c.name);
  }
  if (listed.length > 0) out.cases = listed;
  if (groups.size > 0) out.skipped = [...groups.values()];
  return out;
}

export type StoredLeftBehind = LeftBehindRecord;

/** Records left behind, alike ones (same fields but the count, in the same order) as one entry, counts added. */
export function storedLeftBehind(records: readonly LeftBehindRecord[]): StoredLeftBehind[] {
  const byText = new Map<string, StoredLeftBehind>();
  for (const { count, ...r } of records) {
    const key = JSON.stringify(r);
    const seen = byText.get(key);
    if (seen) seen.count = (seen.count ?? 1) + (count ?? 1);
    else byText.set(key, count !== undefined && count > 1 ? { ...r, count } : { ...r });
  }
  return [...byText.values()];
}

export type StoredResults = Omit<RunResults, 'schemaVersion' | 'operations' | 'leftBehind'> & {
  schemaVersion: 2;
  operations: StoredOperation[];
  leftBehind?: StoredLeftBehind[];
};

/** Results as schemaVersion 2 stores them: the same top-level fields, each operation stored compactly. */
export function storedResults(results: RunResults): StoredResults {
  const stored: StoredResults = { ...results, schemaVersion: 2, operations: results.operations.map(storedOperation) };
  if (results.leftBehind) stored.leftBehind = storedLeftBehind(results.leftBehind);
  return stored;
}

function expandCase(c: StoredCase, op: StoredOperation): CaseResult {
  const { checks, findings, exchanges, ...rest } = c;
  const listed = Object.entries(checks ?? {}).map(([id, status]) => ({ id: id as CheckId, status }) satisfies CheckResult);
  const implied = [...impliedFailures(findings ?? [])]
    .filter((id) => !listed.some((k) => k.id === id))
    .map((id) => ({ id: id as CheckId, status: 'failed' as const }));
  return {
    ...rest,
    checks: [...listed, ...implied],
    findings: (findings ?? []).map(
      (f) => ({ operationId: op.operationId, method: op.method ?? undefined, path: op.path ?? undefined, ...f }) as Finding,
    ),
    exchanges: exchanges ?? [],
  };
}

/** One stored operation back in the model (see the module comment). */
export function expandOperation(op: StoredOperation): OperationResult {
  const { cases, skipped, passedChecks, ran, ...rest } = op;
  const byName = new Map((cases ?? []).map((c) => [c.name, c]));
  const all: CaseResult[] = (cases ?? []).map((c) => {
    if (c.sameAs === undefined) return expandCase(c, op);
    const { sameAs, ...rest } = c;
    const first = byName.get(sameAs);
    return expandCase({ ...rest, ...(first?.checks ? { checks: first.checks } : {}), ...(first?.findings ? { findings: first.findings } : {}) }, op);
  });
  for (const group of skipped ?? []) {
    for (const [kind, names] of Object.entries(group.cases) as Array<[CaseKind, string[]]>) {
      for (const name of names) {
        all.push({ name, kind, outcome: 'skipped', skipReason: group.reason, ...(group.kind ? { skipKind: group.kind } : {}), durationMs: 0, checks: [], findings: [], exchanges: [] });
      }
    }
  }
  const out: OperationResult = { ...rest, ...(ran !== undefined || rest.outcome !== 'not-described' ? { ran: ran ?? [] } : {}), cases: sortCases(all) };
  if (passedChecks) out.passedChecks = passedChecks;
  return out;
}

/**
 * Parsed results.json of any readable schemaVersion as the model the reports and merge work on. The caller
 * checks the version and the schema first (merge.ts, baseline-file.ts).
 */
export function expandResults(data: unknown): RunResults {
  const results = data as StoredResults | RunResults;
  if (results.schemaVersion !== 2) return results as RunResults;
  const stored = results as StoredResults;
  // Records left behind keep their counts: the model counts the records no id names too.
  return { ...stored, operations: stored.operations.map(expandOperation) } as unknown as RunResults;
}
