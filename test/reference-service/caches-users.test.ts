import { describe, expect, test } from 'vitest';
import { arr, call, detailFields, errorCode, obj, TOKEN, UNKNOWN_ID, useService, UUID_RE } from './support.ts';

describe('caches', () => {
  const s = useService();
  const keys = async (query = ''): Promise<string[]> => {
    const res = await call(`${s.svc.customerBaseUrl}/caches/keys${query}`, 'GET');
    expect(res.status).toBe(200);
    return arr(res.json).map((r) => String(obj(r)['key']));
  };

  test('customer-get-cache-key-list answers a bare array of cache key records', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/caches/keys`, 'GET');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const records = arr(res.json).map(obj);
    expect(records.length).toBeGreaterThanOrEqual(3);
    for (const r of records) expect(Object.keys(r).sort()).toEqual(['isSharedBetweenApplications', 'isSharedBetweenTenants', 'key', 'mode']);
    expect(records).toContainEqual({ key: 'customer-configs', mode: 'Distributed', isSharedBetweenApplications: true, isSharedBetweenTenants: false });
  });

  test.each([
    ['?orderBy=key', ['customer-configs', 'localizations', 'parameters']],
    ['?orderBy=key&orderSort=desc', ['parameters', 'localizations', 'customer-configs']],
    ['?orderBy=key&pageSize=1&pageIndex=1', ['localizations']],
    ['?pageSize=2', ['customer-configs', 'parameters']],
    ['?pageSize=2&pageIndex=9', []],
  ] as const)('customer-get-cache-key-list%s → %j', async (query, expected) => {
    expect(await keys(query)).toEqual(expected);
  });

  test.each(['?pageSize=x', '?pageIndex=2147483648', '?pageSize=-2147483649', '?pageIndex=0.5'])(
    'customer-get-cache-key-list%s → VALIDATION_ERROR',
    async (query) => {
      const res = await call(`${s.svc.customerBaseUrl}/caches/keys${query}`, 'GET');
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe('VALIDATION_ERROR');
    },
  );

  test.each([
    [{ key: 'customer-configs', mode: 'Distributed', isSharedBetweenApplications: true, isSharedBetweenTenants: false }, { isSuccess: true, key: 'customer-configs' }],
    [{ key: 'parameters' }, { isSuccess: true, key: 'parameters' }],
    [{ key: 'no-such-cache' }, { isSuccess: false, key: 'no-such-cache' }],
    [{ key: 7 }, { isSuccess: false, key: 7 }],
    [{}, { isSuccess: false, key: null }],
  ])('customer-refresh-cache %j → %j', async (body, expected) => {
    const res = await call(`${s.svc.customerBaseUrl}/caches/refresh`, 'POST', { json: body });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(expected);
  });

  test.each(['[]', '{', '"parameters"'])('customer-refresh-cache with body %s → VALIDATION_ERROR', async (raw) => {
    const res = await call(`${s.svc.customerBaseUrl}/caches/refresh`, 'POST', { raw });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
  });
});

describe('create-user', () => {
  const s = useService();

  test.each([
    [{ firstName: 'Ada', lastName: 'Lovelace', userName: 'ada', email: 'ada@example.com', generatePassword: true, realm: 'customers', attributes: {} }],
    [{}],
    [{ userName: 42, generatePassword: 'yes' }],
  ])('%j → user creation result (field types are not shown, so not checked)', async (body) => {
    const res = await call(`${s.svc.customerBaseUrl}/users`, 'POST', { json: body });
    expect(res.status).toBe(200);
    const result = obj(res.json);
    expect(Object.keys(result).sort()).toEqual(['identityProviderUserId', 'userPassword']);
    expect(result['identityProviderUserId']).toMatch(UUID_RE);
    expect(typeof result['userPassword']).toBe('string');
    expect(String(result['userPassword']).length).toBeGreaterThanOrEqual(12);
  });

  test('each user gets its own id and password', async () => {
    const a = obj((await call(`${s.svc.customerBaseUrl}/users`, 'POST', { json: { userName: 'a' } })).json);
    const b = obj((await call(`${s.svc.customerBaseUrl}/users`, 'POST', { json: { userName: 'b' } })).json);
    expect(a['identityProviderUserId']).not.toBe(b['identityProviderUserId']);
    expect(a['userPassword']).not.toBe(b['userPassword']);
  });

  test.each(['[1]', 'nope', '12'])('body %s → VALIDATION_ERROR', async (raw) => {
    const res = await call(`${s.svc.customerBaseUrl}/users`, 'POST', { raw });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
  });
});

describe('forgot-password flow', () => {
  const s = useService();
  const send = async (body: unknown): Promise<Record<string, unknown>> => {
    const res = await call(`${s.svc.customerBaseUrl}/users/forget-password`, 'POST', { json: body });
    expect(res.status).toBe(200);
    return obj(res.json);
  };
  const verify = (body: unknown): ReturnType<typeof call> => call(`${s.svc.customerBaseUrl}/users/forget-password-verify`, 'POST', { json: body });

  test('send answers Username, EndDate (about 5 minutes ahead) and TransactionId', async () => {
    const before = Date.now();
    const result = await send({ userIdentifier: 'jane' });
    expect(Object.keys(result).sort()).toEqual(['EndDate', 'TransactionId', 'Username']);
    expect(result['Username']).toBe('jane');
    expect(result['TransactionId']).toMatch(UUID_RE);
    const end = Date.parse(String(result['EndDate']));
    expect(new Date(end).toISOString()).toBe(result['EndDate']);
    expect(end - before).toBeGreaterThan(4 * 60 * 1000);
    expect(end - before).toBeLessThanOrEqual(5 * 60 * 1000 + 5000);
    expect(s.svc.otpFor(String(result['TransactionId']))).toMatch(/^\d{6}$/);
  });

  test('send → wrong OTP rejected → right OTP accepted → reuse rejected', async () => {
    const sent = await send({ userIdentifier: 'john' });
    const transactionId = String(sent['TransactionId']);
    const otp = s.svc.otpFor(transactionId);
    if (otp === undefined) throw new Error('no otp');
    const wrongOtp = otp === '000000' ? '111111' : '000000';

    const wrong = await verify({ transactionId, oneTimePassword: wrongOtp, username: 'john' });
    expect(wrong.status).toBe(400);
    expect(errorCode(wrong)).toBe('VALIDATION_ERROR');
    expect(detailFields(wrong)).toEqual(['oneTimePassword']);

    const right = await verify({ transactionId, oneTimePassword: otp, username: 'john' });
    expect(right.status).toBe(200);
    expect(right.json).toEqual({});

    const reuse = await verify({ transactionId, oneTimePassword: otp, username: 'john' });
    expect(reuse.status).toBe(400);
    expect(errorCode(reuse)).toBe('VALIDATION_ERROR');
    expect(String(obj(obj(reuse.json)['error'])['message'])).toContain('already used');
  });

  test.each([
    ['unknown transaction', (tx: string, otp: string) => ({ transactionId: UNKNOWN_ID, oneTimePassword: otp, username: 'mia' }), 'transactionId'],
    ['no transaction', (_tx: string, otp: string) => ({ oneTimePassword: otp, username: 'mia' }), 'transactionId'],
    ['other username', (tx: string, otp: string) => ({ transactionId: tx, oneTimePassword: otp, username: 'someone-else' }), 'username'],
    ['no username', (tx: string, otp: string) => ({ transactionId: tx, oneTimePassword: otp }), 'username'],
    ['no OTP', (tx: string) => ({ transactionId: tx, username: 'mia' }), 'oneTimePassword'],
  ])('verify with %s → VALIDATION_ERROR naming %s; the transaction stays usable', async (_label, build, field) => {
    const tx = String((await send({ userIdentifier: 'mia' }))['TransactionId']);
    const otp = s.svc.otpFor(tx) ?? '';
    const res = await verify(build(tx, otp));
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res)).toEqual([field]);
    expect((await verify({ transactionId: tx.toUpperCase(), oneTimePassword: otp, username: 'mia' })).status).toBe(200);
  });

  test('the OTP is also readable over the test-only HTTP route, with the token', async () => {
    const tx = String((await send({ userIdentifier: 'leo' }))['TransactionId']);
    const res = await call(`${s.svc.url}/__reference/otp/${tx}`, 'GET', { auth: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    const body = obj(res.json);
    expect(body['transactionId']).toBe(tx);
    expect(body['oneTimePassword']).toBe(s.svc.otpFor(tx));
    expect(body['consumed']).toBe(false);
    await verify({ transactionId: tx, oneTimePassword: body['oneTimePassword'], username: 'leo' });
    expect(obj((await call(`${s.svc.url}/__reference/otp/${tx}`, 'GET')).json)['consumed']).toBe(true);
  });

  test('Username resolves a created user by email; no userIdentifier is accepted with Username ""', async () => {
    await call(`${s.svc.customerBaseUrl}/users`, 'POST', { json: { userName: 'grace', email: 'grace@example.com' } });
    expect((await send({ userIdentifier: 'grace@example.com' }))['Username']).toBe('grace');
    expect((await send({}))['Username']).toBe('');
  });

  test('otpFor of an unknown transaction is undefined', () => {
    expect(s.svc.otpFor(UNKNOWN_ID)).toBeUndefined();
  });

  test.each([
    ['/users/forget-password', '['],
    ['/users/forget-password', '[]'],
    ['/users/forget-password-verify', '"x"'],
  ])('%s with body %s → VALIDATION_ERROR', async (path, raw) => {
    const res = await call(`${s.svc.customerBaseUrl}${path}`, 'POST', { raw });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
  });
});
