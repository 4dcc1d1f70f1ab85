import { afterAll, describe, expect, test } from 'vitest';
import { startReferenceService, type CreateShape, type ReferenceService, type Variant } from '../../src/reference-service/index.ts';
import { arr, call, createAddressType, errorCode, obj, TOKEN, UNKNOWN_ID, UUID_RE, validAddressType, validField, validGenerate } from './support.ts';

const started: ReferenceService[] = [];
async function start(variant?: Variant): Promise<ReferenceService> {
  const svc = await startReferenceService({ token: TOKEN, ...(variant !== undefined ? { variant } : {}) });
  started.push(svc);
  return svc;
}
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

/** The single record inside a create reply of the given shape. */
function unwrap(body: unknown, shape: CreateShape): Record<string, unknown> {
  if (shape === 'record') return obj(body);
  if (shape === 'array') {
    const list = arr(body);
    expect(list).toHaveLength(1);
    return obj(list[0]);
  }
  const page = obj(body);
  expect(Object.keys(page).sort()).toEqual(['data', 'total']);
  expect(page['total']).toBe(1);
  const data = arr(page['data']);
  expect(data).toHaveLength(1);
  return obj(data[0]);
}

describe('createShape variant', () => {
  const shapes: CreateShape[] = ['record', 'array', 'page'];
  const creates: Array<{ op: string; call: (svc: ReferenceService) => ReturnType<typeof call>; check: (record: Record<string, unknown>) => void }> = [
    {
      op: 'create-address-type',
      call: (svc) => call(`${svc.customerBaseUrl}/address-types`, 'POST', { json: validAddressType }),
      check: (r) => {
        expect(r['id']).toMatch(UUID_RE);
        expect(r['code']).toBe('HOME');
      },
    },
    {
      op: 'create-address-type-field',
      call: async (svc) => {
        const typeRes = await call(`${svc.customerBaseUrl}/address-types`, 'POST', { json: validAddressType });
        const shape: CreateShape = Array.isArray(typeRes.json) ? 'array' : 'data' in obj(typeRes.json) ? 'page' : 'record';
        const typeId = String(unwrap(typeRes.json, shape)['id']);
        return call(`${svc.customerBaseUrl}/address-types/${typeId}/fields`, 'POST', { json: validField });
      },
      check: (r) => {
        expect(r['id']).toMatch(UUID_RE);
        expect(r['typeId']).toMatch(UUID_RE);
        expect(r['fieldKey']).toBe('street');
      },
    },
    {
      op: 'customer-refresh-cache',
      call: (svc) => call(`${svc.customerBaseUrl}/caches/refresh`, 'POST', { json: { key: 'parameters' } }),
      check: (r) => expect(r).toEqual({ isSuccess: true, key: 'parameters' }),
    },
    {
      op: 'create-user',
      call: (svc) => call(`${svc.customerBaseUrl}/users`, 'POST', { json: { userName: 'u' } }),
      check: (r) => {
        expect(r['identityProviderUserId']).toMatch(UUID_RE);
        expect(typeof r['userPassword']).toBe('string');
      },
    },
  ];
  const cases = shapes.flatMap((shape) => creates.map((c) => ({ shape, ...c })));

  test.each(cases)('$op answers the $shape shape', async ({ shape, call: send, check }) => {
    const svc = await start({ createShape: shape });
    const res = await send(svc);
    expect(res.status).toBe(200);
    check(unwrap(res.json, shape));
  });

  test('the created record is usable whatever the shape (page: field readable by id)', async () => {
    const svc = await start({ createShape: 'page' });
    const typeRes = await call(`${svc.customerBaseUrl}/address-types`, 'POST', { json: validAddressType });
    const typeId = String(unwrap(typeRes.json, 'page')['id']);
    const fieldRes = await call(`${svc.customerBaseUrl}/address-types/${typeId}/fields`, 'POST', { json: validField });
    const fieldId = String(unwrap(fieldRes.json, 'page')['id']);
    const got = await call(`${svc.customerBaseUrl}/address-types/${typeId}/fields/${fieldId}`, 'GET');
    expect(got.status).toBe(200);
    expect(obj(got.json)['id']).toBe(fieldId);
  });

  test('non-create operations are not reshaped', async () => {
    const svc = await start({ createShape: 'array' });
    const ref = await call(`${svc.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { json: validGenerate });
    expect(obj(ref.json)['Counter']).toBe(1);
    const otp = await call(`${svc.customerBaseUrl}/users/forget-password`, 'POST', { json: { userIdentifier: 'x' } });
    expect(obj(otp.json)['Username']).toBe('x');
  });
});

describe('handlers variant', () => {
  test('a wrapping handler sees the routed request and can alter the faithful reply from next()', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const svc = await start({
      handlers: {
        'get-address-type-field-by-id': async (req, next) => {
          seen.push({ op: req.operationId, method: req.method, path: req.path, params: req.params, q: req.query.get('q') });
          const reply = await next();
          const body = obj(reply.body);
          return { ...reply, headers: { 'x-wrapped': 'yes' }, body: { ...body, fieldKey: String(body['fieldKey']).toUpperCase() } };
        },
      },
    });
    const typeId = await createAddressType(svc);
    const fieldRes = await call(`${svc.customerBaseUrl}/address-types/${typeId}/fields`, 'POST', { json: validField });
    const fieldId = String(obj(fieldRes.json)['id']);
    const res = await call(`${svc.customerBaseUrl}/address-types/${typeId}/fields/${fieldId}?q=1`, 'GET');
    expect(res.status).toBe(200);
    expect(res.headers['x-wrapped']).toBe('yes');
    expect(obj(res.json)['fieldKey']).toBe('STREET');
    expect(obj(res.json)['id']).toBe(fieldId);
    expect(seen).toEqual([
      { op: 'get-address-type-field-by-id', method: 'GET', path: `/address-types/${typeId}/fields/${fieldId}`, params: { id: typeId, fieldId }, q: '1' },
    ]);
  });

  test('a handler that does not call next() bypasses validation (accepts invalid input: a fault)', async () => {
    const svc = await start({
      handlers: { 'create-address-type': (req) => ({ status: 200, body: { id: UNKNOWN_ID, echoed: req.body, raw: req.rawBody } }) },
    });
    const res = await call(`${svc.customerBaseUrl}/address-types`, 'POST', { json: { code: 5 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: UNKNOWN_ID, echoed: { code: 5 }, raw: '{"code":5}' });
  });

  test('a handler sees body undefined for malformed JSON, and next() then answers VALIDATION_ERROR', async () => {
    const bodies: unknown[] = [];
    const svc = await start({
      handlers: {
        'create-address-type': async (req, next) => {
          bodies.push(req.body);
          return next();
        },
      },
    });
    const res = await call(`${svc.customerBaseUrl}/address-types`, 'POST', { raw: '{oops' });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(bodies).toEqual([undefined]);
  });

  test('handlers run after routing and auth', async () => {
    let calls = 0;
    const svc = await start({
      handlers: {
        'customer-get-cache-key-list': () => {
          calls++;
          return { status: 200, body: [] };
        },
      },
    });
    expect((await call(`${svc.customerBaseUrl}/caches/keys`, 'GET', { auth: null })).status).toBe(401);
    expect((await call(`${svc.customerBaseUrl}/caches/keys`, 'POST')).status).toBe(405);
    expect(calls).toBe(0);
    expect((await call(`${svc.customerBaseUrl}/caches/keys`, 'GET')).json).toEqual([]);
    expect(calls).toBe(1);
  });

  test.each([
    ['a 500 without envelope', { status: 500, body: 'boom' }, 500, undefined],
    ['a 404 for a missing record', { status: 404, body: { error: { code: 'ERR_PLAT_4' } } }, 404, 'ERR_PLAT_4'],
    ['a 409 conflict', { status: 409, body: { error: { code: 'ERR_PLAT_1', message: 'conflict' } } }, 409, 'ERR_PLAT_1'],
    ['a 200 with no body', { status: 200 }, 200, undefined],
  ] as const)('a replacing handler can answer %s', async (_label, reply, status, code) => {
    const svc = await start({ handlers: { 'delete-address-type': () => reply } });
    const res = await call(`${svc.customerBaseUrl}/address-types/${UNKNOWN_ID}`, 'DELETE');
    expect(res.status).toBe(status);
    expect(errorCode(res)).toBe(code);
  });

  test('a handler that throws → 500 with the ERROR envelope', async () => {
    const svc = await start({
      handlers: {
        'create-user': () => {
          throw new Error('injected failure');
        },
      },
    });
    const res = await call(`${svc.customerBaseUrl}/users`, 'POST', { json: {} });
    expect(res.status).toBe(500);
    expect(errorCode(res)).toBe('ERROR');
    expect(String(obj(obj(res.json)['error'])['message'])).toContain('injected failure');
  });

  test('a handler may call next() twice (two records are created)', async () => {
    const svc = await start({
      handlers: {
        'create-address-type-field': async (_req, next) => {
          await next();
          return next();
        },
      },
    });
    const typeId = await createAddressType(svc);
    await call(`${svc.customerBaseUrl}/address-types/${typeId}/fields`, 'POST', { json: validField });
    expect(arr((await call(`${svc.customerBaseUrl}/address-types/${typeId}/fields`, 'GET')).json)).toHaveLength(2);
  });
});

describe('two instances do not share state', () => {
  test('records, OTP transactions and reference counters are per instance', async () => {
    const a = await start();
    const b = await start();
    expect(a.url).not.toBe(b.url);

    const typeId = await createAddressType(a);
    const onB = await call(`${b.customerBaseUrl}/address-types/${typeId}/fields`, 'GET');
    expect(onB.status).toBe(400);
    expect(errorCode(onB)).toBe('ERR_PLAT_4');
    expect((await call(`${a.customerBaseUrl}/address-types/${typeId}/fields`, 'GET')).status).toBe(200);

    const sent = obj((await call(`${a.customerBaseUrl}/users/forget-password`, 'POST', { json: { userIdentifier: 'z' } })).json);
    const tx = String(sent['TransactionId']);
    expect(a.otpFor(tx)).toMatch(/^\d{6}$/);
    expect(b.otpFor(tx)).toBeUndefined();

    const refA1 = obj((await call(`${a.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { json: validGenerate })).json);
    const refA2 = obj((await call(`${a.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { json: validGenerate })).json);
    const refB1 = obj((await call(`${b.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { json: validGenerate })).json);
    expect([refA1['Counter'], refA2['Counter'], refB1['Counter']]).toEqual([1, 2, 1]);
    const validOnB = await call(`${b.foreignTradeBaseUrl}/reference-numbers/validate`, 'POST', { json: { ref: refA2['LastReference'] } });
    expect(validOnB.json).toEqual({ IsValid: false });
  });

  test('a closed instance no longer answers, and close() is idempotent', async () => {
    const svc = await startReferenceService({ token: TOKEN });
    await svc.close();
    await svc.close();
    await expect(call(`${svc.customerBaseUrl}/caches/keys`, 'GET')).rejects.toThrow();
  });

  test('an empty token is refused', async () => {
    await expect(startReferenceService({ token: '' })).rejects.toThrow(/token/);
  });
});
