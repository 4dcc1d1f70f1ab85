import type { CheckId, CheckResult, Finding } from '../model.ts';
import { functionAccessWithoutScope, objectAccessAcrossIdentities } from './access.ts';
import { authEnforced } from './auth-enforced.ts';
import { contentTypeConformance } from './content-type-conformance.ts';
import { createShape } from './create-shape.ts';
import { createdResourceReadable } from './created-resource-readable.ts';
import { credentialRecognised } from './credential-recognised.ts';
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
import { responseTimeout } from './response-timeout.ts';
import { responseHeadersConformance } from './response-headers-conformance.ts';
import { responseSchemaConformance } from './response-schema-conformance.ts';
import { statusCodeConformance } from './status-code-conformance.ts';
import { successNotErrorEnvelope } from './success-not-error-envelope.ts';
import type { Check, CheckContext, UnansweredContext } from './types.ts';
import { unsupportedMethod } from './unsupported-method.ts';
import { hiddenEndpoint } from './hidden-endpoint.ts';
import { connectionDropped } from './connection-dropped.ts';
import { updatePersisted } from './update-persisted.ts';
import { useAfterDelete } from './use-after-delete.ts';
import { failedCreateNoSideEffects } from './failed-create-no-side-effects.ts';
import { writeOnlyNotReturned } from './write-only-not-returned.ts';
import { stackTraceNotExposed } from './stack-trace-not-exposed.ts';
import { noContentNoBody } from './no-content-no-body.ts';
import { massAssignment } from './mass-assignment.ts';
import { putIdempotent } from './put-idempotent.ts';
import { locationServesRecord } from './location-serves-record.ts';
import { unauthorizedChallenge } from './unauthorized-challenge.ts';
import { pagingKept } from './paging-kept.ts';

/** Every check, by stable id. The id is the JUnit name suffix, the waiver key and the docs anchor. */
export const CHECKS: ReadonlyMap<CheckId, Check> = new Map(
  [
    operationPresent,
    responseTimeout,
    notAServerError,
    connectionDropped,
    statusCodeConformance,
    contentTypeConformance,
    responseBodyReadable,
    responseSchemaConformance,
    responseHeadersConformance,
    errorEnvelopeConformance,
    createShape,
    authEnforced,
    credentialRecognised,
    negativeDataRejected,
    positiveDataAccepted,
    propertyCasing,
    updatePersisted,
    useAfterDelete,
    failedCreateNoSideEffects,
    jsonWellformed,
    successNotErrorEnvelope,
    createdResourceReadable,
    ownership,
    secretNotExposed,
    semanticExpectation,
    writeOnlyNotReturned,
    stackTraceNotExposed,
    noContentNoBody,
    unauthorizedChallenge,
    massAssignment,
    unsupportedMethod,
    hiddenEndpoint,
    objectAccessAcrossIdentities,
    functionAccessWithoutScope,
    putIdempotent,
    locationServesRecord,
    pagingKept,
  ].map((c) => [c.id, c]),
);

/** Response checks that judge an answer to a method the operation does not have: they do not speak of the operation. */
const ANY_METHOD = new Set<CheckId>(['secret-not-exposed', 'stack-trace-not-exposed', 'response-timeout', 'unauthorized-challenge']);

/** The checks of an answer to a method the contract does not document for the path: how it is refused, and whether it is served. */
const UNDOCUMENTED_METHOD = new Set<CheckId>(['unsupported-method', 'hidden-endpoint']);

/**
 * True when the check judges the context: every response check; an intent check for its expectations. An
 * answer to a method the contract does not document for the path is no answer of the operation: only its
 * own checks and the checks that hold for any answer judge it.
 */
export function applies(check: Check, ctx: Pick<CheckContext, 'expectation'>): boolean {
  if (ctx.expectation === 'unsupported-method') return UNDOCUMENTED_METHOD.has(check.id) || ANY_METHOD.has(check.id);
  return check.scope === 'response' || (ctx.expectation !== undefined && check.appliesTo.includes(ctx.expectation));
}

/**
 * Runs every response check and the intent checks of the context's expectation on one answered exchange;
 * returns their statuses and findings. A schema the tool cannot compile throws SchemaCompileError.
 */
export function runChecks(ctx: CheckContext): { checks: CheckResult[]; findings: Finding[] } {
  const checks: CheckResult[] = [];
  const findings: Finding[] = [];
  for (const check of CHECKS.values()) {
    if (!applies(check, ctx)) continue;
    const found = check.run(ctx);
    findings.push(...found);
    checks.push({ id: check.id, status: statusOf(found) });
  }
  // A missing operation's answer is the gateway's, not the operation's: nothing else is judged on it.
  if (findings.some((f) => f.check === 'operation-present' && f.severity === 'error')) {
    return { checks: checks.filter((c) => c.id === 'operation-present'), findings: findings.filter((f) => f.check === 'operation-present') };
  }
  return { checks, findings };
}

/** The response checks that judge an exchange without an answer (a timeout); a network error judges nothing. */
export function runUnansweredChecks(ctx: UnansweredContext): { checks: CheckResult[]; findings: Finding[] } {
  const checks: CheckResult[] = [];
  const findings: Finding[] = [];
  for (const check of CHECKS.values()) {
    if (check.scope !== 'response' || !check.unanswered) continue;
    const found = check.unanswered(ctx);
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
