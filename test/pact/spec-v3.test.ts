/** Pact specification 4 → 3 (pact convert). */
import { describe, expect, test } from 'vitest';
import { PactInputError } from '../../src/runner/pact/errors.ts';
import { parsePact } from '../../src/runner/pact/pact-file.ts';
import { pactToV3 } from '../../src/runner/pact/spec-v3.ts';
import { ONBOARDING_PACT, readPact } from './support.ts';

type Json = Record<string, unknown>;

describe('pactToV3', () => {
  test('the committed V4 pact becomes a V3 pact with the same interactions, rules and provider-state generators', async () => {
    const v4 = await readPact(ONBOARDING_PACT);
    const v3 = pactToV3(v4, ONBOARDING_PACT);
    expect((v3['metadata'] as { pactSpecification: unknown }).pactSpecification).toEqual({ version: '3.0.0' });
    const interactions = v3['interactions'] as Json[];
    expect(interactions).toHaveLength(v4.interactions.length);
    const field = interactions.find((i) => i['description'] === 'a request for one field of an address type') as Json;
    expect(Object.keys(field).sort()).toEqual(['description', 'providerStates', 'request', 'response']);
    const request = field['request'] as Json;
    const response = field['response'] as Json;
    expect(request['headers']).toEqual({ Authorization: 'Bearer portal-example-token' });
    expect(request['generators']).toEqual({ path: { expression: '/address-types/${addressTypeId}/fields/${fieldId}', type: 'ProviderState' } });
    expect(response['body']).toMatchObject({ fieldKey: 'street', sequenceNumber: 1 });
    expect(response['headers']).toEqual({ 'Content-Type': 'application/json; charset=utf-8' });
    expect((response['generators'] as Json)['body']).toEqual({
      '$.id': { expression: '${fieldId}', type: 'ProviderState' },
      '$.typeId': { expression: '${addressTypeId}', type: 'ProviderState' },
    });
    // Our own reader reads the V3 copy into the same interactions.
    const original = parsePact(JSON.stringify(v4), 'v4');
    const copy = parsePact(JSON.stringify(v3), 'v3');
    expect(copy.specification).toBe('3.0.0');
    expect(copy.interactions.map((i) => [i.description, i.request.method, i.request.path, i.response.status, i.response.body?.content])).toEqual(
      original.interactions.map((i) => [i.description, i.request.method, i.request.path, i.response.status, i.response.body?.content]),
    );
  });

  test('an encoded body is decoded; a body type without a Content-Type header gets one', () => {
    const v3 = pactToV3(
      {
        consumer: { name: 'c' },
        provider: { name: 'p' },
        metadata: { pactSpecification: { version: '4.0' } },
        interactions: [
          {
            type: 'Synchronous/HTTP',
            description: 'd',
            request: { method: 'POST', path: '/x', body: { content: Buffer.from('{"a":1}').toString('base64'), contentType: 'application/json', encoded: 'base64' } },
            response: { status: 200, body: { content: 'plain', contentType: 'text/plain', encoded: false } },
          },
        ],
      },
      'inline',
    );
    const [interaction] = v3['interactions'] as Json[];
    expect((interaction?.['request'] as Json)['body']).toEqual({ a: 1 });
    expect((interaction?.['request'] as Json)['headers']).toEqual({ 'Content-Type': 'application/json' });
    expect((interaction?.['response'] as Json)['body']).toBe('plain');
  });

  test('a V4 message interaction has no V3 HTTP form: refused with its location', () => {
    const doc = {
      consumer: { name: 'c' },
      provider: { name: 'p' },
      metadata: { pactSpecification: { version: '4.0' } },
      interactions: [{ type: 'Asynchronous/Messages', description: 'an event' }],
    };
    expect(() => pactToV3(doc, 'events.json')).toThrow(PactInputError);
    expect(() => pactToV3(doc, 'events.json')).toThrow('events.json#/interactions/0: a Asynchronous/Messages interaction has no V3 HTTP form');
  });

  test('a V3 pact is returned as it is', () => {
    const doc = { consumer: { name: 'c' }, provider: { name: 'p' }, interactions: [], metadata: { pactSpecification: { version: '3.0.0' } } };
    expect(pactToV3(doc, 'v3.json')).toBe(doc);
  });
});
