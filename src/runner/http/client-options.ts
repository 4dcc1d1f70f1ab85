/**
 * The client options of a run (headers, proxy, TLS, retries, rate limit, token command, run id) as plain
 * JSON, so they travel from the CLI to every suite worker with the rest of the run's configuration.
 */

export interface ExtraHeader {
  name: string;
  value: string;
  /** The value is redacted in every recorded exchange, report, reproduction command and log line. */
  secret: boolean;
}

export interface ClientOptions {
  /** Headers added to every request (`-H NAME:VALUE`). */
  headers: ExtraHeader[];
  /** Proxy of http:// targets (--proxy, else HTTP_PROXY); '' means none. */
  httpProxy: string;
  /** Proxy of https:// targets (--proxy, else HTTPS_PROXY, else HTTP_PROXY); '' means none. */
  httpsProxy: string;
  /** Hosts reached directly (NO_PROXY syntax: comma-separated names, .suffixes, host:port, *). */
  noProxy: string;
  /** PEM files for mutual TLS and a private CA. */
  clientCert?: string;
  clientKey?: string;
  caCert?: string;
  /** Accept any server certificate. */
  insecure: boolean;
  /** Re-sends of an idempotent request after a network error. */
  retries: number;
  /** Requests per second across the run (0: unlimited). */
  rateLimit: number;
  /** Shell command that prints a fresh bearer token (plain, or JSON {access_token|token, expires_in}). */
  tokenCommand?: string;
  /** Unique id of the run, sent as X-Conformance-Run-Id; the W3C trace id is derived from it. */
  runId: string;
  /** 32 hex digits: the trace id of every traceparent header of the run. */
  traceId: string;
}

export const RUN_ID_HEADER = 'x-conformance-run-id';

/** Header names whose values are always secret, whoever sets them. */
export const ALWAYS_SECRET = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

export function defaultClientOptions(runId: string, traceId: string): ClientOptions {
  return { headers: [], httpProxy: '', httpsProxy: '', noProxy: '', insecure: false, retries: 0, rateLimit: 0, runId, traceId };
}

/**
 * Parses `NAME:VALUE` (a leading `!` marks the value secret). Throws a one-line message on bad input.
 */
export function parseHeader(text: string, secretNames: readonly string[] = []): ExtraHeader {
  let spec = text.trim();
  let secret = false;
  if (spec.startsWith('!')) {
    secret = true;
    spec = spec.slice(1);
  }
  const at = spec.indexOf(':');
  const name = at > 0 ? spec.slice(0, at).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new Error(`-H takes NAME:VALUE (a leading ! marks the value secret), e.g. -H 'X-Tenant:acme'; got "${text.slice(0, 40)}"`);
  }
  const value = spec.slice(at + 1).trim();
  const lower = name.toLowerCase();
  return { name, value, secret: secret || ALWAYS_SECRET.has(lower) || secretNames.some((n) => n.toLowerCase() === lower) };
}

/** Parses `N/s`, `N/m` or a plain number of requests per second. */
export function parseRate(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|second|m|min|minute))?\s*$/i.exec(text);
  const n = Number(m?.[1]);
  if (!m || !(n > 0)) throw new Error(`--rate-limit takes requests per second or minute, e.g. 10/s or 300/m; got "${text}"`);
  return /^m/i.test(m[2] ?? '') ? n / 60 : n;
}

/** Values that must never appear in a report: the secret headers' values. */
export function secretValues(options: Pick<ClientOptions, 'headers'>): string[] {
  return options.headers.filter((h) => h.secret && h.value.length > 0).map((h) => h.value);
}

/** The proxy settings of the environment and --proxy: --proxy wins for both schemes, NO_PROXY always applies. */
export function proxySettings(env: NodeJS.ProcessEnv, proxy: string | undefined): Pick<ClientOptions, 'httpProxy' | 'httpsProxy' | 'noProxy'> {
  const httpProxy = proxy ?? env['http_proxy'] ?? env['HTTP_PROXY'] ?? '';
  const httpsProxy = proxy ?? env['https_proxy'] ?? env['HTTPS_PROXY'] ?? httpProxy;
  return { httpProxy, httpsProxy, noProxy: env['no_proxy'] ?? env['NO_PROXY'] ?? '' };
}
