/**
 * Provider states: what each state a consumer names means, set up through the service's own API with the
 * run's token, and torn down afterwards. Keys are the exact state strings consumers write in their pacts;
 * each handler's setup returns the values consumers inject with `fromProviderState` (e.g. `${addressTypeId}`).
 *
 * Records the interactions themselves create (a consumer's "create an address type" needs no state) are
 * recorded from the responses and deleted again (see CREATED_RECORDS and the ledger in verify-worker.ts).
 *
 * The table in suites/pact/README.md lists the same states; keep both in step.
 */
import { createdIds } from '../execute/created.ts';
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

function errorCode(json: unknown): string | undefined {
  const error = (json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

function describeFailure(method: string, path: string, status: number, json: unknown): string {
  const code = errorCode(json);
  return `${method} ${path} answered ${status}${code ? ` ${code}` : ''}`;
}

async function create(api: ServiceApi, path: string, body: unknown, what: string): Promise<string> {
  const res = await api.call('POST', path, body);
  const id = res.status === 200 ? createdIds(res.json)[0] : undefined;
  if (id === undefined) {
    throw new StateChangeError(
      `could not create ${what}: ${describeFailure('POST', path, res.status, res.json)}${res.status === 200 ? ' without an id' : ''}`,
    );
  }
  return id;
}

/** Deletes; a record already gone (400 ERR_PLAT_4, or 404) is fine: the interaction may have deleted it. */
export async function deleteIfPresent(api: ServiceApi, path: string): Promise<void> {
  const res = await api.call('DELETE', path);
  if (res.status === 200 || res.status === 404 || (res.status === 400 && errorCode(res.json) === 'ERR_PLAT_4')) return;
  throw new StateChangeError(`could not clean up: ${describeFailure('DELETE', path, res.status, res.json)}`);
}

function uniqueCode(): string {
  return `PACT-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
}

/** A stack per state: setup pushes what it created, teardown pops it (interactions run one at a time). */
function stateWith<T>(
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

/** customer-service states. */
export function customerServiceStates(api: ServiceApi): ProviderStateHandlers {
  const createType = () =>
    create(api, '/address-types', { code: uniqueCode(), name: 'Pact provider state' }, 'an address type');
  return {
    'an address type exists': stateWith(
      async () => {
        const addressTypeId = await createType();
        return { created: { addressTypeId }, inject: { addressTypeId } };
      },
      async ({ addressTypeId }) => deleteIfPresent(api, `/address-types/${addressTypeId}`),
    ),
    'an address type with a field exists': stateWith(
      async () => {
        const addressTypeId = await createType();
        const fieldId = await create(
          api,
          `/address-types/${addressTypeId}/fields`,
          { fieldKey: 'street', isMandatory: true, sequenceNumber: 1, isVisible: true },
          'an address type field',
        ).catch(async (error: unknown) => {
          await deleteIfPresent(api, `/address-types/${addressTypeId}`);
          throw error;
        });
        return { created: { addressTypeId, fieldId }, inject: { addressTypeId, fieldId } };
      },
      async ({ addressTypeId, fieldId }) => {
        await deleteIfPresent(api, `/address-types/${addressTypeId}/fields/${fieldId}`);
        await deleteIfPresent(api, `/address-types/${addressTypeId}`);
      },
    ),
  };
}

/** foreign-trade-service states. Generating a reference number cannot be undone (the counter advances). */
export function foreignTradeServiceStates(api: ServiceApi): ProviderStateHandlers {
  return {
    'a reference number was generated': stateWith(
      async () => {
        const path = '/reference-numbers/generate';
        const res = await api.call('POST', path, { direction: 'IMPORT', isDomestic: false, transactionType: 'LC' });
        const lastReference = (res.json as { LastReference?: unknown } | undefined)?.LastReference;
        if (res.status !== 200 || typeof lastReference !== 'string') {
          throw new StateChangeError(`could not generate a reference number: ${describeFailure('POST', path, res.status, res.json)}`);
        }
        return { created: lastReference, inject: { lastReference } };
      },
      async () => undefined,
    ),
  };
}

/** State handlers by provider name (the pact's provider.name, which is the contract's x-service-id). */
export const PROVIDER_STATES: Record<string, (api: ServiceApi) => ProviderStateHandlers> = {
  'customer-service': customerServiceStates,
  'foreign-trade-service': foreignTradeServiceStates,
};

/** Records an interaction creates, and how to delete each (path relative to the service base). */
export interface CreatedRecordRule {
  method: string;
  /** Path template of the create operation. */
  template: RegExp;
  /** Path of the delete for one created id; `match` is the template match of the create's path. */
  undo: (match: RegExpExecArray, id: string) => string;
}

export const CREATED_RECORDS: Record<string, CreatedRecordRule[]> = {
  'customer-service': [
    { method: 'POST', template: /^\/address-types\/?$/, undo: (_m, id) => `/address-types/${id}` },
    {
      method: 'POST',
      template: /^\/address-types\/([^/]+)\/fields\/?$/,
      undo: (m, id) => `/address-types/${m[1] ?? ''}/fields/${id}`,
    },
  ],
};
