/** Findings: what a check found wrong (or worth a warning) in one exchange or a run, with its evidence. */
import type { HttpMethod } from './contract.ts';

export type CheckId =
  | 'not-a-server-error'
  | 'status-code-conformance'
  | 'content-type-conformance'
  | 'response-headers-conformance'
  | 'response-schema-conformance'
  | 'error-envelope-conformance'
  | 'create-shape'
  | 'auth-enforced'
  | 'negative-data-rejected'
  | 'positive-data-accepted'
  | 'use-after-delete'
  | 'update-persisted'
  | 'operation-present'
  | 'property-casing'
  | 'created-resource-readable'
  | 'ownership'
  | 'json-wellformed'
  | 'success-not-error-envelope'
  | 'secret-not-exposed'
  | 'semantic-expectation'
  | 'response-timeout'
  | 'response-body-readable'
  | 'write-only-not-returned'
  | 'unsupported-method'
  | 'object-access-across-identities'
  | 'function-access-without-scope'
  | 'stack-trace-not-exposed'
  | 'no-content-no-body'
  | 'hidden-endpoint'
  | 'connection-dropped'
  | 'failed-create-no-side-effects'
  | 'mass-assignment'
  | 'credential-recognised'
  | 'put-idempotent'
  | 'location-serves-record'
  | 'unauthorized-challenge'
  | 'paging-kept';

export type Severity = 'error' | 'warning' | 'info';

export interface SchemaErrorDetail {
  instancePath: string;
  schemaPath: string;
  message: string;
  /** The schema the failing keyword belongs to, compacted (e.g. { type: 'boolean' }). */
  expected?: unknown;
  /** A `required` keyword: the property the object lacks (ajv's params.missingProperty; the instance path is the object's). */
  missingProperty?: string;
  /** An `additionalProperties` keyword: the property the object may not have (ajv's params.additionalProperty). */
  additionalProperty?: string;
}

export interface Finding {
  check: CheckId;
  severity: Severity;
  operationId: string;
  method: HttpMethod;
  path: string;
  /** Plain message: what is wrong, in one sentence. */
  message: string;
  expected?: unknown;
  actual?: unknown;
  /** Where in the contract the expectation comes from: "<file>#<json pointer>". */
  specLocation?: string;
  schemaErrors?: SchemaErrorDetail[];
  /** Set by the gate policy when a waiver covers this finding. */
  waived?: { reason: string; expires: string };
  /**
   * How many exchanges of the case showed this same defect (operation × check × status × schema location), when
   * more than one: the finding is shown once, with the smallest request that shows it.
   */
  count?: number;
  /**
   * An input of the lenient tier (plan/input-tiers.ts) was accepted: a warning the reports count apart as "accepted
   * leniently" (an error instead, without this mark, where the profile declares strictInput).
   */
  lenient?: true;
  /** The input class of the request a negative-data-rejected finding is about. */
  inputClass?: string;
  /**
   * What the coverage request that broke the server, or whose valid variation was refused, varied ("body.name",
   * "path.id"): each such part is a finding of its own, so one does not hide another.
   */
  varied?: string;
  /**
   * The request that showed it (the smallest, where many did): what identifies the finding when its exchanges are
   * left out of the reports. `status` is absent for a request that got no answer.
   */
  request?: { method: HttpMethod; url: string; status?: number };
  /**
   * The curl line of that request: the one exchange whose answer this finding states (its status, media type and
   * body), never another's of its case or group. Absent where no exchange of the run shows the finding (a
   * scenario's assertion), and in results.json where it is the case's own `curl` line: the case's is then the one.
   */
  curl?: string;
  /**
   * That request names a record the run made first (deleted since, where the run could): its curl line alone no
   * longer answers as it did; the case's reproduction script makes the record first where the finding is the one
   * it reproduces (its first error).
   */
  needsRecord?: true;
  /**
   * Folded: the same finding (same check, status, schema location and cause) shown in full in the earlier case
   * named here, whose count includes this one; its message still describes its own evidence.
   */
  sameAs?: string;
  /**
   * The Web Fuzzing Commons fault category an error of this check proves (checks/fault-codes.ts: 100 a server
   * error or crash, 101 an answer off its schema, …, 210 a hidden endpoint); absent for warnings and for checks
   * WFC has no category for.
   */
  faultCode?: number;
}
