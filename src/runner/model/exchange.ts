/** Exchanges (what was sent and what came back), always redacted before they leave http/. */
import type { HttpMethod } from './contract.ts';

export interface RecordedRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  /** Body as sent (text), absent when none. */
  body?: string;
  /** 'latin1': the body is bytes, one per character of `body` (a body that is not UTF-8). */
  bodyEncoding?: 'latin1';
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  /** Body text, cut at the body cap. */
  body: string;
  /** Parsed JSON when the body parsed as JSON. */
  json?: unknown;
  /** True when the body was cut at the body cap. */
  truncated: boolean;
  /** Full size in bytes as received (before truncation), after content decoding. */
  size: number;
  /** The body bytes are not valid UTF-8 (the text holds replacement characters). */
  invalidUtf8?: boolean;
  /** Why a body declared as JSON (or that looks like JSON) could not be used as JSON: invalid, nested too deep. */
  jsonError?: string;
  /**
   * A 204 or 304 answer (no content, whatever its header says) that more bytes followed in the same read: the
   * client took them for the start of another answer and closed the connection (http/exchange.ts).
   */
  bytesAfterEnd?: boolean;
}

/** How `jsonError` begins for a body that is JSON but nested too deep to judge (it parsed: it is well-formed). */
export const TOO_DEEP = 'the JSON body is nested more than';
/** Deeper JSON than this is not kept as JSON (validation and reports recurse over it). */
export const MAX_JSON_DEPTH = 512;

/**
 * 'dropped': the server closed the connection without an answer to this request on every attempt (fresh
 * connections among them) while it answered another request at once: the service's failure on this input (a
 * handler that crashed), judged as a server error. Every other kind is the network's or the tool's.
 */
export type TransportErrorKind = 'timeout' | 'connection' | 'dropped' | 'body-too-large' | 'other';

export interface Exchange {
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Set when no response could be read: a tool or network problem, never the service's fault ('timeout' and 'dropped' excepted). */
  error?: { kind: TransportErrorKind; message: string };
  durationMs: number;
  /** Re-sends before this answer (network errors on idempotent calls, 429 back-off, a refreshed token). */
  retries?: Array<{ attempt: number; reason: string; waitedMs: number }>;
}
