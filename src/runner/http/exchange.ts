/**
 * One request through an undici dispatcher, its answer read into memory up to a cap: the dispatcher's handler
 * interface directly, without a body stream, an async iterator or abort-signal listeners per request (those
 * cost more than the rest of an exchange with a fast server). A body with a content coding is handed to
 * `decodeAndRead` as a stream, so decoding stays streamed and bounded.
 *
 * The body cap works as with a stream: the first `cap` bytes are kept, the size is counted, and past four caps
 * the transfer is cut off. A decoded body is cut off as soon as it passes the cap (see `CappedBody`).
 */
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { errors, util } from './undici.ts';

export interface BodyText {
  text: string;
  size: number;
  truncated: boolean;
  invalidUtf8: boolean;
}

export interface RawResponse extends BodyText {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** More bytes came after a 204 or 304 answer, which has no content (see `bytesAfterEnd`). */
  bytesAfterEnd?: boolean;
}

/** Answers that have no content whatever their header says (RFC 9110 §15.3.5, §15.4.5; RFC 9112 §6.3). */
const NO_CONTENT = new Set([204, 304]);

/**
 * The exchange whose request undici is writing: undici calls the handler's onConnect and at once after it
 * publishes the request's head with its socket (diagnostics channel `undici:client:sendHeaders`, HTTP/1.1). The
 * socket tells what undici did with bytes that followed an answer with no content.
 */
let connecting: { socket?: Socket } | undefined;
subscribe('undici:client:sendHeaders', (message) => {
  if (connecting) connecting.socket = (message as { socket?: Socket }).socket;
  connecting = undefined;
});

/**
 * Whether bytes came in the same read as a 204 or 304 answer, after its header: undici reads them as the start of
 * another answer, which no request awaits, and closes the connection on them ('bad response', or a parse error),
 * without keeping them. Bytes that come in a later read are the next request's answer on that connection or break
 * it: not seen here.
 */
export function bytesAfterEnd(socket: Socket | undefined): boolean {
  const error = socket?.errored;
  return error instanceof errors.HTTPParserError || (error instanceof errors.SocketError && error.message === 'bad response');
}

/** The deadline and the interrupt of one request: cancel() ends it at any stage (queued, sending, reading). */
export class Cancellation {
  reason: Error | undefined;
  private abort: ((reason: Error) => void) | undefined;

  cancel(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.abort?.(reason);
  }

  /** Called when the request starts: a cancellation that came first ends it at once. */
  attach(abort: (reason: Error) => void): boolean {
    if (this.reason) {
      abort(this.reason);
      return false;
    }
    this.abort = abort;
    return true;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of the kept bytes; an uncut body that is not UTF-8 is marked (a cut one may end inside a character). */
export function bodyText(chunks: Buffer[], size: number, cap: number): BodyText {
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const truncated = size > cap;
  try {
    return { text: UTF8.decode(bytes), size, truncated, invalidUtf8: false };
  } catch {
    return { text: bytes.toString('utf8'), size, truncated, invalidUtf8: !truncated };
  }
}

/**
 * A body kept up to `cap` bytes; `add` says false once `readLimit` bytes have been passed and reading should stop.
 * A plain body is read on to four caps (a truer size, at the cost of bytes that arrive anyway); a decoded body
 * stops at the cap, since every byte past it is work the decoder does and memory it allocates for nothing.
 * No more than `cap` bytes are ever held: the chunk the cap falls in is copied, not kept whole.
 */
export class CappedBody {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private kept = 0;

  constructor(
    private readonly cap: number,
    private readonly readLimit = cap * 4,
  ) {}

  add(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.kept < this.cap) {
      const room = this.cap - this.kept;
      const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
      this.chunks.push(part);
      this.kept += part.length;
    }
    return this.size <= this.readLimit;
  }

  /** Bytes counted so far (all of them once the body has ended, else a lower bound). */
  get received(): number {
    return this.size;
  }

  /** Bytes held. */
  get held(): number {
    return this.kept;
  }

  text(): BodyText {
    return bodyText(this.chunks, this.size, this.cap);
  }
}

function isIdentity(encoding: string | undefined): boolean {
  return encoding === undefined || encoding.split(',').every((c) => c.trim() === '' || c.trim().toLowerCase() === 'identity');
}

export function exchange(
  dispatcher: Dispatcher,
  request: { method: string; url: string; headers: Record<string, string>; body?: string; bodyEncoding?: 'latin1' },
  cap: number,
  cancellation: Cancellation,
  decodeAndRead: (body: Readable, encoding: string) => Promise<BodyText>,
): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    let settled = false;
    const succeed = (value: RawResponse) => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    let abort: ((reason: Error) => void) | undefined;
    let finished = false;
    let status = 0;
    const headers: Record<string, string> = {};
    const body = new CappedBody(cap);
    /** Set when the body has a content coding: it is read through the decoding streams. */
    let stream: Readable | undefined;
    let readerStopped = false;
    const connection: { socket?: Socket } = {};

    const handler = {
      onConnect(abortRequest: (reason?: Error) => void) {
        connecting = connection;
        if (cancellation.attach((reason) => abortRequest(reason))) abort = (reason) => abortRequest(reason);
      },
      onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
        if (statusCode < 200) return true; // informational: the answer is still to come
        status = statusCode;
        for (const [name, value] of Object.entries(util.parseHeaders(rawHeaders))) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        const encoding = headers['content-encoding'];
        if (!isIdentity(encoding)) {
          stream = new Readable({
            read: () => resume(),
            destroy: (error, callback) => {
              // The reader stopped (cut off past the cap, or a decoding error): it settles the exchange itself.
              if (!finished) {
                readerStopped = true;
                abort?.(error ?? new errors.RequestAbortedError());
              }
              callback(error);
            },
          });
          // Errors reach the reader through its iteration; none goes unhandled when there is no reader.
          stream.on('error', () => undefined);
          let reading: Promise<BodyText>;
          try {
            reading = decodeAndRead(stream, encoding!);
          } catch (error) {
            fail(error);
            abort?.(new errors.RequestAbortedError());
            return false;
          }
          reading.then((body) => succeed({ status, headers, ...body }), fail);
        }
        return true;
      },
      onData(chunk: Buffer): boolean {
        if (stream) return stream.push(chunk);
        if (settled) return false;
        if (!body.add(chunk)) {
          // Far past the cap: stop the transfer (the connection is closed), keep what was kept.
          succeed({ status, headers, ...body.text() });
          abort?.(new errors.RequestAbortedError());
          return false;
        }
        return true;
      },
      onComplete() {
        finished = true;
        if (stream) stream.push(null);
        else if (NO_CONTENT.has(status) && connection.socket) {
          // Bytes after the header in the same read are parsed once this returns: known by the next microtask.
          const socket = connection.socket;
          queueMicrotask(() => {
            succeed({ status, headers, ...body.text(), ...(bytesAfterEnd(socket) ? { bytesAfterEnd: true } : {}) });
          });
        } else succeed({ status, headers, ...body.text() });
      },
      onError(error: Error) {
        finished = true;
        // A 204 or 304 whose Content-Length is not 0: undici fails it for the content it does not read, but the
        // answer is whole (a 304 may give the size of the representation, RFC 9110 §8.6; a 204 must not).
        if (NO_CONTENT.has(status) && !stream && error instanceof errors.ResponseContentLengthMismatchError) {
          return succeed({ status, headers, ...body.text() });
        }
        stream?.destroy(error);
        if (!readerStopped) fail(error);
      },
    };

    try {
      const url = new URL(request.url);
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.search ? `${url.pathname}${url.search}` : url.pathname,
          method: request.method as Dispatcher.HttpMethod,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.bodyEncoding === 'latin1' ? Buffer.from(request.body, 'latin1') : request.body } : {}),
        },
        handler as unknown as Dispatcher.DispatchHandler,
      );
    } catch (error) {
      fail(error);
    }
  });
}
