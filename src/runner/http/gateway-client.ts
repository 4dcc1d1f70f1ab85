/**
 * What a real gateway needs on top of sending a request: the user's extra headers, the run id and a W3C
 * traceparent on every request, pacing (--rate-limit) and back-off on 429 honouring Retry-After, re-sends of
 * idempotent requests after network errors (--retries), and a token that is refreshed by --token-command when
 * it is rejected or about to expire. Every re-send is recorded on the exchange (`retries`), and the values of
 * secret headers are redacted from it.
 */
import type { Exchange } from '../model.ts';
import { derivedSecrets, schemeVariable } from './auth-variants.ts';
import { HttpClient, type OutgoingRequest } from './client.ts';
import type { Secret } from './redact.ts';
import { RUN_ID_HEADER, secretValues, type ClientOptions } from './client-options.ts';
import { buildDispatcher, tlsOptions } from './dispatcher.ts';
import { WorkerTransport, type WorkerSetup } from './transport.ts';
import { v8Flags } from '../v8-flags.ts';
import { randomHex } from './random-hex.ts';
import { RateLimiter, retryAfterMs, sleep } from './rate-limit.ts';
import { TokenSource, type IssuedToken } from './token-command.ts';

export interface RetryRecord {
  /** 1 for the first re-send. */
  attempt: number;
  /** Why the previous attempt was not kept. */
  reason: string;
  /** How long the client waited before the re-send (ms). */
  waitedMs: number;
}

export interface GatewayClientOptions {
  timeoutMs: number;
  bodyCapBytes: number;
  connections: number;
  client: ClientOptions;
  /** Name of the header that carries the bearer token (the profile's auth header). */
  authHeader: string;
  token: IssuedToken;
  /** Credentials of named security schemes (--auth): redacted as $CONFORMANCE_AUTH_<NAME> everywhere. */
  schemeCredentials?: Record<string, string>;
  /** Other identities' credentials (--identity): redacted as $CONFORMANCE_IDENTITY_<NAME> everywhere. */
  identityCredentials?: Array<{ variable: string; value: string }>;
  /** Headers that carry a credential of a scheme (an apiKey's header): redacted by name as the auth header is. */
  credentialHeaders?: string[];
  /** Called with every token the run uses (the first and each refreshed one). */
  onToken?: (token: string) => void;
  /** Other values no report may show (a password sent to obtain the token): written as [secret]. */
  secrets?: readonly string[];
  /**
   * Where an answer holds the caller's token (['user', 'token']): a write that carried the current token and is
   * answered 2xx with another one there renews the run's token (a changed user name may change it).
   */
  renewedAt?: readonly string[];
  /**
   * Where requests are sent and answers read: on this thread (the default), or on a worker thread of their own
   * (transport.ts), which pays when the caller's own work per request keeps this thread busy (a large run).
   */
  sendOn?: 'this-thread' | 'worker';
}

/** What of the client options the worker needs to build the same dispatcher. */
function dispatcherOptions(client: ClientOptions): WorkerSetup['client'] {
  const { clientCert, clientKey, caCert, insecure, httpProxy, httpsProxy, noProxy } = client;
  return { clientCert, clientKey, caCert, insecure, httpProxy, httpsProxy, noProxy };
}

/** The methods of a write whose answer may give the caller a new token (an update of the current user). */
export const RENEWING = new Set(['PUT', 'PATCH', 'POST']);

/** A call refused for a token renewed meanwhile is sent again with the current one at most this many times. */
const MAX_RENEWALS = 3;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY']);
/** 429 answers are waited out at most this many times per request. */
const MAX_429_WAITS = 3;
/** A Retry-After longer than this is not waited for; the 429 is reported. */
const MAX_RETRY_AFTER_MS = 120_000;

export const REDACTED = '[redacted]';

export class GatewayClient {
  private readonly http: HttpClient;
  private readonly secrets: string[] = [];
  /** What reports must not show: every token and the tokens the auth matrix derives from it. */
  private readonly redactions: Secret[] = [];
  private readonly hidden: string[];
  private readonly hiddenNames: Set<string>;
  private readonly limiter: RateLimiter;
  readonly tokens: TokenSource;

  constructor(private readonly options: GatewayClientOptions) {
    const { client } = options;
    this.hidden = secretValues(client);
    this.hiddenNames = new Set(client.headers.filter((h) => h.secret).map((h) => h.name.toLowerCase()));
    // Longer secrets first: one that holds another must not be left half redacted.
    const schemes = [
      ...Object.entries(options.schemeCredentials ?? {}).map(([scheme, value]) => [`$${schemeVariable(scheme)}`, value] as const),
      ...(options.identityCredentials ?? []).map((c) => [`$${c.variable}`, c.value] as const),
    ].sort((a, b) => b[1].length - a[1].length);
    for (const [placeholder, value] of schemes) this.redactions.push(...derivedSecrets(value, placeholder));
    for (const value of [...(options.secrets ?? [])].sort((a, b) => b.length - a.length)) this.redactions.push({ value, placeholder: '[secret]' });
    this.tokens = new TokenSource(options.token, client.tokenCommand, (token) => {
      if (token !== '' && !this.secrets.includes(token)) {
        this.secrets.push(token);
        this.redactions.push(...derivedSecrets(token));
      }
      options.onToken?.(token);
    });
    this.limiter = new RateLimiter(client.rateLimit);
    const pool = { timeoutMs: options.timeoutMs, connections: options.connections };
    this.http = new HttpClient({
      timeoutMs: options.timeoutMs,
      bodyCapBytes: options.bodyCapBytes,
      connections: options.connections,
      secrets: this.redactions,
      secretHeaders: [options.authHeader, ...(options.credentialHeaders ?? [])],
      ...(options.renewedAt ? { observe: (req: OutgoingRequest, status: number, text: string) => this.renewal(req, status, text, options.renewedAt!) } : {}),
      ...(options.sendOn === 'worker'
        ? {
            // The TLS files are read here first, so that a bad one is named at once.
            transport: (tlsOptions(client), new WorkerTransport({ client: dispatcherOptions(client), pool, v8Flags: v8Flags() })),
          }
        : { dispatcher: buildDispatcher(client, pool) }),
    });
  }

  async send(req: OutgoingRequest): Promise<Exchange> {
    let headers = this.withExtras(req.headers);
    const retries: RetryRecord[] = [];
    let networkRetries = 0;
    let waits429 = 0;
    let refreshed = false;
    let renewals = 0;
    if (this.tokens.expiringSoon()) headers = await this.freshToken(headers, this.tokens.current);
    for (;;) {
      await this.limiter.take();
      const exchange = await this.http.send({ ...req, headers: { ...headers, traceparent: this.traceparent() } });
      let reason: string | undefined;
      let waitMs = 0;
      if (exchange.error && exchange.error.kind === 'connection' && IDEMPOTENT.has(req.method) && networkRetries < this.options.client.retries) {
        networkRetries++;
        reason = `network error: ${exchange.error.message}`;
        waitMs = Math.min(2_000, 100 * 2 ** (networkRetries - 1));
      } else if (exchange.response?.status === 429 && waits429 < MAX_429_WAITS) {
        const asked = retryAfterMs(exchange.response.headers['retry-after']);
        if (asked === undefined || asked <= MAX_RETRY_AFTER_MS) {
          waits429++;
          waitMs = asked ?? 1000 * 2 ** (waits429 - 1);
          reason = `429 Too Many Requests${asked !== undefined ? ` (Retry-After ${exchange.response.headers['retry-after']})` : ''}`;
          this.limiter.pause(waitMs);
        }
      } else if (exchange.response?.status === 401 && ((!refreshed && this.tokens.refreshable) || (renewals < MAX_RENEWALS && this.staleToken(headers)))) {
        // The token this call carried (a concurrent call may have replaced it already: then use the new one).
        const used = this.tokenIn(headers);
        if (used !== undefined) {
          if (this.tokens.refreshable) refreshed = true;
          else renewals++;
          const next = await this.freshToken(headers, used);
          if (next !== headers) {
            headers = next;
            reason = this.tokens.refreshable ? '401: the token was rejected; --token-command issued a new one' : "401: the call carried the token a write of the run's own has since renewed";
          }
        }
      }
      if (reason === undefined) return this.redact(retries.length > 0 ? { ...exchange, retries } : exchange);
      if (waitMs > 0) await sleep(waitMs);
      retries.push({ attempt: retries.length + 1, reason: this.redactText(reason), waitedMs: waitMs });
    }
  }

  /** Replaces `used` in the headers by a fresh token from --token-command (unchanged when that fails). */
  private async freshToken(headers: Record<string, string>, used: string): Promise<Record<string, string>> {
    const fresh = await this.tokens.refresh(used).catch(() => used);
    return fresh === used ? headers : Object.fromEntries(Object.entries(headers).map(([n, v]) => [n, v.split(used).join(fresh)]));
  }

  /** A new token for the caller in the answer to a write that carried the current one: the run uses it from now on. */
  private renewal(req: OutgoingRequest, status: number, text: string, path: readonly string[]): void {
    if (status < 200 || status >= 300 || !RENEWING.has(req.method)) return;
    const current = this.tokens.current;
    if (current === '' || !Object.values(req.headers).some((v) => v.includes(current)) || !text.includes(path[path.length - 1] ?? '')) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    for (const key of path) value = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'string' && value.trim() !== '' && value.trim() !== current) this.tokens.replace(value.trim());
  }

  /** The run's token (current or earlier) that the auth header carries, if any. */
  private tokenIn(headers: Record<string, string>): string | undefined {
    const auth = this.options.authHeader.toLowerCase();
    const names = new Set([auth, ...(this.options.credentialHeaders ?? []).map((h) => h.toLowerCase())]);
    const values = Object.entries(headers).filter(([n]) => names.has(n.toLowerCase())).map(([, v]) => v);
    return [...this.secrets].reverse().find((t) => t.length > 0 && values.some((v) => v.includes(t)));
  }

  /** True when the call carried a token of the run that is no longer its current one (a write renewed it meanwhile). */
  private staleToken(headers: Record<string, string>): boolean {
    const used = this.tokenIn(headers);
    return used !== undefined && used !== this.tokens.current;
  }

  /** Aborts every request in flight now (an interrupted run); requests sent afterwards are not affected. */
  abortInFlight(): void {
    this.http.abortInFlight();
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** The user's headers where the engine set none, the run id; the auth header only on calls that carry the token. */
  private withExtras(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = { ...headers };
    const present = new Set(Object.keys(headers).map((n) => n.toLowerCase()));
    const auth = this.options.authHeader.toLowerCase();
    const carriesToken = this.carriesToken(headers);
    for (const h of this.options.client.headers) {
      const lower = h.name.toLowerCase();
      if (lower === auth) {
        // The auth cases send no, a malformed or a wrong credential: a user's credential must not mask them.
        if (carriesToken) {
          delete out[Object.keys(out).find((n) => n.toLowerCase() === auth)!];
          out[h.name] = h.value;
        }
      } else if (!present.has(lower)) {
        out[h.name] = h.value;
      }
    }
    out[RUN_ID_HEADER] = this.options.client.runId;
    return out;
  }

  /** True when the auth header carries the run's current token (not an auth case's missing or wrong one). */
  private carriesToken(headers: Record<string, string>): boolean {
    const auth = this.options.authHeader.toLowerCase();
    const token = this.tokens.current;
    return token !== '' && Object.entries(headers).some(([n, v]) => n.toLowerCase() === auth && v.includes(token));
  }

  private traceparent(): string {
    return `00-${this.options.client.traceId}-${randomHex(8)}-01`;
  }

  private redactText(text: string): string {
    let out = text;
    for (const value of this.hidden) if (value.length >= 4 && out.includes(value)) out = out.split(value).join(REDACTED);
    return out;
  }

  private redactHeaders(headers: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(headers).map(([n, v]) => [n, this.hiddenNames.has(n.toLowerCase()) ? REDACTED : this.redactText(v)]));
  }

  /** Secret header values out of every recorded field (the token is already replaced by its placeholder). */
  private redact(exchange: Exchange): Exchange {
    if (this.hidden.length === 0 && this.hiddenNames.size === 0) return exchange;
    const out: Exchange = {
      ...exchange,
      request: {
        ...exchange.request,
        url: this.redactText(exchange.request.url),
        headers: this.redactHeaders(exchange.request.headers),
        ...(exchange.request.body !== undefined ? { body: this.redactText(exchange.request.body) } : {}),
      },
    };
    if (exchange.response) {
      const body = this.redactText(exchange.response.body);
      out.response = { ...exchange.response, headers: this.redactHeaders(exchange.response.headers), body };
      if (body !== exchange.response.body && 'json' in exchange.response) {
        try {
          out.response.json = JSON.parse(body);
        } catch {
          delete out.response.json;
        }
      }
    }
    if (exchange.error) out.error = { ...exchange.error, message: this.redactText(exchange.error.message) };
    return out;
  }
}
