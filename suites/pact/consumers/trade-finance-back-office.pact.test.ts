/**
 * Consumer pact: trade-finance-back-office -> foreign-trade-service.
 *
 * The back office draws a reference number when an operator opens a foreign-trade transaction, and checks a
 * reference number before it is quoted to a correspondent bank. The interactions become contract/pacts/
 * trade-finance-back-office-foreign-trade-service.json.
 */
import { describe, expect, it } from 'vitest';
import { MatchersV3, PactV4 } from '@pact-foundation/pact';
import { TradeFinanceClient } from './trade-finance-back-office.client.ts';
import { pactOutputDir } from './pact-dir.ts';

const { like, uuid, integer, regex, fromProviderState } = MatchersV3;

const provider = new PactV4({
  consumer: 'trade-finance-back-office',
  provider: 'foreign-trade-service',
  dir: pactOutputDir(),
  logLevel: 'warn',
});

const ACCESS_TOKEN = 'back-office-example-token';
const REFERENCE_ID = '5d2f7a1c-3e8b-4f6a-b9d0-1c2e3f4a5b6c';
const LAST_REFERENCE = 'IMP-LC-000042';

const authorization = regex(/^Bearer \S+$/, `Bearer ${ACCESS_TOKEN}`);
const jsonRequestHeaders = { Authorization: authorization, 'Content-Type': 'application/json' };
const jsonResponseHeaders = { 'Content-Type': regex(/^application\/json(;.*)?$/, 'application/json; charset=utf-8') };

describe('trade-finance-back-office -> foreign-trade-service', () => {
  it('draws a reference number for a new import letter of credit', async () => {
    await provider
      .addInteraction()
      .uponReceiving('a request to generate a reference number')
      .withRequest('POST', '/reference-numbers/generate', (builder) => {
        builder.headers(jsonRequestHeaders).jsonBody({ direction: 'IMPORT', isDomestic: false, transactionType: 'LC' });
      })
      .willRespondWith(200, (builder) => {
        builder.headers(jsonResponseHeaders).jsonBody({
          Id: uuid(REFERENCE_ID),
          Description: like('Import letter of credit'),
          Counter: integer(42),
          LastReference: like(LAST_REFERENCE),
          Direction: like('IMPORT'),
        });
      })
      .executeTest(async (mockServer) => {
        const client = new TradeFinanceClient(mockServer.url, ACCESS_TOKEN);
        const reference = await client.generateReferenceNumber({
          direction: 'IMPORT',
          isDomestic: false,
          transactionType: 'LC',
        });
        expect(reference.LastReference).toBe(LAST_REFERENCE);
        expect(reference.Counter).toBe(42);
      });
  });

  it('confirms that a reference number it was given is valid', async () => {
    await provider
      .addInteraction()
      .given('a reference number was generated')
      .uponReceiving('a request to validate a generated reference number')
      // The request body of this operation is not shown by the interface: `referenceNumber` is this
      // consumer's assumption about the field name.
      .withRequest('POST', '/reference-numbers/validate', (builder) => {
        builder
          .headers(jsonRequestHeaders)
          .jsonBody({ referenceNumber: fromProviderState('${lastReference}', LAST_REFERENCE) });
      })
      .willRespondWith(200, (builder) => {
        builder.headers(jsonResponseHeaders).jsonBody({ IsValid: true });
      })
      .executeTest(async (mockServer) => {
        const client = new TradeFinanceClient(mockServer.url, ACCESS_TOKEN);
        await expect(client.isValidReferenceNumber(LAST_REFERENCE)).resolves.toBe(true);
      });
  });

  it('rejects a reference number that was never issued', async () => {
    await provider
      .addInteraction()
      .uponReceiving('a request to validate a reference number that was never issued')
      .withRequest('POST', '/reference-numbers/validate', (builder) => {
        builder.headers(jsonRequestHeaders).jsonBody({ referenceNumber: 'NEVER-ISSUED-000000' });
      })
      .willRespondWith(200, (builder) => {
        builder.headers(jsonResponseHeaders).jsonBody({ IsValid: false });
      })
      .executeTest(async (mockServer) => {
        const client = new TradeFinanceClient(mockServer.url, ACCESS_TOKEN);
        await expect(client.isValidReferenceNumber('NEVER-ISSUED-000000')).resolves.toBe(false);
      });
  });
});
