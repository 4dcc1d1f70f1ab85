/**
 * Reports that grow with the distinct failures, not with the contract: a failing case keeps its evidence (its
 * exchanges, schema errors, expected and actual values) only while its failure (the same checks with the same
 * messages) has been shown fewer than EVIDENCE_PER_FAILURE times, and while fewer than EVIDENCE_CASES cases
 * kept theirs, counted in the operations' canonical order (so a run and its shards decide alike). Every other
 * failing case keeps its findings (check, message, location), its curl line and reproduction, and says how
 * many exchanges were left out. Passed and skipped cases already keep only their summary (assemble.ts).
 */
import type { CaseResult, OperationResult } from '../model.ts';
import { lightFinding } from './case-spool.ts';

export const EVIDENCE_PER_FAILURE = 10;
export const EVIDENCE_CASES = 200;

const FAILING = new Set<CaseResult['outcome']>(['failed', 'missing', 'flaky', 'errored']);

/** What makes two failing cases "the same failure": their failing findings (check and message), else the error. */
export function failureSignature(c: CaseResult): string {
  const findings = [...new Set(c.findings.filter((f) => f.severity === 'error').map((f) => `${f.check}\u0000${f.message}`))].sort();
  return `${c.outcome}\u0001${findings.length > 0 ? findings.join('\u0001') : (c.errorMessage ?? '')}`;
}

export interface EvidenceOptions {
  /** The case with all it recorded (read back from the spool); default: the case as given. */
  full?: (c: CaseResult) => CaseResult;
  /** How many exchanges the case recorded (memory may keep fewer, see case-spool.ts); default: those it holds. */
  recorded?: (c: CaseResult) => number;
  /** Keep every case's evidence (--keep-passed-exchanges). */
  unlimited?: boolean;
  perFailure?: number;
  cases?: number;
}

/** The operations with each case's evidence kept or left out (see the module comment). Pure but for `full`. */
export function limitEvidence(operations: OperationResult[], options: EvidenceOptions = {}): OperationResult[] {
  const full = options.full ?? ((c: CaseResult) => c);
  const recorded = options.recorded ?? ((c: CaseResult) => c.exchanges.length);
  const perFailure = options.perFailure ?? EVIDENCE_PER_FAILURE;
  const max = options.cases ?? EVIDENCE_CASES;
  const shown = new Map<string, number>();
  let kept = 0;
  const limit = (c: CaseResult): CaseResult => {
    if (!FAILING.has(c.outcome) || options.unlimited) return full(c);
    const signature = failureSignature(c);
    const times = shown.get(signature) ?? 0;
    if (times < perFailure && kept < max) {
      shown.set(signature, times + 1);
      kept++;
      return full(c);
    }
    const omitted = recorded(c) + (c.omittedExchanges ?? 0);
    const { omittedExchanges: _omitted, ...rest } = c;
    // The new field before the spread: an object given a field its copied ones lack after a spread gets a hidden
    // class of its own in V8 (about 370 bytes a case, 15 MB at 2,770 operations); this way they share one.
    const findings = c.findings.map(lightFinding);
    return omitted > 0 ? { omittedExchanges: omitted, ...rest, exchanges: [], findings } : { ...rest, exchanges: [], findings };
  };
  return operations.map((op) => ({ ...op, cases: op.cases.map(limit) }));
}
