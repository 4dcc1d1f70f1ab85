/**
 * The planned requests of an operation by the location of the input each varies (plan/input-location.ts), for
 * `conformance plan`: the coverage case's items as the phase picks them (from the planned request: path ids the run
 * fills in later may change a few), the fuzzing case's draws, and every other case that runs as one request (records
 * made first, re-sends and the methods a path does not document are not counted). Counters only.
 */
import type { Contract, LocationCounts, Operation } from '../model.ts';
import { COVERAGE_CASE, DEFAULT_FUZZ_EXAMPLES, FUZZ_CASE, type PlannedCase } from '../plan/cases.ts';
import { fuzzedPath } from '../plan/fuzz-inputs.ts';
import { caseLocation, count, fuzzLocation, locationOf } from '../plan/input-location.ts';
import { coverageItemsOf } from '../execute/phases/coverage-phase.ts';

export interface ShareSettings {
  seed: number;
  maxExamples?: number;
  fuzzExamples?: number;
  allowIrreversible: boolean;
}

export function plannedLocations(contract: Contract, op: Operation, cases: readonly PlannedCase[], settings: ShareSettings, into: LocationCounts = {}): LocationCounts {
  for (const c of cases) {
    if (c.skip) continue;
    if (c.kind === 'coverage' && c.name === COVERAGE_CASE) {
      const r = c.request;
      const positive = { pathParams: r.pathParams, query: r.query, ...(r.headers ? { headers: r.headers } : {}), ...(r.cookies ? { cookies: r.cookies } : {}), ...(r.body !== undefined ? { body: r.body } : {}) };
      const mine = { seed: settings.seed, allowIrreversible: settings.allowIrreversible, mustRefuseOnly: c.mustRefuseOnly === true, ...(settings.maxExamples !== undefined ? { maxExamples: settings.maxExamples } : {}) };
      for (const item of coverageItemsOf(contract, op, positive, mine)) count(into, locationOf(item));
    } else if (c.kind === 'coverage' && c.name === FUZZ_CASE) {
      count(into, fuzzLocation(op, new Set(fuzzedPath(op))), settings.fuzzExamples ?? DEFAULT_FUZZ_EXAMPLES);
    } else count(into, caseLocation(c));
  }
  return into;
}
