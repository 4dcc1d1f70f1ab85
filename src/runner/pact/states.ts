/**
 * Provider states: what each state a consumer names means, set up through the service's own API with the
 * run's token, and torn down afterwards. Keys are the exact state strings consumers write in their pacts;
 * each handler's setup returns the values consumers inject with `fromProviderState`. A pack gives the handlers
 * of its providers (Pack.providerStates); this module has what every handler needs.
 *
 * Records the interactions themselves create are recorded from the responses and deleted again (the ledger in
 * verify-worker.ts, with the DELETE plan/undo.ts derives from the contract).
 */
import { createdIds } from '../execute/records/in-answer.ts';
import { HttpClient } from '../http/client.ts';
import type { HttpMethod } from '../model.ts';

export { createdIds };

export type JsonMap = Record<string, unknown>;

/** One provider state: setup returns the values to inject; teardown removes what setup created. */
export interface ProviderStateHandler {
  setup: (params: JsonMap) => Promise<JsonMap>;
  teardown: (params: JsonMap) => Promise<void>;
}

export type ProviderStateHandlers = Record<string, ProviderStateHandler>;

/** State handlers per provider name (a pack's Pack.providerStates). */
export type ProviderStates = Record<string, (api: ServiceApi) => ProviderStateHandlers>;

export interface ServiceApi {
  /** Calls the service (path relative to its base URL) with the run's bearer token. */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
}

/** A call made while setting up or tearing down a state did not succeed. The message never holds the token. */
export class StateChangeError extends Error {
  override readonly name = 'StateChangeError';
}

/**
 * The service's API through the engine's HTTP client (undici, timeouts, the token redacted from every
 * recorded exchange). A transport failure (refused, timed out) is a StateChangeError naming it.
 */
export function createServiceApi(baseUrl: string, token: string, timeoutMs: number): ServiceApi & { close(): Promise<void> } {
  const base = baseUrl.replace(/\/+$/, '');
  const client = new HttpClient({ timeoutMs, bodyCapBytes: 4 * 1024 * 1024, connections: 4, secrets: [token] });
  return {
    async call(method, path, body) {
      const exchange = await client.send({
        method: method as HttpMethod,
        url: `${base}${path}`,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (!exchange.response) {
        throw new StateChangeError(`${method} ${exchange.request.url} failed: ${exchange.error?.message ?? 'no response'}`);
      }
      return { status: exchange.response.status, json: exchange.response.json };
    },
    close: () => client.close(),
  };
}

/** The `error.code` of a platform-style error body, if any. */
export function errorCode(json: unknown): string | undefined {
  const error = (json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

/** "POST /things answered 400 SOME_CODE": a failed state call, never with the token. */
export function describeFailure(method: string, path: string, status: number, json: unknown): string {
  const code = errorCode(json);
  return `${method} ${path} answered ${status}${code ? ` ${code}` : ''}`;
}

/** Whether a DELETE's answer means the record is gone (by default 404 or 410). */
export type RecordGone = (status: number, json: unknown) => boolean;
export const GONE_BY_STATUS: RecordGone = (status) => status === 404 || status === 410;

/** Answers that also mean "already gone" (a pack's: a platform that answers 400 with a not-found code). */
export interface GoneAnswer {
  status: number;
  /** The `error.code` the answer carries. */
  code?: string;
}

export function goneBy(answers: readonly GoneAnswer[] = []): RecordGone {
  return (status, json) => GONE_BY_STATUS(status, json) || answers.some((a) => a.status === status && (a.code === undefined || a.code === errorCode(json)));
}

/** Deletes; a record already gone is fine: the interaction may have deleted it. */
export async function deleteIfPresent(api: ServiceApi, path: string, gone: RecordGone = GONE_BY_STATUS): Promise<void> {
  const res = await api.call('DELETE', path);
  if ((res.status >= 200 && res.status < 300) || gone(res.status, res.json)) return;
  throw new StateChangeError(`could not clean up: ${describeFailure('DELETE', path, res.status, res.json)}`);
}

/** Creates a record with a POST and returns its id (from any answer holding one), or fails naming the call. */
export async function createRecord(api: ServiceApi, path: string, body: unknown, what: string): Promise<string> {
  const res = await api.call('POST', path, body);
  const id = res.status >= 200 && res.status < 300 ? createdIds(res.json)[0] : undefined;
  if (id === undefined) {
    throw new StateChangeError(`could not create ${what}: ${describeFailure('POST', path, res.status, res.json)}${res.status < 300 ? ' without an id' : ''}`);
  }
  return id;
}

/** A stack per state: setup pushes what it created, teardown pops it (interactions run one at a time). */
export function stateWith<T>(
  setup: (params: JsonMap) => Promise<{ created: T; inject: JsonMap }>,
  teardown: (created: T) => Promise<void>,
): ProviderStateHandler {
  const stack: T[] = [];
  return {
    async setup(params) {
      const { created, inject } = await setup(params);
      stack.push(created);
      return inject;
    },
    async teardown() {
      const created = stack.pop();
      if (created !== undefined) await teardown(created);
    },
  };
}
