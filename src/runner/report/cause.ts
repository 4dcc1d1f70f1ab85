/**
 * What makes two findings the same finding: the engine folds by it (execute/judge.ts) and the console groups by it
 * (report/console.ts). Pure.
 */
import type { Finding } from '../model.ts';

/** The status the finding's own exchange was answered (absent: no answer, or not known). */
export function findingStatus(f: Finding): number | undefined {
  if (f.request) return f.request.status;
  return f.check === 'status-code-conformance' && typeof f.actual === 'number' ? f.actual : undefined;
}

/**
 * What a finding says caused it: its check and severity, the status answered, where in the contract, the first
 * schema error's keyword (its schema path), the instance it failed on and the property a `required` misses (or an
 * `additionalProperties` refuses: the instance path stops at the object), the kind of lenient input, the varied
 * part. Two findings with the same cause are the same finding; any difference makes two.
 */
export function causeKey(f: Finding, status: number | undefined = findingStatus(f)): string {
  const e = f.schemaErrors?.[0];
  return [
    f.check,
    f.severity,
    status ?? '-',
    f.specLocation ?? '',
    e?.schemaPath ?? '',
    e?.instancePath ?? '',
    e?.missingProperty ?? e?.additionalProperty ?? '',
    f.lenient ? (f.inputClass ?? '') : '',
    f.varied ?? '',
  ].join('\u0000');
}
