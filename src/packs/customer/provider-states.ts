/**
 * Pact provider states of the Customer domain service and the foreign-trade service: what each state a consumer
 * names means, set up through the service's own API with the run's token and torn down afterwards.
 * The table in suites/pact/README.md lists the same states; keep both in step.
 */
import {
  createRecord,
  deleteIfPresent,
  describeFailure,
  goneBy,
  stateWith,
  StateChangeError,
  type GoneAnswer,
  type ProviderStateHandlers,
  type ServiceApi,
} from '../../runner/pact/states.ts';

/** A record already gone: 404, or the platform's 400 ERR_PLAT_4 ("not found"). */
export const GONE_ANSWERS: GoneAnswer[] = [{ status: 400, code: 'ERR_PLAT_4' }];

const remove = (api: ServiceApi, path: string) => deleteIfPresent(api, path, goneBy(GONE_ANSWERS));

function uniqueCode(): string {
  return `PACT-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
}

/** customer-service states. */
export function customerServiceStates(api: ServiceApi): ProviderStateHandlers {
  const createType = () => createRecord(api, '/address-types', { code: uniqueCode(), name: 'Pact provider state' }, 'an address type');
  return {
    'an address type exists': stateWith(
      async () => {
        const addressTypeId = await createType();
        return { created: { addressTypeId }, inject: { addressTypeId } };
      },
      async ({ addressTypeId }) => remove(api, `/address-types/${addressTypeId}`),
    ),
    'an address type with a field exists': stateWith(
      async () => {
        const addressTypeId = await createType();
        const fieldId = await createRecord(
          api,
          `/address-types/${addressTypeId}/fields`,
          { fieldKey: 'street', isMandatory: true, sequenceNumber: 1, isVisible: true },
          'an address type field',
        ).catch(async (error: unknown) => {
          await remove(api, `/address-types/${addressTypeId}`);
          throw error;
        });
        return { created: { addressTypeId, fieldId }, inject: { addressTypeId, fieldId } };
      },
      async ({ addressTypeId, fieldId }) => {
        await remove(api, `/address-types/${addressTypeId}/fields/${fieldId}`);
        await remove(api, `/address-types/${addressTypeId}`);
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
