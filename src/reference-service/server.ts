/**
 * The embedded reference service: one node:http server answering both `/customer-service/...` and
 * `/foreign-trade-service/...`. Per request, in this order:
 *  1. variant extra routes (answered as given, no auth);
 *  2. the test-only routes GET /__reference/otp/{transactionId} (bearer token required) and
 *     POST /__reference/pact-states (the Pact provider-state change endpoint, see PACT_STATES_ROUTE);
 *  3. routing: unknown path or removed operation → 404, known path with another method → 405 + Allow,
 *     both without the platform envelope (what a gateway answers);
 *  4. auth (unless variant.skipAuth lists the operation) → 401 + WWW-Authenticate: Bearer;
 *  5. body read (over 1 MiB, or a body in a media type other than JSON → 400 VALIDATION_ERROR);
 *  6. the variant handler, if any, with next() = the faithful processing (validation, then the operation);
 *     a thrown error → 500 ERROR.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as addressTypes from './operations/address-types.ts';
import * as caches from './operations/caches.ts';
import * as foreignTrade from './operations/foreign-trade.ts';
import * as users from './operations/users.ts';
import {
  envelope,
  gatewayMethodNotAllowed,
  gatewayNotFound,
  JSON_CONTENT_TYPE,
  serverError,
  unauthorized,
} from './replies.ts';
import { matchTemplate, resolveRoute, type OperationId } from './routes.ts';
import { ReferenceState, type Operation, type OperationContext } from './state.ts';
import type { HandlerRequest, ReferenceService, ReferenceServiceOptions, Reply, Variant } from './types.ts';
import { createStateChangeHandler, serveStateChange, type StateChangeHandler } from '../runner/pact/state-endpoint.ts';
import { createServiceApi } from '../runner/pact/states.ts';
import { PROVIDER_STATES } from '../packs/customer/provider-states.ts';

/** Request bodies larger than this are rejected with 400. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Beyond this many bytes the connection is dropped instead of drained. */
const DRAIN_LIMIT_BYTES = 16 * MAX_BODY_BYTES;

/** Test-only route (not part of the contract): the OTP of a forgot-password transaction. */
export const OTP_ROUTE = '/__reference/otp/{transactionId}';

/**
 * Test-only route (not part of the contract): the Pact provider-state change endpoint. POST
 * `{state, params, action}` sets a state up (or tears it down) through this service's own API and answers
 * the values to inject. No credentials: any Pact verifier can be pointed at it.
 */
export const PACT_STATES_ROUTE = '/__reference/pact-states';

const OPERATIONS: Record<OperationId, Operation> = {
  'create-address-type': addressTypes.createAddressType,
  'update-address-type': addressTypes.updateAddressType,
  'delete-address-type': addressTypes.deleteAddressType,
  'get-address-type-field-list': addressTypes.getAddressTypeFieldList,
  'create-address-type-field': addressTypes.createAddressTypeField,
  'get-address-type-field-by-id': addressTypes.getAddressTypeFieldById,
  'update-address-type-field': addressTypes.updateAddressTypeField,
  'delete-address-type-field': addressTypes.deleteAddressTypeField,
  'customer-get-cache-key-list': caches.getCacheKeyList,
  'customer-refresh-cache': caches.refreshCache,
  'create-user': users.createUser,
  'send-forget-password-otp': users.sendForgetPasswordOtp,
  'verify-forget-password-otp': users.verifyForgetPasswordOtp,
  'get-foreign-trade-reference-number': foreignTrade.generateReferenceNumber,
  'validate-reference-number': foreignTrade.validateReferenceNumber,
};

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Checks `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235) in constant time. */
function checkAuth(header: string | undefined, tokenDigest: Buffer): Reply | undefined {
  if (header === undefined || header === '') return unauthorized('missing bearer token');
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (match === null) return unauthorized('malformed Authorization header (expected "Bearer <token>")');
  return timingSafeEqual(digest(match[1] ?? ''), tokenDigest) ? undefined : unauthorized('invalid bearer token');
}

/** The client went away (or the body exceeded the drain limit) before the body was read. */
class RequestAborted extends Error {
  constructor() {
    super('request aborted');
  }
}

interface ReadBody {
  tooLarge: boolean;
  raw: Buffer;
}

function readBody(req: IncomingMessage): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (size > DRAIN_LIMIT_BYTES) req.destroy();
    });
    req.on('end', () => {
      ended = true;
      resolve({ tooLarge: size > MAX_BODY_BYTES, raw: size > MAX_BODY_BYTES ? Buffer.alloc(0) : Buffer.concat(chunks) });
    });
    req.on('error', () => reject(new RequestAborted()));
    req.on('close', () => {
      if (!ended) reject(new RequestAborted());
    });
  });
}

function writeReply(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = value;
  let payload: Buffer | undefined;
  const body = reply.body;
  if (Buffer.isBuffer(body)) {
    payload = body;
    headers['content-type'] ??= 'application/octet-stream';
  } else if (typeof body === 'string') {
    payload = Buffer.from(body, 'utf8');
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body) ?? 'null', 'utf8');
    headers['content-type'] ??= JSON_CONTENT_TYPE;
  }
  headers['content-length'] = String(payload?.length ?? 0);
  res.writeHead(reply.status, headers);
  res.end(payload);
}

function parseJson(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

class ReferenceServer {
  private readonly state = new ReferenceState();
  private readonly tokenDigest: Buffer;
  private readonly removed: ReadonlySet<string>;
  private readonly skipAuth: ReadonlySet<string>;
  private readonly ctx: OperationContext;
  /** Set once the server listens (the states call this service over HTTP). */
  pactStates: StateChangeHandler | undefined;

  constructor(
    token: string,
    private readonly variant: Variant,
  ) {
    this.tokenDigest = digest(token);
    this.removed = new Set(variant.removeOperations ?? []);
    this.skipAuth = new Set(variant.skipAuth ?? []);
    this.ctx = { state: this.state, createShape: variant.createShape ?? 'record' };
  }

  otpFor(transactionId: string): string | undefined {
    return this.state.otpTransactions.get(transactionId.toLowerCase())?.oneTimePassword;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let reply: Reply;
    try {
      const states = this.pactStates ? await serveStateChange(this.pactStates, req, PACT_STATES_ROUTE) : undefined;
      const early = states ? { reply: { status: states.status, body: states.body, ...(states.allow ? { headers: { allow: states.allow } } : {}) } } : this.route(req);
      if ('reply' in early) {
        req.resume();
        reply = early.reply;
      } else {
        reply = await this.invoke(req, early);
      }
    } catch (err) {
      if (err instanceof RequestAborted) {
        res.destroy();
        return;
      }
      reply = serverError(err instanceof Error ? err.message : String(err));
    }
    try {
      writeReply(res, reply);
    } catch (err) {
      if (!res.headersSent) writeReply(res, serverError(`invalid reply: ${err instanceof Error ? err.message : String(err)}`));
      else res.destroy();
    }
  }

  /** Steps 1–4: an early reply, or the operation to invoke. */
  private route(req: IncomingMessage): { reply: Reply } | { operationId: OperationId; params: Record<string, string>; path: string; url: URL } {
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://reference.invalid');
    } catch {
      return { reply: gatewayNotFound() };
    }
    const pathname = url.pathname;

    for (const extra of this.variant.extraRoutes ?? []) {
      if (extra.method.toUpperCase() === method && matchTemplate(extra.path, pathname) !== undefined) return { reply: extra.reply };
    }

    if (pathname.startsWith('/__reference/')) return { reply: this.otpRoute(req, method, pathname) };

    const match = resolveRoute(pathname, method, this.removed);
    if (match.kind === 'not-found') return { reply: gatewayNotFound() };
    if (match.kind === 'method-not-allowed') return { reply: gatewayMethodNotAllowed(match.allow) };

    const operationId = match.route.operationId;
    if (!this.skipAuth.has(operationId)) {
      const denied = checkAuth(req.headers.authorization, this.tokenDigest);
      if (denied !== undefined) return { reply: denied };
    }
    return { operationId, params: match.params, path: match.relativePath, url };
  }

  /** GET /__reference/otp/{transactionId}: test-only, so out-of-process runners can complete the OTP flow. */
  private otpRoute(req: IncomingMessage, method: string, pathname: string): Reply {
    const params = matchTemplate(OTP_ROUTE, pathname);
    if (params === undefined) return gatewayNotFound();
    if (method !== 'GET') return gatewayMethodNotAllowed(['GET']);
    const denied = checkAuth(req.headers.authorization, this.tokenDigest);
    if (denied !== undefined) return denied;
    const tx = this.state.otpTransactions.get((params['transactionId'] ?? '').toLowerCase());
    if (tx === undefined) return { status: 404, body: { message: 'unknown transaction' } };
    return {
      status: 200,
      body: {
        transactionId: tx.transactionId,
        oneTimePassword: tx.oneTimePassword,
        consumed: tx.consumed,
        endDate: new Date(tx.expiresAt).toISOString(),
      },
    };
  }

  /** Steps 5–6. */
  private async invoke(
    req: IncomingMessage,
    target: { operationId: OperationId; params: Record<string, string>; path: string; url: URL },
  ): Promise<Reply> {
    const body = await readBody(req);
    if (body.tooLarge) return envelope(400, 'VALIDATION_ERROR', `request body exceeds ${MAX_BODY_BYTES} bytes`);
    const rawBody = body.raw.toString('utf8');
    // The platform binds JSON bodies only: a body in another media type is refused as invalid input (a lenient
    // deployment reads a well-formed JSON body whatever the media type says).
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!this.variant.lenient && rawBody.trim() !== '' && type !== '' && type !== 'application/json' && !type.endsWith('+json')) {
      return envelope(400, 'VALIDATION_ERROR', `the request body must be JSON (application/json), not ${type}`);
    }
    const request: HandlerRequest = {
      operationId: target.operationId,
      method: (req.method ?? 'GET').toUpperCase(),
      path: target.path,
      params: target.params,
      query: target.url.searchParams,
      headers: req.headers,
      body: parseJson(rawBody),
      rawBody,
      ...(this.variant.lenient ? { lenient: true } : {}),
    };
    const faithful = OPERATIONS[target.operationId];
    const next = async (): Promise<Reply> => faithful(request, this.ctx);
    const handler = this.variant.handlers?.[target.operationId];
    return handler === undefined ? next() : handler(request, next);
  }
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts a reference service instance with its own state. */
export async function startReferenceService(opts: ReferenceServiceOptions): Promise<ReferenceService> {
  if (typeof opts.token !== 'string' || opts.token === '') throw new TypeError('startReferenceService: token must be a non-empty string');
  const host = opts.host ?? '127.0.0.1';
  const service = new ReferenceServer(opts.token, opts.variant ?? {});
  const server = createServer((req, res) => {
    void service.handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${port}`;
  const selfUrl = `http://${urlHost(host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host)}:${port}`;
  const apis = {
    'customer-service': createServiceApi(`${selfUrl}/customer-service`, opts.token, 30_000),
    'foreign-trade-service': createServiceApi(`${selfUrl}/foreign-trade-service`, opts.token, 30_000),
  };
  service.pactStates = createStateChangeHandler(apis, PROVIDER_STATES);
  let closing: Promise<void> | undefined;
  return {
    url,
    customerBaseUrl: `${url}/customer-service`,
    foreignTradeBaseUrl: `${url}/foreign-trade-service`,
    otpFor: (transactionId) => service.otpFor(transactionId),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => Promise.all(Object.values(apis).map((api) => api.close()))).then(() => undefined);
      return closing;
    },
  };
}
