/**
 * The undici Dispatcher every request of a run goes through: keep-alive pools per origin, the proxy
 * (undici's EnvHttpProxyAgent, given HTTP(S)_PROXY/NO_PROXY or --proxy explicitly) and TLS options
 * (client certificate and key, a CA bundle, --insecure) for the target and, when tunnelling, for the
 * connection through the proxy. Through an http:// proxy, a plain http:// target is sent the way curl and most
 * clients send it, in absolute form (`GET http://host:port/path`), not through a CONNECT tunnel, which many
 * proxies allow only to port 443; https:// targets go through CONNECT.
 */
import { readFileSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { Agent, Client, EnvHttpProxyAgent, Pool } from './undici.ts';
import type { ClientOptions } from './client-options.ts';

export interface PoolOptions {
  timeoutMs: number;
  connections: number;
}

/** Reads a PEM file named by an option; a one-line error names the option and the file. */
function pem(option: string, file: string | undefined): Buffer | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(`${option} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** TLS options of connections to the target. */
export function tlsOptions(client: Pick<ClientOptions, 'clientCert' | 'clientKey' | 'caCert' | 'insecure'>): Record<string, unknown> {
  const cert = pem('--client-cert', client.clientCert);
  const key = pem('--client-key', client.clientKey);
  const ca = pem('--ca-cert', client.caCert);
  if (cert && !key && !/PRIVATE KEY/.test(cert.toString('utf8'))) {
    throw new Error('--client-cert needs --client-key (or a PEM file holding both the certificate and its key)');
  }
  return {
    ...(cert ? { cert } : {}),
    ...(key ? { key } : cert ? { key: cert } : {}),
    ...(ca ? { ca } : {}),
    ...(client.insecure ? { rejectUnauthorized: false } : {}),
  };
}

/** Builds the dispatcher of a run. The caller closes it. */
export function buildDispatcher(client: ClientOptions, pool: PoolOptions): Dispatcher {
  const tls = tlsOptions(client);
  const connect = { timeout: Math.min(pool.timeoutMs, 10_000), ...tls };
  // No proxy for either scheme: the keep-alive pools per origin directly (no proxy decision per request).
  if (client.httpProxy === '' && client.httpsProxy === '') {
    return new Agent({ connections: pool.connections, headersTimeout: pool.timeoutMs, bodyTimeout: pool.timeoutMs, connect });
  }
  const limits = { connections: pool.connections, headersTimeout: pool.timeoutMs, bodyTimeout: pool.timeoutMs };
  return new EnvHttpProxyAgent({
    ...limits,
    connect,
    // Plain http:// targets in absolute form through an http:// proxy (undici tunnels every target by default).
    proxyTunnel: false,
    // undici opens the absolute-form client to the proxy with its connector only: the run's pool size and
    // timeouts are added here (every other pool is given them already).
    factory: (origin: string | URL, options: Record<string, unknown>) => {
      const merged = { ...limits, ...options } as Pool.Options;
      return merged.connections === 1 ? new Client(origin, merged) : new Pool(origin, merged);
    },
    // Through a CONNECT tunnel the target's TLS is set up with requestTls; the proxy's own with proxyTls.
    requestTls: tls,
    ...(client.caCert || client.insecure ? { proxyTls: { ...(tls['ca'] ? { ca: tls['ca'] } : {}), ...(client.insecure ? { rejectUnauthorized: false } : {}) } } : {}),
    // Given explicitly (never read from this process's environment behind the caller's back); '' = none.
    httpProxy: client.httpProxy,
    httpsProxy: client.httpsProxy,
    noProxy: client.noProxy,
  } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);
}

export { proxySettings } from './client-options.ts';
