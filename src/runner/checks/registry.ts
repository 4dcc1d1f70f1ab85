import type { CheckId, CheckResult, Finding } from '../model.ts';
import { authEnforced } from './auth-enforced.ts';
import { contentTypeConformance } from './content-type-conformance.ts';
import { createShape } from './create-shape.ts';
import { createdResourceReadable } from './created-resource-readable.ts';
import { ownership } from './ownership.ts';
import { secretNotExposed } from './secret-not-exposed.ts';
import { semanticExpectation } from './semantic-expectation.ts';
import { errorEnvelopeConformance } from './error-envelope-conformance.ts';
import { jsonWellformed } from './json-wellformed.ts';
import { negativeDataRejected } from './negative-data-rejected.ts';
import { notAServerError } from './not-a-server-error.ts';
import { operationPresent } from './operation-present.ts';
import { positiveDataAccepted } from './positive-data-accepted.ts';
import { propertyCasing } from './property-casing.ts';
import { responseBodyReadable } from './response-body-readable.ts';
import { responseSchemaConformance } from './response-schema-conformance.ts';
import { statusCodeConformance } from './status-code-conformance.ts';
import { successNotErrorEnvelope } from './success-not-error-envelope.ts';
import type { Check, CheckContext } from './types.ts';
import { updatePersisted } from './update-persisted.ts';
import { useAfterDelete } from './use-after-delete.ts';
import { writeOnlyNotReturned } from './write-only-not-returned.ts';

/** Every check, by stable id. The id is the JUnit name suffix, the waiver key and the docs anchor. */
export const CHECKS: ReadonlyMap<CheckId, Check> = new Map(
  [
    operationPresent,
    notAServerError,
    statusCodeConformance,
    contentTypeConformance,
    responseBodyReadable,
    responseSchemaConformance,
    errorEnvelopeConformance,
    createShape,
    authEnforced,
    negativeDataRejected,
    positiveDataAccepted,
    propertyCasing,
    updatePersisted,
    useAfterDelete,
    jsonWellformed,
    successNotErrorEnvelope,
    createdResourceReadable,
    ownership,
    secretNotExposed,
    semanticExpectation,
    writeOnlyNotReturned,
  ].map((c) => [c.id, c]),
);

/** Runs every check that applies to the context's expectation; returns their statuses and findings. */
export function runChecks(ctx: CheckContext): { checks: CheckResult[]; findings: Finding[] } {
  const checks: CheckResult[] = [];
  const findings: Finding[] = [];
  for (const check of CHECKS.values()) {
    if (!check.appliesTo.includes(ctx.expectation)) continue;
    const found = check.run(ctx);
    findings.push(...found);
    checks.push({ id: check.id, status: statusOf(found) });
  }
  return { checks, findings };
}

export function statusOf(found: Finding[]): CheckResult['status'] {
  if (found.some((f) => f.severity === 'error')) return 'failed';
  if (found.some((f) => f.severity === 'warning')) return 'warning';
  return 'passed';
}
