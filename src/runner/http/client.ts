import { Readable } from 'node:stream';
import { noteAnswer } from './large-bodies.ts';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { Agent, errors } from './undici.ts';
import { CappedBody, Cancellation, exchange, type RawResponse } from './exchange.ts';
import { MAX_JSON_DEPTH, TOO_DEEP, type Exchange, type HttpMethod, type RecordedResponse, type TransportErrorKind } from '../model.ts';
import { redactHeaders, redactText, type Secret } from './redact.ts';

export interface HttpOptions {
  /** Per-request timeout in ms (headers and body). */
  timeoutMs: number;
  /** Bodies larger than this are cut (and reported as truncated). */
  bodyCapBytes: number;
  /** Maximum concurrent connections per origin. */
  connections: number;
  /** Secrets that must never appear in a recorded exchange (the bearer token). */
  secrets: readonly Secret[];
  /** Dispatcher to send through (proxy, TLS: see dispatcher.ts); default a plain keep-alive agent. */
  dispatcher?: Dispatcher;
  /** Headers whose values are credentials, redacted by name (Authorization always is). */
  secretHeaders?: readonly string[];
  /** What sends the requests (default: `dispatcher` on this thread; see transport.ts). */
  transport?: Transport;
  /** Sees each answer before it is redacted (a secret it brings is added to `secrets` in time to be replaced). */
  observe?: (req: OutgoingRequest, status: number, text: string) => void;
}

export interface OutgoingRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** 'latin1': send the body as one byte per character (a body that is not UTF-8). */
  bodyEncoding?: 'latin1';
}

/** Sends requests with undici (on this thread or a worker's: see transport.ts) and records redacted exchanges. */
export class HttpClient {
  private readonly transport: Transport;

  constructor(private readonly options: HttpOptions) {
    this.transport =
      options.transport ??
      new DispatcherTransport(
        options.dispatcher ??
          new Agent({
            connections: options.connections,
            headersTimeout: options.timeoutMs,
            bodyTimeout: options.timeoutMs,
            connect: { timeout: Math.min(options.timeoutMs, 10_000) },
          }),
      );
  }

  async send(req: OutgoingRequest): Promise<Exchange> {
    const started = performance.now();
    req = { ...req, headers: { 'accept-encoding': ACCEPT_ENCODING, ...req.headers } };
    const recorded = {
      method: req.method,
      url: redactText(req.url, this.options.secrets),
      headers: redactHeaders(req.headers, this.options.secrets, this.options.secretHeaders),
      ...(req.body !== undefined ? { body: redactText(req.body, this.options.secrets) } : {}),
      ...(req.bodyEncoding ? { bodyEncoding: req.bodyEncoding } : {}),
    };
    const sent = await this.transport.transfer(req, this.options.bodyCapBytes, this.options.timeoutMs);
    if ('error' in sent) {
      return {
        request: recorded,
        error: { kind: sent.error.kind, message: redactText(sent.error.message, this.options.secrets) },
        durationMs: performance.now() - started,
      };
    }
    const { headers, text, size, truncated, invalidUtf8, bytesAfterEnd } = sent.response;
    noteAnswer(size + text.length);
    this.options.observe?.(req, sent.response.status, text);
    const response: RecordedResponse = {
      status: sent.response.status,
      headers: redactHeaders(headers, this.options.secrets, this.options.secretHeaders),
      body: redactText(text, this.options.secrets),
      truncated,
      size,
      ...(invalidUtf8 ? { invalidUtf8 } : {}),
      ...(bytesAfterEnd ? { bytesAfterEnd } : {}),
    };
    if (!truncated && text.trim() !== '') {
      // Arrays nested past the limit are known too deep without parsing (100,000 levels would be 100,000 arrays).
      if (arraysDeeperThan(response.body, MAX_JSON_DEPTH)) response.jsonError = `${TOO_DEEP} ${MAX_JSON_DEPTH} levels deep; it cannot be validated`;
      else try {
        const json: unknown = JSON.parse(response.body);
        const depth = nestingDepth(json, MAX_JSON_DEPTH);
        if (depth > MAX_JSON_DEPTH) response.jsonError = `${TOO_DEEP} ${MAX_JSON_DEPTH} levels deep; it cannot be validated`;
        else response.json = json;
      } catch (error) {
        // Not JSON: a failure where JSON is declared (response-body-readable), else the content-type check's.
        if (/json/i.test(headers['content-type'] ?? '')) response.jsonError = `the body is not valid JSON: ${(error as Error).message.split('\n')[0]}`;
      }
    }
    return { request: recorded, response, durationMs: performance.now() - started };
  }

  /** Aborts every request in flight now; requests sent afterwards are not affected. */
  abortInFlight(): void {
    this.transport.abortAll('the run was interrupted');
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** What sends a client's requests and reads their answers: on this thread, or a worker's (transport.ts). */
export interface Transport {
  transfer(req: OutgoingRequest, cap: number, timeoutMs: number): Promise<Transfer>;
  /** Ends every request in flight now (they come back as errors with this message); later ones are sent as usual. */
  abortAll(message: string): void;
  close(): Promise<void>;
}

/** Requests sent on this thread through a dispatcher. */
export class DispatcherTransport implements Transport {
  /** One cancellation per request in flight: by its own deadline, or all at once by abortAll(). */
  private readonly inFlight = new Set<Cancellation>();

  constructor(private readonly dispatcher: Dispatcher) {}

  async transfer(req: OutgoingRequest, cap: number, timeoutMs: number): Promise<Transfer> {
    const cancellation = new Cancellation();
    this.inFlight.add(cancellation);
    try {
      return await transfer(this.dispatcher, req, cap, timeoutMs, cancellation);
    } finally {
      this.inFlight.delete(cancellation);
    }
  }

  abortAll(message: string): void {
    const reason = new Error(message);
    for (const cancellation of this.inFlight) cancellation.cancel(reason);
    this.inFlight.clear();
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/**
 * What one request came to before it is recorded: the answer as read (not yet redacted), or why there is none
 * (`message` not yet redacted either: the caller holds the secrets).
 */
export type Transfer = { response: RawResponse } | { error: { kind: TransportErrorKind; message: string } };

/**
 * Sends one request through `dispatcher` and reads its answer up to `cap` bytes (decoded), the whole exchange
 * within `timeoutMs`; `cancellation` ends it early. Never rejects: a failure is classified and described.
 */
async function transfer(dispatcher: Dispatcher, req: OutgoingRequest, cap: number, timeoutMs: number, cancellation: Cancellation): Promise<Transfer> {
  // The deadline covers the whole exchange, body included.
  const deadline = setTimeout(() => cancellation.cancel(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  deadline.unref();
  try {
    return { response: await exchange(dispatcher, req, cap, cancellation, (body, encoding) => readCapped(decoded(body, encoding), cap)) };
  } catch (error) {
    return { error: { kind: classify(error), message: describe(error, timeoutMs) } };
  } finally {
    clearTimeout(deadline);
  }
}

/** The encodings the client asks for and decodes (RFC 9110 content codings). */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/**
 * The body with its content codings undone (last applied, first undone). Decoding is streamed, so the body
 * cap applies to the decoded bytes and a compression bomb is cut off as soon as its output passes the cap.
 */
function decoded(body: Readable, encoding: string | undefined): Readable {
  const codings = (encoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  let stream: Readable = body;
  for (const coding of codings.reverse()) {
    const decoder =
      coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : coding === 'br' ? createBrotliDecompress() : undefined;
    if (!decoder) throw new UnknownCoding(coding);
    const source = stream;
    source.on('error', (error) => decoder.destroy(error));
    stream = source.pipe(decoder);
    const destroy = stream.destroy.bind(stream);
    stream.destroy = (error?: Error) => {
      source.destroy();
      return destroy(error);
    };
  }
  return stream;
}

class UnknownCoding extends Error {
  constructor(coding: string) {
    super(`the response uses content-encoding ${coding}, which was not asked for (accept-encoding: ${ACCEPT_ENCODING})`);
  }
}

export { MAX_JSON_DEPTH };

/** The nesting depth of a JSON value, counted without recursion; stops counting past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * Whether `text` is JSON of arrays and scalars only (no object: a repeated key would drop a value) nesting arrays
 * deeper than `limit`: JSON.parse would give a value that deep (`nestingDepth` over `limit`), so it need not be
 * built to know. Read once, nothing allocated. False for anything else, JSON or not (it is parsed as usual):
 * true only where parsing is certain to succeed.
 */
export function arraysDeeperThan(text: string, limit: number): boolean {
  const n = text.length;
  let i = 0;
  let depth = 0;
  let deepest = 0;
  const space = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
  const digits = (): boolean => {
    const start = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    return i > start;
  };
  // The grammar of RFC 8259 without objects: one value, then only whitespace.
  for (;;) {
    // A value is expected here.
    while (i < n && space(text.charCodeAt(i))) i++;
    if (i >= n) return false;
    let c = text.charCodeAt(i);
    if (c === 0x5b /* [ */) {
      i++;
      depth++;
      if (depth > deepest) deepest = depth;
      while (i < n && space(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) !== 0x5d /* ] */) continue;
      i++;
      depth--;
    } else if (c === 0x22 /* " */) {
      for (i++; ; i++) {
        if (i >= n) return false;
        c = text.charCodeAt(i);
        if (c === 0x22) break;
        if (c < 0x20) return false;
        if (c !== 0x5c /* \ */) continue;
        c = text.charCodeAt(++i);
        if (c === 0x75 /* u */) {
          for (let k = 0; k < 4; k++) {
            c = text.charCodeAt(++i);
            if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))) return false;
          }
        } else if (!(c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74)) return false;
      }
      i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      if (c === 0x2d) i++;
      if (text.charCodeAt(i) === 0x30) i++;
      else if (!digits()) return false;
      if (text.charCodeAt(i) === 0x2e /* . */) {
        i++;
        if (!digits()) return false;
      }
      c = text.charCodeAt(i);
      if (c === 0x65 || c === 0x45 /* e E */) {
        i++;
        c = text.charCodeAt(i);
        if (c === 0x2b || c === 0x2d) i++;
        if (!digits()) return false;
      }
    } else if (text.startsWith('true', i) || text.startsWith('null', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else return false;
    // After a value: more items, the end of arrays, or the end of the text.
    for (;;) {
      while (i < n && space(text.charCodeAt(i))) i++;
      if (depth === 0) return i >= n && deepest > limit;
      c = text.charCodeAt(i);
      if (c === 0x2c /* , */) {
        i++;
        break;
      }
      if (c !== 0x5d /* ] */) return false;
      i++;
      depth--;
    }
  }
}

/** A decoded body, read until it ends or passes the cap; then the decoder and the transfer are stopped. */
export async function readCapped(body: AsyncIterable<Buffer> & { destroy?: () => void }, cap: number) {
  const capped = new CappedBody(cap, cap);
  for await (const chunk of body) {
    if (!capped.add(chunk)) {
      body.destroy?.();
      break;
    }
  }
  return capped.text();
}

function classify(error: unknown): TransportErrorKind {
  if (
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) ||
    (error as { name?: string }).name === 'TimeoutError'
  ) {
    return 'timeout';
  }
  const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (code && /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|EPIPE|UND_ERR_SOCKET|UND_ERR_CONNECT_TIMEOUT|EAI_AGAIN/.test(code)) {
    return 'connection';
  }
  return 'other';
}

function describe(error: unknown, timeoutMs: number): string {
  if (classify(error) === 'timeout') return `no response within ${timeoutMs} ms (--timeout)`;
  const err = error as { message?: string; code?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code;
  return `${code ? `${code}: ` : ''}${err.cause?.message ?? err.message ?? String(error)}`.split('\n')[0] ?? 'request failed';
}
