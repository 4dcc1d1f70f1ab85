import type { CheckId, Exchange, Finding, Operation, RecordedResponse, Severity } from '../model.ts';
import type { Expectation_ } from '../plan/cases.ts';
import type { AssignedProperty } from '../plan/mass-assignment.ts';
import type { Expectation } from '../description/examples.ts';
import type { Profile } from '../description/profile.ts';
import type { SchemaValidator } from './schema.ts';

export interface CheckContext {
  exchange: Exchange & { response: RecordedResponse };
  operation: Operation;
  profile: Profile;
  validator: SchemaValidator;
  /**
   * What the case that sent the request meant (its intent): the intent checks that apply to it run. Absent for
   * an exchange judged for response conformance only (a setup call, a read-back, a coverage variation).
   */
  expectation?: Expectation_;
  /** Values the response must carry (from contract/examples.yaml). */
  expect?: Expectation[];
  /** Lifecycle chains: what was sent by the update, and the read that followed the update or delete. */
  lifecycle?: {
    sent?: unknown;
    readBack: Exchange & { response: RecordedResponse };
  };
  /** Reads of related operations that must serve what the case wrote (read-your-writes, ownership). */
  reads?: RelatedRead[];
  /** Secrets the case's flow verifies (raw values, never reported), and every exchange of the case. */
  secrets?: string[];
  caseExchanges?: Exchange[];
  /** Presence: the deployment's answer to a route that surely does not exist (same method), and its path. */
  unknownRoute?: { path: string; response: Pick<RecordedResponse, 'status' | 'body'> };
  /**
   * A coverage request: its label, the requests sent so far, whether the request without its variation broke the
   * server too, and whether the contract leaves its acceptance open (a raw path segment, an unconstrained word, JSON
   * nested deeper than a parser may take: only its answer is judged).
   */
  coverage?: { label: string; sent: number; unvaried?: boolean; unsettled?: boolean };
  /**
   * A request with a method the contract documents for no operation of the path: the methods it documents
   * there (covered: with those of paths that hold its URLs too), and whether the path names a record the run
   * does not know to exist (then a 404 says nothing).
   */
  unsupportedMethod?: { documented: string[]; covered?: string[]; recordUnknown: boolean };
  /** What a valid request names that the run did not get from the service ("{id} = 5", "user_id = 245"). */
  madeUpReferences?: string[];
  /** The rules of a valid request the contract does not show ("whether a body is required is not shown"). */
  unshown?: string[];
  /** Records a valid request names that the deployment no longer holds: a read of the same path answered 404 or 410 too. */
  gone?: string[];
  /** A negative case that any 4xx rejects correctly (e.g. a required parameter left out, under the generic profile). */
  anyClientError?: boolean;
  /** What an invalid request sends that the contract does not describe as valid: its tier (plan/input-tiers.ts). */
  inputClass?: string;
  /** Bytes of an answer the client reads (--max-body-size). */
  bodyCapBytes?: number;
  /** An access case (execute/phases/access.ts): the exchange is another identity's call. */
  access?: AccessContext;
  /** A PUT sent twice alike (sequences): the exchange is the second; the first, and the reads after each (put-idempotent). */
  repeat?: RepeatContext;
  /** A 201's Location header followed (location-serves-record). */
  location?: LocationContext;
  /** A list paged through (paging-kept): what the pages broke of paging's promises, about this exchange. */
  paging?: { broken: Array<{ message: string; expected?: unknown; actual?: unknown }> };
  /** The security schemes whose run's own credential the request carried (execute/own-credential.ts). */
  ownCredential?: readonly string[];
  /** A write sent properties it must not set (execute/phases/mass-assignment.ts): what was sent, and the record after it. */
  massAssignment?: MassAssignmentContext;
}

/** The properties a write must not set, as sent, and the record after the write (absent: nothing shows it). */
export interface MassAssignmentContext {
  sent: AssignedProperty[];
  record?: unknown;
  /** Where the record was seen: a read of it after the write, or the write's own answer (no reader). */
  shownBy: 'read' | 'answer';
}

/** A PUT repeated with the same request: what the first one sent and was answered, and the record read after each. */
export interface RepeatContext {
  first: Exchange & { response: RecordedResponse };
  /** The body both calls sent (as the case built it). */
  sent?: unknown;
  /** The GET of the same path, and its answers after the first call and (when it succeeded) the second: each 2xx and conforming. */
  reader?: Operation;
  reads?: Array<Exchange & { response: RecordedResponse }>;
}

/** The Location header of a create's 201, resolved against the request URL, and what a GET of it answered. */
export interface LocationContext {
  header: string;
  url: string;
  /** The id the create answered for the record, if any. */
  createdId?: string;
  /** The answer to the GET; absent: not followed (another origin than the target's). */
  exchange?: Exchange & { response: RecordedResponse };
  /** The target's base path, where the Location leaves it out and adding it names a documented read. */
  missingBase?: string;
  /** Where the Location is a documented read's URL: that read's operation id and the path values it names. */
  names?: { operationId: string; pathParams: Record<string, string> };
}

/** What an access case knows when it judges another identity's call. */
export interface AccessContext {
  /** The identity that called (not the one whose record it is). */
  identity: string;
  /** The identity that created the record the call names (object access). */
  owner?: string;
  /** The contract (x-ownership) or the profile declares the path's records owned per identity. */
  owned?: boolean;
  /** The same call by the same identity on a record that does not exist: its status. */
  unknownRecordStatus?: number;
  /** Function access: the scopes (any one list) or roles the operation needs that the identity does not hold. */
  lacking?: { scopes?: string[][]; roles?: string[] };
}

/** One read of a related operation, with what it should show. */
export interface RelatedRead {
  operation: Operation;
  role: 'item' | 'nested' | 'list';
  exchange: Exchange & { response: RecordedResponse };
  /** The record the read is about (item, nested) or must list (list). */
  id: string;
  /** The parent ids in the read's path, by path parameter. */
  parentIds: Record<string, string>;
  /** What was sent to create or update the record (its comparable fields must read back equal). */
  sent?: unknown;
  /** The reader is proven served (presence): an answer like an unknown route's is its answer about the record. */
  readerPresent?: boolean;
  /** Fields that read back different, but as sent in a create with only the fields it requires: derived from the others. */
  derived?: string[];
  /** Ownership reads: the record's owner field and the parent it must name. */
  owner?: { field: string; value: string };
  /** A list must hold exactly these of the run's records (ids), and none of `foreign`. */
  members?: string[];
  foreign?: string[];
  /** The read asks for the record under another parent: it must not be served. */
  crossParent?: boolean;
  /**
   * A read after a refused create: the marker its body carried (absent for a PUT whose id is the client's: any
   * 2xx shows the record), and the one change that made it invalid, in words.
   */
  refused?: { marker?: string; change: string };
}

/**
 * A check judges one answered exchange. Response-conformance checks (`scope: 'response'`) judge every answered
 * exchange of every case and phase, whatever the case meant; intent checks judge by what the case sent, for the
 * expectations in `appliesTo`.
 */
export type Check =
  | { id: CheckId; scope: 'response'; run(ctx: CheckContext): Finding[]; unanswered?(ctx: UnansweredContext): Finding[] }
  | { id: CheckId; scope: 'intent'; appliesTo: ReadonlyArray<Expectation_>; run(ctx: CheckContext): Finding[] };

/** An exchange that got no answer: what a response check may say of it (a timeout is the service's doing). */
export interface UnansweredContext {
  exchange: Exchange;
  operation: Operation;
  timeoutMs?: number;
  /** The coverage or fuzzing variation the request carried (CheckContext.coverage). */
  coverage?: CheckContext['coverage'];
}

/** Builds a finding for the context's operation. */
export function finding(
  ctx: CheckContext,
  check: CheckId,
  severity: Severity,
  message: string,
  extra: Partial<Pick<Finding, 'expected' | 'actual' | 'specLocation' | 'schemaErrors' | 'lenient' | 'inputClass' | 'varied'>> = {},
): Finding {
  const { operationId, method, path } = ctx.operation;
  return { check, severity, operationId, method, path, message, specLocation: specLocation(ctx.operation), ...extra };
}

export function specLocation(op: Operation, pointer = op.pointer): string {
  return `${op.specFile}#${pointer}`;
}

export function mediaType(headers: Record<string, string>): string | undefined {
  const value = headers['content-type'];
  return value?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/** Reads a value at a JSON pointer (RFC 6901). */
export function atPointer(value: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return value;
  let current: unknown = value;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}
