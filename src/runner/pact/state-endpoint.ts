/**
 * The provider-state change endpoint, following the Pact convention that every verifier speaks (the Rust
 * `pact_verifier_cli`, the JVM and Ruby verifiers, pact-js's `providerStatesSetupUrl`):
 *
 *   POST <url>   {"state": "<name>", "params": {...}, "action": "setup" | "teardown"}
 *
 * setup answers 200 with a JSON object of the values to inject (`fromProviderState` expressions such as
 * `${orderId}` take them); teardown answers 200 `{}`. An unknown state or a failed setup answers
 * 500 `{"error": "<one line>"}`, which every verifier reports as a failure of that interaction. A request
 * without a state (an interaction that names none) answers 200 `{}`. Verifiers that send the state as query
 * parameters (`--state-change-as-query`) are understood too.
 *
 * States are set up through the deployment's own API (states.ts) with the run's token; the endpoint needs
 * no credentials of its own and listens on 127.0.0.1 unless told otherwise.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StateChangeError, type JsonMap, type ProviderStateHandler, type ProviderStates, type ServiceApi } from './states.ts';

/** The path the state-change endpoint answers on (and `<path>/<provider>` to restrict it to one provider). */
export const STATE_CHANGE_PATH = '/pact-states';

export interface StateChangeRequest {
  state: string;
  params: JsonMap;
  action: 'setup' | 'teardown';
}

export interface StateChangeReply {
  status: number;
  body: JsonMap;
}

/** Answers state changes; `provider` (optional) restricts the lookup to that provider's states. */
export type StateChangeHandler = (change: StateChangeRequest, provider?: string) => Promise<StateChangeReply>;

function isObj(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads the Pact state-change body (or query), tolerating the shapes verifiers send. */
export function parseStateChange(body: unknown, query?: URLSearchParams): StateChangeRequest {
  const b = isObj(body) ? body : {};
  const state = typeof b['state'] === 'string' ? b['state'] : (query?.get('state') ?? '');
  const actionRaw = typeof b['action'] === 'string' ? b['action'] : (query?.get('action') ?? 'setup');
  let params: JsonMap = isObj(b['params']) ? b['params'] : {};
  if (!isObj(b['params']) && query) {
    params = Object.fromEntries([...query.entries()].filter(([k]) => k !== 'state' && k !== 'action'));
  }
  return { state, params, action: actionRaw === 'teardown' ? 'teardown' : 'setup' };
}

/**
 * The state handlers of every provider that has an API here, looked up by state name. `apis` maps a
 * provider id (the pact's provider name) to the API its states are set up through.
 */
export function createStateChangeHandler(apis: Record<string, ServiceApi>, states: ProviderStates): StateChangeHandler {
  const byProvider = new Map<string, Map<string, ProviderStateHandler>>();
  for (const [provider, api] of Object.entries(apis)) {
    const make = states[provider];
    if (make) byProvider.set(provider, new Map(Object.entries(make(api))));
  }
  return async (change, provider) => {
    if (change.state === '') return { status: 200, body: {} };
    const scopes = provider !== undefined ? [provider] : [...byProvider.keys()];
    let handler: ProviderStateHandler | undefined;
    for (const p of scopes) handler ??= byProvider.get(p)?.get(change.state);
    if (!handler) {
      if (change.action === 'teardown') return { status: 200, body: {} };
      const known = scopes.flatMap((p) => [...(byProvider.get(p)?.keys() ?? [])]);
      const where = provider !== undefined ? ` for ${provider}` : '';
      return {
        status: 500,
        body: {
          error: `no provider state "${change.state}"${where} (known states: ${known.length > 0 ? known.map((k) => `"${k}"`).join(', ') : 'none'})`,
        },
      };
    }
    try {
      if (change.action === 'setup') return { status: 200, body: await handler.setup(change.params) };
      await handler.teardown(change.params);
      return { status: 200, body: {} };
    } catch (error) {
      const detail = error instanceof StateChangeError ? error.message : `the handler failed: ${(error as Error).message}`;
      return { status: 500, body: { error: `provider state "${change.state}" ${change.action}: ${detail}` } };
    }
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > 1024 * 1024) {
        reject(new Error('state change body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Serves `handler` on `POST <path>` and `POST <path>/<provider>`; anything else is 404 (405 for another
 * method). Used by the reference service (on its own origin) and by `conformance pact states`.
 */
export async function serveStateChange(
  handler: StateChangeHandler,
  req: IncomingMessage,
  path: string,
): Promise<{ status: number; body: JsonMap; allow?: string } | undefined> {
  const url = new URL(req.url ?? '/', 'http://state-change.invalid');
  const rest = url.pathname === path ? '' : url.pathname.startsWith(`${path}/`) ? url.pathname.slice(path.length + 1) : undefined;
  if (rest === undefined || rest.includes('/')) return undefined;
  if ((req.method ?? 'GET').toUpperCase() !== 'POST') {
    req.resume();
    return { status: 405, body: { error: 'state changes are POST requests' }, allow: 'POST' };
  }
  let body: unknown;
  try {
    const text = await readBody(req);
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch (error) {
    return { status: 400, body: { error: `the state change body is not JSON: ${(error as Error).message}` } };
  }
  const change = parseStateChange(body, url.searchParams);
  return handler(change, rest === '' ? undefined : decodeURIComponent(rest));
}

export interface StateChangeServer {
  /** The state-change URL to give a verifier (…/pact-states). */
  url: string;
  close(): Promise<void>;
}

/** Starts a stand-alone state-change endpoint (127.0.0.1 and a free port unless given). */
export async function startStateChangeServer(
  apis: Record<string, ServiceApi>,
  states: ProviderStates,
  opts: { port?: number; host?: string } = {},
): Promise<StateChangeServer> {
  const handler = createStateChangeHandler(apis, states);
  const server: Server = createServer((req, res) => {
    void (async () => {
      let reply: { status: number; body: JsonMap; allow?: string } | undefined;
      try {
        reply = await serveStateChange(handler, req, STATE_CHANGE_PATH);
      } catch (error) {
        reply = { status: 500, body: { error: (error as Error).message } };
      }
      if (!reply) {
        req.resume();
        reply = { status: 404, body: { error: `not found: state changes are POST ${STATE_CHANGE_PATH}` } };
      }
      const text = JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        ...(reply.allow ? { allow: reply.allow } : {}),
      });
      res.end(text);
    })();
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}${STATE_CHANGE_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
