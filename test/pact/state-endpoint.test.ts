/**
 * The provider-state change endpoint (Pact convention: POST {state, params, action}), as served by the
 * reference service on its own origin and by `conformance pact states` in front of a deployment.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PACT_STATES_ROUTE, startReferenceService, type ReferenceService } from '../../src/reference-service/index.ts';
import { cleanEnv, runConformance, startConformance } from './support-cli.ts';

const TOKEN = `pact-states-${Math.random().toString(36).slice(2)}-secret`;

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function get(svc: ReferenceService, path: string): Promise<number> {
  const res = await fetch(`${svc.customerBaseUrl}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('the reference service serves the state-change endpoint', () => {
  let svc: ReferenceService;
  let url: string;
  beforeAll(async () => {
    svc = await startReferenceService({ token: TOKEN, port: 0 });
    url = `${svc.url}${PACT_STATES_ROUTE}`;
  });
  afterAll(async () => svc.close());

  test('setup creates the records through the API and answers the ids to inject; teardown deletes them', async () => {
    const setup = await post(url, { state: 'an address type with a field exists', params: {}, action: 'setup' });
    expect(setup.status).toBe(200);
    const { addressTypeId, fieldId } = setup.json as { addressTypeId: string; fieldId: string };
    expect(addressTypeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fieldId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await get(svc, `/address-types/${addressTypeId}/fields/${fieldId}`)).toBe(200);

    const teardown = await post(url, { state: 'an address type with a field exists', params: {}, action: 'teardown' });
    expect(teardown).toEqual({ status: 200, json: {} });
    expect(await get(svc, `/address-types/${addressTypeId}/fields/${fieldId}`)).not.toBe(200);
  });

  test('a state of the other service is found by name; a provider in the path restricts the lookup', async () => {
    const any = await post(url, { state: 'a reference number was generated', action: 'setup' });
    expect(any.status).toBe(200);
    expect(typeof any.json['lastReference']).toBe('string');
    const scoped = await post(`${url}/customer-service`, { state: 'a reference number was generated', action: 'setup' });
    expect(scoped.status).toBe(500);
    expect(scoped.json['error']).toContain('no provider state "a reference number was generated" for customer-service');
  });

  test('an unknown state fails setup naming the known states; teardown of it and an empty state are fine', async () => {
    const unknown = await post(url, { state: 'an archived address type exists', params: {}, action: 'setup' });
    expect(unknown.status).toBe(500);
    expect(unknown.json['error']).toContain('no provider state "an archived address type exists"');
    expect(unknown.json['error']).toContain('"an address type exists"');
    expect(await post(url, { state: 'an archived address type exists', action: 'teardown' })).toEqual({ status: 200, json: {} });
    expect(await post(url, { state: '', action: 'setup' })).toEqual({ status: 200, json: {} });
  });

  test('state as query parameters (verifiers run with --state-change-as-query) is understood', async () => {
    const res = await fetch(`${url}?state=${encodeURIComponent('an address type exists')}&action=setup`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>)['addressTypeId']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('only POST; a body that is not JSON is a 400', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    await res.arrayBuffer();
    const bad = await fetch(url, { method: 'POST', body: '{nope' });
    expect(bad.status).toBe(400);
    await bad.arrayBuffer();
  });

  test('a deployment that cannot create the record fails setup with the API call and its answer', async () => {
    const broken = await startReferenceService({
      token: TOKEN,
      port: 0,
      variant: { handlers: { 'create-address-type': () => ({ status: 500, body: { error: { code: 'ERROR', message: 'down' } } }) } },
    });
    try {
      const res = await post(`${broken.url}${PACT_STATES_ROUTE}`, { state: 'an address type exists', action: 'setup' });
      expect(res).toEqual({
        status: 500,
        json: { error: 'provider state "an address type exists" setup: could not create an address type: POST /address-types answered 500 ERROR' },
      });
    } finally {
      await broken.close();
    }
  });
});

describe('conformance pact states', () => {
  test('serves the endpoint in front of a deployment with the token, and stops on SIGTERM', async () => {
    const svc = await startReferenceService({ token: TOKEN, port: 0 });
    try {
      const started = await startConformance(
        ['pact', 'states', '--port', '0', '--base-url', svc.customerBaseUrl, '--foreign-trade-base-url', svc.foreignTradeBaseUrl],
        /listening on (http:\/\/127\.0\.0\.1:\d+\/pact-states)/,
        cleanEnv({ CONFORMANCE_TOKEN: TOKEN }),
      );
      const url = started.match[1] ?? '';
      const setup = await post(url, { state: 'an address type exists', params: {}, action: 'setup' });
      expect(setup.status).toBe(200);
      expect(await get(svc, `/address-types/${String(setup.json['addressTypeId'])}/fields`)).toBe(200);
      const trade = await post(`${url}/foreign-trade-service`, { state: 'a reference number was generated', action: 'setup' });
      expect(trade.status).toBe(200);
      started.child.kill('SIGTERM');
      const exit = await started.exited;
      expect(exit.code).toBe(0);
      expect(`${exit.stdout}${exit.stderr}`).not.toContain(TOKEN);
    } finally {
      await svc.close();
    }
  });

  test('a deployment that cannot be reached fails setup with a one-line reason', async () => {
    const started = await startConformance(
      ['pact', 'states', '--base-url', 'http://127.0.0.1:9/customer-service', '--timeout', '2000'],
      /listening on (http:\/\/127\.0\.0\.1:\d+\/pact-states)/,
      cleanEnv({ CONFORMANCE_TOKEN: TOKEN }),
    );
    try {
      const res = await post(started.match[1] ?? '', { state: 'an address type exists', action: 'setup' });
      expect(res.status).toBe(500);
      expect(res.json['error']).toMatch(/^provider state "an address type exists" setup: POST http:\/\/127\.0\.0\.1:9\/customer-service\/address-types failed: ECONNREFUSED/);
    } finally {
      started.child.kill('SIGTERM');
      await started.exited;
    }
  });

  test('without a base URL or a token: one line, exit 2', async () => {
    const noUrl = await runConformance(['pact', 'states'], cleanEnv({ CONFORMANCE_TOKEN: TOKEN }));
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr.trim().split('\n')).toEqual([expect.stringContaining('pact states needs the providers\' base URLs: --base-url')]);
    const noToken = await runConformance(['pact', 'states', '--base-url', 'http://127.0.0.1:9/customer-service']);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr.trim()).toBe('conformance: no bearer token: set CONFORMANCE_TOKEN (or pass --token)');
  });
});
