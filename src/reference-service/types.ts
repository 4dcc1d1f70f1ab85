import type { IncomingHttpHeaders } from 'node:http';

/** What an operation answers. `body` is JSON-serialised unless it is a string or a Buffer. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A routed, authenticated request as handlers see it. */
export interface HandlerRequest {
  operationId: string;
  /** Upper-case HTTP method. */
  method: string;
  /** Request path relative to the service base, without the query (e.g. "/address-types/<id>"). */
  path: string;
  /** Path parameters by template name, percent-decoded (e.g. { id, fieldId }). Not yet validated. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; undefined when the body is empty or is not valid JSON (see rawBody). */
  body: unknown;
  /** Body text as received (UTF-8). */
  rawBody: string;
  /** The deployment binds input leniently (Variant.lenient): validate.ts reads the body and query that way. */
  lenient?: boolean;
}

/**
 * Wraps or replaces an operation. `next()` runs the faithful processing of the operation (validation and
 * the operation itself) and resolves to its reply; a handler that does not call it bypasses both.
 */
export type Handler = (req: HandlerRequest, next: () => Promise<Reply>) => Promise<Reply> | Reply;

/** Which of the three allowed create shapes (seed §4.1) create operations answer with. */
export type CreateShape = 'record' | 'array' | 'page';

/** Fault injection and allowed variations of the reference service. */
export interface Variant {
  /** These operations are not served: their routes answer like a gateway's unknown route (404, no envelope). */
  removeOperations?: string[];
  /** Wrap or replace an operation's handler (call next() for the faithful reply). */
  handlers?: Record<string, Handler>;
  /** Operations that do not enforce auth (a fault). */
  skipAuth?: string[];
  /** Shape of create replies (create-address-type, create-address-type-field, customer-refresh-cache, create-user). */
  createShape?: CreateShape;
  /**
   * Undocumented extra routes (allowed by the seed). `path` is the full path from the server root
   * (e.g. "/customer-service/extra" or "/openapi.json"); segments written `{name}` match any one segment.
   * Extra routes are matched before everything else and answer `reply` as given, without an auth check.
   */
  extraRoutes?: Array<{ method: string; path: string; reply: Reply }>;
  /**
   * A correct deployment that binds input the lenient way most frameworks do by default (the seed does not say it
   * may not): a well-formed JSON body is read whatever its Content-Type says, `null` for an optional field or as
   * the whole body reads as not given, scalars are coerced to the field's type, an empty query value reads as left
   * out. What the contract makes certain (a required field missing, a JSON kind no parser coerces, a bound) is
   * still refused.
   */
  lenient?: boolean;
}

export interface ReferenceServiceOptions {
  /** The only accepted bearer token. */
  token: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  variant?: Variant;
}

export interface ReferenceService {
  /** http://HOST:PORT */
  url: string;
  /** url + '/customer-service' */
  customerBaseUrl: string;
  /** url + '/foreign-trade-service' */
  foreignTradeBaseUrl: string;
  /** The one-time password issued for a forgot-password transaction (kept after it is consumed). */
  otpFor(transactionId: string): string | undefined;
  close(): Promise<void>;
}
