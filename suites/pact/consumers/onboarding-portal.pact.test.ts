/**
 * Consumer pact: onboarding-portal -> customer-service.
 *
 * The portal lets back-office staff define address types (e.g. "home", "billing") and the fields an address of
 * that type has, and it starts the forgotten-password flow for portal users. Each test drives the portal's own
 * client against the Pact mock server; the interactions it records become contract/pacts/
 * onboarding-portal-customer-service.json.
 */
import { describe, expect, it } from 'vitest';
import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import { CustomerServiceError, OnboardingPortalClient } from './onboarding-portal.client.ts';
import { pactOutputDir } from './pact-dir.ts';

const { like, eachLike, uuid, integer, boolean, regex, fromProviderState } = MatchersV3;

const provider = new PactV4({
  consumer: 'onboarding-portal',
  provider: 'customer-service',
  dir: pactOutputDir(),
  logLevel: 'warn',
});

// Example values: what the mock server answers. Matchers keep the verification independent of them.
const ADDRESS_TYPE_ID = '3f1c2a8e-5b7d-4c1e-9a2b-6d8e0f4a1b23';
const FIELD_ID = '8a4e6c2d-1f3b-4d5a-9e7c-2b0d4f6a8c13';
const TRANSACTION_ID = 'c0a8012e-7d4f-4b1a-8e2c-5f6a7b8c9d01';
const ACCESS_TOKEN = 'portal-example-token';

/** The portal always sends a bearer token; the provider's verification replaces it with a real one. */
const authorization = regex(/^Bearer \S+$/, `Bearer ${ACCESS_TOKEN}`);
const jsonRequestHeaders = { Authorization: authorization, 'Content-Type': 'application/json' };
const jsonResponseHeaders = { 'Content-Type': regex(/^application\/json(;.*)?$/, 'application/json; charset=utf-8') };

const addressTypePath = fromProviderState('/address-types/${addressTypeId}', `/address-types/${ADDRESS_TYPE_ID}`);
const fieldsPath = fromProviderState(
  '/address-types/${addressTypeId}/fields',
  `/address-types/${ADDRESS_TYPE_ID}/fields`,
);
const fieldPath = fromProviderState(
  '/address-types/${addressTypeId}/fields/${fieldId}',
  `/address-types/${ADDRESS_TYPE_ID}/fields/${FIELD_ID}`,
);

/** An address type field as the portal reads it (no translations on the single-field read). */
const addressTypeField = {
  id: fromProviderState('${fieldId}', FIELD_ID),
  typeId: fromProviderState('${addressTypeId}', ADDRESS_TYPE_ID),
  fieldKey: like('street'),
  isMandatory: boolean(true),
  isActive: boolean(true),
  sequenceNumber: integer(1),
};

describe('onboarding-portal -> customer-service', () => {
  describe('address types', () => {
    it('creates an address type', async () => {
      await provider
        .addInteraction()
        .uponReceiving('a request to create an address type')
        .withRequest('POST', '/address-types', (builder) => {
          builder.headers(jsonRequestHeaders).jsonBody({ code: 'HOME', name: 'Home address', country: 90 });
        })
        .willRespondWith(200, (builder) => {
          builder.headers(jsonResponseHeaders).jsonBody({ id: uuid(ADDRESS_TYPE_ID) });
        })
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          const created = await client.createAddressType({ code: 'HOME', name: 'Home address', country: 90 });
          expect(created.id).toBe(ADDRESS_TYPE_ID);
        });
    });

    it('renames and deactivates an address type', async () => {
      await provider
        .addInteraction()
        .given('an address type exists')
        .uponReceiving('a request to update an address type')
        .withRequest('PUT', addressTypePath, (builder) => {
          builder.headers(jsonRequestHeaders).jsonBody({ name: 'Home address (legacy)', isActive: false });
        })
        .willRespondWith(200)
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          await expect(
            client.updateAddressType(ADDRESS_TYPE_ID, { name: 'Home address (legacy)', isActive: false }),
          ).resolves.toBeUndefined();
        });
    });

    it('deletes an address type', async () => {
      await provider
        .addInteraction()
        .given('an address type exists')
        .uponReceiving('a request to delete an address type')
        .withRequest('DELETE', addressTypePath, (builder) => {
          builder.headers({ Authorization: authorization });
        })
        .willRespondWith(200)
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          await expect(client.deleteAddressType(ADDRESS_TYPE_ID)).resolves.toBeUndefined();
        });
    });
  });

  describe('address type fields', () => {
    it('adds a field to an address type', async () => {
      await provider
        .addInteraction()
        .given('an address type exists')
        .uponReceiving('a request to add a field to an address type')
        .withRequest('POST', fieldsPath, (builder) => {
          builder.headers(jsonRequestHeaders).jsonBody({
            fieldKey: 'street',
            isMandatory: true,
            sequenceNumber: 1,
            isVisible: true,
            separatorMark: ',',
          });
        })
        .willRespondWith(200, (builder) => {
          builder.headers(jsonResponseHeaders).jsonBody({ id: uuid(FIELD_ID) });
        })
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          const created = await client.createField(ADDRESS_TYPE_ID, {
            fieldKey: 'street',
            isMandatory: true,
            sequenceNumber: 1,
            isVisible: true,
            separatorMark: ',',
          });
          expect(created.id).toBe(FIELD_ID);
        });
    });

    it('lists the fields of an address type, first page', async () => {
      await provider
        .addInteraction()
        .given('an address type with a field exists')
        .uponReceiving('a request for the first page of the fields of an address type')
        .withRequest('GET', fieldsPath, (builder) => {
          builder.headers({ Authorization: authorization }).query({ pageIndex: '0', pageSize: '20' });
        })
        .willRespondWith(200, (builder) => {
          builder.headers(jsonResponseHeaders).jsonBody(
            eachLike({
              id: uuid(FIELD_ID),
              typeId: fromProviderState('${addressTypeId}', ADDRESS_TYPE_ID),
              fieldKey: like('street'),
              isMandatory: boolean(true),
              isActive: boolean(true),
              sequenceNumber: integer(1),
            }),
          );
        })
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          const fields = await client.listFields(ADDRESS_TYPE_ID, { pageIndex: 0, pageSize: 20 });
          expect(fields).toHaveLength(1);
          expect(fields[0]?.fieldKey).toBe('street');
        });
    });

    it('reads one field of an address type', async () => {
      await provider
        .addInteraction()
        .given('an address type with a field exists')
        .uponReceiving('a request for one field of an address type')
        .withRequest('GET', fieldPath, (builder) => {
          builder.headers({ Authorization: authorization });
        })
        .willRespondWith(200, (builder) => {
          builder.headers(jsonResponseHeaders).jsonBody(addressTypeField);
        })
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          const field = await client.getField(ADDRESS_TYPE_ID, FIELD_ID);
          expect(field).toMatchObject({ id: FIELD_ID, typeId: ADDRESS_TYPE_ID, fieldKey: 'street' });
        });
    });

    it('shows "not found" for a field that does not exist', async () => {
      await provider
        .addInteraction()
        .given('an address type exists')
        .uponReceiving('a request for a field that does not exist')
        .withRequest(
          'GET',
          fromProviderState(
            '/address-types/${addressTypeId}/fields/00000000-0000-4000-8000-000000000000',
            `/address-types/${ADDRESS_TYPE_ID}/fields/00000000-0000-4000-8000-000000000000`,
          ),
          (builder) => {
            builder.headers({ Authorization: authorization });
          },
        )
        .willRespondWith(400, (builder) => {
          builder.headers(jsonResponseHeaders).jsonBody({ error: { code: 'ERR_PLAT_4' } });
        })
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          const failure = await client
            .getField(ADDRESS_TYPE_ID, '00000000-0000-4000-8000-000000000000')
            .catch((e: unknown) => e);
          expect(failure).toBeInstanceOf(CustomerServiceError);
          expect((failure as CustomerServiceError).code).toBe('ERR_PLAT_4');
        });
    });

    it('changes a field of an address type', async () => {
      const change = {
        fieldKey: 'street',
        isActive: true,
        isMandatory: false,
        sequenceNumber: 2,
        isVisible: true,
      };
      await provider
        .addInteraction()
        .given('an address type with a field exists')
        .uponReceiving('a request to update a field of an address type')
        .withRequest('PUT', fieldPath, (builder) => {
          builder.headers(jsonRequestHeaders).jsonBody(change);
        })
        .willRespondWith(200)
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          await expect(client.updateField(ADDRESS_TYPE_ID, FIELD_ID, change)).resolves.toBeUndefined();
        });
    });

    it('removes a field from an address type', async () => {
      await provider
        .addInteraction()
        .given('an address type with a field exists')
        .uponReceiving('a request to delete a field of an address type')
        .withRequest('DELETE', fieldPath, (builder) => {
          builder.headers({ Authorization: authorization });
        })
        .willRespondWith(200)
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          await expect(client.deleteField(ADDRESS_TYPE_ID, FIELD_ID)).resolves.toBeUndefined();
        });
    });
  });

  describe('forgotten password', () => {
    it('sends a one-time password to a user who forgot theirs', async () => {
      await provider
        .addInteraction()
        .uponReceiving('a request to send a forgotten-password one-time password')
        .withRequest('POST', '/users/forget-password', (builder) => {
          builder.headers(jsonRequestHeaders).jsonBody({ userIdentifier: 'jane.doe' });
        })
        .willRespondWith(200, (builder) => {
          builder.headers(jsonResponseHeaders).jsonBody({
            Username: like('jane.doe'),
            TransactionId: uuid(TRANSACTION_ID),
          });
        })
        .executeTest(async (mockServer) => {
          const client = new OnboardingPortalClient(mockServer.url, ACCESS_TOKEN);
          const otp = await client.sendForgetPasswordOtp('jane.doe');
          expect(otp.TransactionId).toBe(TRANSACTION_ID);
        });
    });
  });
});
