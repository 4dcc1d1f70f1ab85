/**
 * Outcomes, counts and the verdict: pure functions over results. Every reporter and the gate policy call
 * these, so a case, an operation and a run are judged the same way everywhere.
 *
 * Rules (ARCHITECTURE.md, "Outcomes are distinct"):
 * - A finding blocks its case when it is not waived and its severity is `error`, or `warning` under
 *   `failOn: warning`. `info` never blocks.
 * - A case is skipped or errored as the engine recorded it. Otherwise it is missing when a blocking finding
 *   says the operation is absent (or the engine said missing), failed on any other blocking finding, passed
 *   when all its findings are non-blocking; a case without findings keeps the engine's outcome (a scenario
 *   assertion may fail without a structured finding).
 * - An operation is missing if any case is missing; else failed if any failed; else errored if any errored;
 *   else skipped if all are skipped; else passed. `not-described` stays; an operation without cases keeps
 *   its outcome.
 * - The run is not-conformant when any operation is failed or missing, any pact interaction failed, a waiver
 *   expired, or (failOn warning) an unwaived warning exists; else incomplete when interrupted; else
 *   conformant. A definite failure outranks the interruption: what was found stays found.
 */
import type {
  CaseOutcome,
  CaseResult,
  Finding,
  OperationResult,
  Outcome,
  PactInteractionResult,
  RunResults,
} from '../model.ts';

export type FailOn = RunResults['failOn'];
export type Verdict = RunResults['verdict'];

/** Every outcome, in the order reports list them. */
export const OUTCOMES: readonly Outcome[] = ['passed', 'failed', 'missing', 'errored', 'skipped', 'not-described'];

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
  if (c.outcome === 'skipped' || c.outcome === 'errored') return c.outcome;
  const blocking = blockingFindings(c, failOn);
  if (blocking.length > 0) {
    const absent = c.outcome === 'missing' || blocking.some((f) => f.check === 'operation-present');
    return absent ? 'missing' : 'failed';
  }
  if (c.findings.length === 0) return c.outcome;
  return 'passed';
}

/** An operation's outcome from its cases' outcomes (see the module comment). */
export function operationOutcome(op: Pick<OperationResult, 'outcome'> & { cases: Array<Pick<CaseResult, 'outcome'>> }): Outcome {
  if (op.outcome === 'not-described' || op.cases.length === 0) return op.outcome;
  const has = (o: CaseOutcome): boolean => op.cases.some((c) => c.outcome === o);
  if (has('missing')) return 'missing';
  if (has('failed')) return 'failed';
  if (has('errored')) return 'errored';
  if (op.cases.every((c) => c.outcome === 'skipped')) return 'skipped';
  return 'passed';
}

/** Number of operations per outcome; every outcome is present (0 when none). */
export function countOutcomes(operations: ReadonlyArray<Pick<OperationResult, 'outcome'>>): Record<Outcome, number> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const op of operations) counts[op.outcome] += 1;
  return counts;
}

/** The run's verdict (see the module comment). */
export function computeVerdict(
  results: Pick<RunResults, 'operations' | 'pact' | 'expiredWaivers' | 'interrupted' | 'failOn'>,
): Verdict {
  const opFailed = results.operations.some((op) => op.outcome === 'failed' || op.outcome === 'missing');
  const pactFailed = (results.pact?.interactions ?? []).some((i) => i.outcome === 'failed');
  const expired = results.expiredWaivers.length > 0;
  const warning =
    results.failOn === 'warning' &&
    results.operations.some((op) => op.cases.some((c) => c.findings.some((f) => !f.waived && f.severity === 'warning')));
  if (opFailed || pactFailed || expired || warning) return 'not-conformant';
  if (results.interrupted) return 'incomplete';
  return 'conformant';
}

/** Described operations with at least one case that was not skipped. */
export function countTested(operations: readonly OperationResult[]): number {
  return operations.filter((op) => op.outcome !== 'not-described' && op.cases.some((c) => c.outcome !== 'skipped'))
    .length;
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

const KIND_ORDER: Record<CaseResult['kind'], number> = { presence: 0, positive: 1, auth: 2, negative: 3, lifecycle: 4, coverage: 5, scenario: 6, pact: 7 };

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
      const cases = sortCases(op.cases).map((c) => ({ ...c, outcome: caseOutcome(c, results.failOn) }));
      return { ...op, cases, outcome: operationOutcome({ outcome: op.outcome, cases }) };
    }),
  );
  const pact = results.pact ? { ...results.pact, interactions: sortPactInteractions(results.pact.interactions) } : undefined;
  const expiredWaivers = sortExpiredWaivers(results.expiredWaivers);
  const verdict = computeVerdict({ ...results, operations, pact, expiredWaivers });
  const out: RunResults = {
    ...results,
    verdict,
    coverage: { ...results.coverage, tested: countTested(operations) },
    counts: countOutcomes(operations),
    operations,
    expiredWaivers,
  };
  if (pact) out.pact = pact;
  // Keys in the order of RunResults in model.ts, so equal results serialise to identical results.json text.
  return canonicalKeyOrder(out);
}

const KEY_ORDER: ReadonlyArray<keyof RunResults> = [
  'schemaVersion', 'tool', 'contract', 'target', 'startedAt', 'finishedAt', 'durationMs', 'verdict', 'interrupted',
  'failOn', 'seed', 'shard', 'coverage', 'counts', 'operations', 'deploymentDiff', 'pact', 'expiredWaivers',
];

function canonicalKeyOrder(results: RunResults): RunResults {
  const entries = KEY_ORDER.filter((k) => results[k] !== undefined).map((k) => [k, results[k]] as const);
  const known = new Set<string>(KEY_ORDER);
  // Fields this module does not know yet (added to the model later) are kept, after the known ones.
  const rest = Object.entries(results).filter(([k]) => !known.has(k));
  return Object.fromEntries([...entries, ...rest]) as unknown as RunResults;
}
