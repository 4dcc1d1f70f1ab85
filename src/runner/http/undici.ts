/**
 * The parts of undici a run uses, imported from undici's own modules instead of its entry point: the entry also
 * loads fetch, WebSocket, EventSource, the mock, cache and SOCKS layers, about two thirds of undici's code, which the
 * CLI would compile and run before its first request (some 30 ms of CPU from the bundle). `request` is undici's `request()` with an
 * explicit dispatcher (the entry's own wrapper does the same: origin and path from the URL, then Dispatcher#request).
 * undici has no `exports` map, so these paths are its files: a release that moves one fails the build, not a run.
 */
import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import Client from 'undici/lib/dispatcher/client.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import errors from 'undici/lib/core/errors.js';
import coreUtil from 'undici/lib/core/util.js';
import api from 'undici/lib/api/index.js';
import DispatcherBase from 'undici/lib/dispatcher/dispatcher.js';
import { getGlobalDispatcher } from 'undici/lib/global.js';

// What the entry point does first: every dispatcher gets request(), connect() and the rest (the proxy agent opens its
// CONNECT tunnel with connect()).
Object.assign(DispatcherBase.prototype, api);

export { Agent, Client, EnvHttpProxyAgent, errors, Pool };

/** What the entry point exports as `util`. */
export const util = { parseHeaders: coreUtil.parseHeaders, headerNameToString: coreUtil.headerNameToString };

export type RequestOptions = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'> & { method?: Dispatcher.HttpMethod; dispatcher?: Dispatcher };

/** undici's `request(url, options)`: through `options.dispatcher` (default undici's global one). */
export function request(url: string | URL, options: RequestOptions = {}): Promise<Dispatcher.ResponseData> {
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  const parsed = coreUtil.parseURL(url);
  return dispatcher.request({
    ...rest,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: options.method ?? (options.body ? 'PUT' : 'GET'),
  });
}
