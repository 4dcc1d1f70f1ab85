import { describe, expect, test } from 'vitest';
import { OPERATION_IDS, ROUTES, startReferenceService } from '../../src/reference-service/index.ts';
import { call, errorCode, obj, TOKEN, UNKNOWN_ID, useService, validAddressType } from './support.ts';

/** Every route, with path ids filled with a well-formed (unknown) uuid. */
const routes = ROUTES.map((r) => ({
  operationId: r.operationId,
  method: r.method,
  path: `/${r.service}${r.path.replace(/\{[^}]+\}/g, UNKNOWN_ID)}`,
}));

const badAuth: Array<[string, string | null, string]> = [
  ['missing', null, 'missing bearer token'],
  ['empty', '', 'missing bearer token'],
  ['not bearer', `Basic ${TOKEN}`, 'malformed'],
  ['bearer without token', 'Bearer', 'malformed'],
  ['bearer with two parts', `Bearer ${TOKEN} extra`, 'malformed'],
  ['token without scheme', TOKEN, 'malformed'],
  ['wrong token', 'Bearer not-the-token', 'invalid bearer token'],
  ['token prefix', `Bearer ${TOKEN.slice(0, -1)}`, 'invalid bearer token'],
];

describe('auth on every route', () => {
  const s = useService();
  const cases = routes.flatMap((r) => badAuth.map(([label, auth, message]) => ({ ...r, label, auth, message })));

  test('every operation id has exactly one route', () => {
    expect(routes.map((r) => r.operationId).sort()).toEqual([...OPERATION_IDS].sort());
  });

  test.each(cases)('$operationId ($method $path): $label → 401', async ({ method, path, auth, message }) => {
    const res = await call(`${s.svc.url}${path}`, method, { auth, json: {} });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(errorCode(res)).toBe('UNAUTHORIZED');
    expect(String(obj(obj(res.json)['error'])['message'])).toContain(message);
    expect(res.text).not.toContain(TOKEN);
  });

  test('the bearer scheme is case-insensitive (RFC 7235)', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/caches/keys`, 'GET', { auth: `bearer ${TOKEN}` });
    expect(res.status).toBe(200);
  });

  test('a rejected create does not create anything', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/address-types`, 'POST', { auth: 'Bearer wrong', json: validAddressType });
    expect(res.status).toBe(401);
    expect(res.json).not.toHaveProperty('id');
  });
});

describe('gateway-style answers for routes the service does not serve', () => {
  const s = useService();

  test.each([
    ['/'],
    ['/customer-service'],
    ['/customer-service/'],
    ['/customer-service/customers'],
    ['/customer-service/address-types/'],
    [`/customer-service/address-types/${UNKNOWN_ID}/fields/${UNKNOWN_ID}/extra`],
    ['/customer-service/reference-numbers/generate'],
    ['/foreign-trade-service/address-types'],
    ['/foreign-trade-service/reference-numbers'],
    ['/address-types'],
    ['/__reference/other'],
  ])('unknown path %s → 404 without envelope, before auth', async (path) => {
    for (const auth of [null, `Bearer ${TOKEN}`]) {
      const res = await call(`${s.svc.url}${path}`, 'GET', { auth });
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBeUndefined();
      expect(res.json).toEqual({ message: 'no Route matched with those values' });
    }
  });

  test.each([
    ['GET', '/customer-service/address-types', 'POST'],
    ['GET', `/customer-service/address-types/${UNKNOWN_ID}`, 'DELETE, PUT'],
    ['PATCH', `/customer-service/address-types/${UNKNOWN_ID}`, 'DELETE, PUT'],
    ['DELETE', `/customer-service/address-types/${UNKNOWN_ID}/fields`, 'GET, POST'],
    ['POST', `/customer-service/address-types/${UNKNOWN_ID}/fields/${UNKNOWN_ID}`, 'DELETE, GET, PUT'],
    ['POST', '/customer-service/caches/keys', 'GET'],
    ['GET', '/customer-service/caches/refresh', 'POST'],
    ['GET', '/customer-service/users', 'POST'],
    ['PUT', '/customer-service/users/forget-password', 'POST'],
    ['GET', '/foreign-trade-service/reference-numbers/generate', 'POST'],
    ['DELETE', '/foreign-trade-service/reference-numbers/validate', 'POST'],
  ])('%s %s → 405 Allow: %s, without envelope, before auth', async (method, path, allow) => {
    const res = await call(`${s.svc.url}${path}`, method, { auth: null });
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe(allow);
    expect(errorCode(res)).toBeUndefined();
  });
});

describe('removed operations answer like an unknown route', () => {
  test.each(routes)('$operationId removed → 404 without envelope', async ({ operationId, method, path }) => {
    const svc = await startReferenceService({ token: TOKEN, variant: { removeOperations: [operationId] } });
    try {
      const res = await call(`${svc.url}${path}`, method, { json: {} });
      expect(res.status).toBe(404);
      expect(errorCode(res)).toBeUndefined();
      // The other operations are still served.
      const otherId = operationId === 'customer-get-cache-key-list' ? 'create-user' : 'customer-get-cache-key-list';
      const other = routes.find((r) => r.operationId === otherId);
      if (other === undefined) throw new Error('no other route');
      expect((await call(`${svc.url}${other.path}`, other.method, { json: {} })).status).toBe(200);
    } finally {
      await svc.close();
    }
  });

  test('a removed method on a shared path is 404; the remaining method is still served and listed in Allow', async () => {
    const svc = await startReferenceService({ token: TOKEN, variant: { removeOperations: ['update-address-type'] } });
    try {
      const url = `${svc.customerBaseUrl}/address-types/${UNKNOWN_ID}`;
      expect((await call(url, 'PUT', { json: { name: 'x', isActive: true } })).status).toBe(404);
      const del = await call(url, 'DELETE');
      expect(del.status).toBe(400);
      expect(errorCode(del)).toBe('ERR_PLAT_4');
      const patch = await call(url, 'PATCH');
      expect(patch.status).toBe(405);
      expect(patch.headers['allow']).toBe('DELETE');
    } finally {
      await svc.close();
    }
  });
});

describe('skipAuth variant', () => {
  const s = useService({ skipAuth: ['customer-get-cache-key-list'] });

  test('the listed operation answers without a token', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/caches/keys`, 'GET', { auth: null });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
  });

  test('the other operations still enforce auth', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/caches/refresh`, 'POST', { auth: null, json: { key: 'parameters' } });
    expect(res.status).toBe(401);
  });
});

describe('extra routes variant', () => {
  const s = useService({
    extraRoutes: [
      { method: 'GET', path: '/customer-service/health', reply: { status: 200, body: { status: 'UP' } } },
      { method: 'post', path: '/customer-service/things/{id}', reply: { status: 201, headers: { 'X-Extra': 'yes' }, body: 'made' } },
    ],
  });

  test('an extra route answers its reply as given, without auth', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/health`, 'GET', { auth: null });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'UP' });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  test('templated extra route, string body, custom header', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/things/42`, 'POST');
    expect(res.status).toBe(201);
    expect(res.text).toBe('made');
    expect(res.headers['x-extra']).toBe('yes');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  test('the documented operations are unaffected', async () => {
    expect((await call(`${s.svc.customerBaseUrl}/caches/keys`, 'GET')).status).toBe(200);
    expect((await call(`${s.svc.customerBaseUrl}/health`, 'POST')).status).toBe(404);
  });
});

describe('test-only OTP route', () => {
  const s = useService();

  test.each([
    ['no token', 'GET', null, 401],
    ['wrong token', 'GET', 'Bearer nope', 401],
    ['unknown transaction', 'GET', `Bearer ${TOKEN}`, 404],
    ['other method', 'POST', `Bearer ${TOKEN}`, 405],
  ] as const)('%s → %i', async (_label, method, auth, status) => {
    const res = await call(`${s.svc.url}/__reference/otp/${UNKNOWN_ID}`, method, { auth });
    expect(res.status).toBe(status);
  });
});
