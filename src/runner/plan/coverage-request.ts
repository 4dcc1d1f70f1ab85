/** One request of the coverage phase: an override of an operation's positive request (plan/coverage-classes.ts makes them). */
import type { InputLocation } from '../model.ts';
export interface CoverageRequest {
  /** What it varies, e.g. "query.limit = 9223372036854775808 (beyond int64)". */
  label: string;
  /** Schema-valid (judged as a positive) or schema-invalid (judged as a negative). */
  valid: boolean;
  /** The input class (one row of plan/coverage-table.ts). */
  class: string;
  /** Merged over the positive request's. */
  pathParams?: Record<string, string>;
  /** Path segments sent as they are, already percent-encoded (plan/path-classes.ts), over the positive request's. */
  rawPathParams?: Record<string, string>;
  /** Where the input it varies is, where its overrides do not say it (plan/input-location.ts locationOf). */
  location?: InputLocation;
  /** Replaces the positive query (the full query). */
  query?: Record<string, unknown>;
  /** Merged over the positive request's. */
  headers?: Record<string, string>;
  /** Merged over the positive request's. */
  cookies?: Record<string, string>;
  /** Replaces the body (a JSON value, encoded by the engine). */
  body?: unknown;
  /** Sent verbatim (malformed JSON, a body holding integers beyond 2^53, another media type). */
  rawBody?: string;
  /** With rawBody: the content type sent. */
  contentType?: string;
  /** With rawBody: its bytes, one per character (a body that is not UTF-8). */
  rawBodyEncoding?: 'latin1';
  /** Send no body at all. */
  noBody?: true;
  /**
   * 'response': neither a positive nor a negative (nothing says how a server must take it): only its answer's
   * conformance is judged (a documented status, its schema, no server error).
   */
  judgeAs?: 'response';
  /** A valid request whose refusal is a warning, for this reason (a spelling the contract admits and decoders differ on). */
  refusalMayBeRight?: string;
  /**
   * A valid write that sets a field a backend may keep unique to fixed text (it cannot be drawn afresh): its refusal
   * is a warning, for this reason, only where the answer itself says the value is taken (409, or its error text).
   */
  refusalIfTaken?: string;
}
