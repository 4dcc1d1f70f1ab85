import type { CheckId, HttpMethod } from '../model.ts';

/**
 * The Web Fuzzing Commons fault category (WFC `DefinedFaultCategory`, the catalog EvoMaster reports in and research
 * benchmarks compare by) of each check whose error proves one. A check with no WFC category has no row and its
 * findings carry no code. `writes` is the category where the finding is about a modifying method (WFC tells an
 * anonymous read, 207, from an anonymous modification, 208). Data only: results.json (`faultCode`), JUnit (a
 * property) and the checks table read it.
 */
export const FAULT_CODES: Readonly<Partial<Record<CheckId, { code: number; writes?: number; category: string }>>> = {
  'not-a-server-error': { code: 100, category: 'HTTP Status 500' },
  'connection-dropped': { code: 100, category: 'HTTP Status 500 (a crash: the connection closed without an answer)' },
  'response-schema-conformance': { code: 101, category: 'Response not matching its schema' },
  'status-code-conformance': { code: 101, category: 'Response not matching its schema (an undocumented status)' },
  'content-type-conformance': { code: 101, category: 'Response not matching its schema (an undocumented media type)' },
  'response-headers-conformance': { code: 101, category: 'Response not matching its schema (its headers)' },
  'negative-data-rejected': { code: 102, category: 'Success response to wrong data (validation bypass)' },
  'use-after-delete': { code: 103, category: 'Resource still accessible after being deleted' },
  'failed-create-no-side-effects': { code: 104, category: 'Failed creation of a resource has side effects' },
  'mass-assignment': { code: 203, category: 'Mass assignment' },
  'credential-recognised': { code: 205, category: 'Wrongly not recognised as authenticated' },
  'object-access-across-identities': { code: 206, category: 'Allowed to access a resource that should be protected' },
  'function-access-without-scope': { code: 206, category: 'Allowed to access a resource that should be protected' },
  'auth-enforced': { code: 207, writes: 208, category: 'Protected resource accessible without authentication (208: an anonymous modification)' },
  'stack-trace-not-exposed': { code: 209, category: 'Leaked stack trace' },
  'hidden-endpoint': { code: 210, category: 'Hidden accessible endpoint' },
};

const MODIFYING = new Set<string>(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The WFC code of an error finding of `check` about a call with `method`; undefined for a warning, or a check with none. */
export function faultCodeOf(finding: { check: CheckId; severity: string; method?: HttpMethod | null }): number | undefined {
  if (finding.severity !== 'error') return undefined;
  const row = FAULT_CODES[finding.check];
  if (!row) return undefined;
  return row.writes !== undefined && finding.method && MODIFYING.has(finding.method.toUpperCase()) ? row.writes : row.code;
}
