import { describe, expect, test } from 'vitest';
import {
  arr,
  call,
  createAddressType,
  createField,
  detailFields,
  errorCode,
  obj,
  UNKNOWN_ID,
  useService,
  UUID_RE,
  validAddressType,
  validAddressTypeUpdate,
  validField,
  validFieldUpdate,
} from './support.ts';

describe('address types: success paths', () => {
  const s = useService();
  const base = (): string => `${s.svc.customerBaseUrl}/address-types`;

  test('create-address-type answers the created record with id, code, name, country and isActive true', async () => {
    const res = await call(base(), 'POST', { json: validAddressType });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = obj(res.json);
    expect(body['id']).toMatch(UUID_RE);
    expect(body).toEqual({ id: body['id'], code: 'HOME', name: 'Home address', country: 90, isActive: true });
  });

  test('create-address-type without country leaves it out', async () => {
    const res = await call(base(), 'POST', { json: { code: 'WORK', name: 'Work' } });
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('country');
  });

  test.each([[-2147483648], [2147483647], [0]])('country %i (int32 bound) is accepted', async (country) => {
    const res = await call(base(), 'POST', { json: { code: 'C', name: 'N', country } });
    expect(res.status).toBe(200);
    expect(obj(res.json)['country']).toBe(country);
  });

  test('unknown body fields are ignored', async () => {
    const res = await call(base(), 'POST', { json: { ...validAddressType, colour: 'blue' } });
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('colour');
  });

  test('create-address-type-field answers the field with id, typeId and defaults', async () => {
    const typeId = await createAddressType(s.svc);
    const res = await call(`${base()}/${typeId}/fields`, 'POST', { json: { fieldKey: 'city', isMandatory: false, sequenceNumber: 2 } });
    expect(res.status).toBe(200);
    const body = obj(res.json);
    expect(body['id']).toMatch(UUID_RE);
    expect(body).toEqual({ id: body['id'], typeId, fieldKey: 'city', isMandatory: false, isVisible: true, isActive: true, sequenceNumber: 2 });
  });

  test('get-address-type-field-by-id answers the field without translations', async () => {
    const typeId = await createAddressType(s.svc);
    const fieldId = await createField(s.svc, typeId);
    const res = await call(`${base()}/${typeId}/fields/${fieldId}`, 'GET');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: fieldId, typeId, ...validField, isActive: true });
    expect(res.json).not.toHaveProperty('translations');
  });

  test('ids are accepted in upper case', async () => {
    const typeId = await createAddressType(s.svc);
    const fieldId = await createField(s.svc, typeId);
    const res = await call(`${base()}/${typeId.toUpperCase()}/fields/${fieldId.toUpperCase()}`, 'GET');
    expect(res.status).toBe(200);
    expect(obj(res.json)['id']).toBe(fieldId);
  });

  test('get-address-type-field-list answers a bare array, each field with translations []', async () => {
    const typeId = await createAddressType(s.svc);
    const a = await createField(s.svc, typeId);
    const b = await createField(s.svc, typeId, { fieldKey: 'zip', isMandatory: false, sequenceNumber: 2 });
    await createField(s.svc, await createAddressType(s.svc)); // another type's field is not listed
    const res = await call(`${base()}/${typeId}/fields`, 'GET');
    expect(res.status).toBe(200);
    const list = arr(res.json).map(obj);
    expect(list.map((f) => f['id'])).toEqual([a, b]);
    for (const f of list) {
      expect(f['translations']).toEqual([]);
      expect(f['typeId']).toBe(typeId);
    }
  });

  test('get-address-type-field-list of a type without fields is []', async () => {
    const typeId = await createAddressType(s.svc);
    const res = await call(`${base()}/${typeId}/fields`, 'GET');
    expect(res.status).toBe(200);
    expect(res.json).toEqual([]);
  });

  test('update-address-type-field answers {} and the change is read back (PUT replaces optional fields)', async () => {
    const typeId = await createAddressType(s.svc);
    const fieldId = await createField(s.svc, typeId);
    const url = `${base()}/${typeId}/fields/${fieldId}`;
    const res = await call(url, 'PUT', { json: validFieldUpdate });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
    expect((await call(url, 'GET')).json).toEqual({ id: fieldId, typeId, ...validFieldUpdate });
    const minimal = { fieldKey: 'k', isActive: true, isMandatory: true, sequenceNumber: 3 };
    expect((await call(url, 'PUT', { json: minimal })).status).toBe(200);
    expect((await call(url, 'GET')).json).toEqual({ id: fieldId, typeId, ...minimal, isVisible: true });
  });

  test('update-address-type answers {}; code is not accepted on update and is ignored (even with a wrong type)', async () => {
    const typeId = await createAddressType(s.svc);
    const res = await call(`${base()}/${typeId}`, 'PUT', { json: { ...validAddressTypeUpdate, code: 12 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
  });

  test('delete-address-type-field answers {}, after which the field is not found (400 ERR_PLAT_4)', async () => {
    const typeId = await createAddressType(s.svc);
    const fieldId = await createField(s.svc, typeId);
    const url = `${base()}/${typeId}/fields/${fieldId}`;
    const del = await call(url, 'DELETE');
    expect(del.status).toBe(200);
    expect(del.json).toEqual({});
    for (const [method, json] of [['GET', undefined], ['PUT', validFieldUpdate], ['DELETE', undefined]] as const) {
      const res = await call(url, method, { json });
      expect(res.status).toBe(400);
      expect(errorCode(res)).toBe('ERR_PLAT_4');
    }
    expect((await call(`${base()}/${typeId}/fields`, 'GET')).json).toEqual([]);
  });

  test('delete-address-type answers {}, then the type and its fields are not found (400 ERR_PLAT_4)', async () => {
    const typeId = await createAddressType(s.svc);
    const fieldId = await createField(s.svc, typeId);
    const del = await call(`${base()}/${typeId}`, 'DELETE');
    expect(del.status).toBe(200);
    expect(del.json).toEqual({});
    const after: Array<[string, string, unknown]> = [
      ['PUT', `${base()}/${typeId}`, validAddressTypeUpdate],
      ['DELETE', `${base()}/${typeId}`, undefined],
      ['GET', `${base()}/${typeId}/fields`, undefined],
      ['POST', `${base()}/${typeId}/fields`, validField],
      ['GET', `${base()}/${typeId}/fields/${fieldId}`, undefined],
      ['PUT', `${base()}/${typeId}/fields/${fieldId}`, validFieldUpdate],
      ['DELETE', `${base()}/${typeId}/fields/${fieldId}`, undefined],
    ];
    for (const [method, url, json] of after) {
      const res = await call(url, method, { json });
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(errorCode(res)).toBe('ERR_PLAT_4');
      expect(typeof obj(obj(res.json)['error'])['message']).toBe('string');
    }
  });
});

describe('address types: records that do not exist', () => {
  const s = useService();
  const base = (): string => `${s.svc.customerBaseUrl}/address-types`;

  test.each([
    ['update-address-type', 'PUT', `/${UNKNOWN_ID}`, validAddressTypeUpdate],
    ['delete-address-type', 'DELETE', `/${UNKNOWN_ID}`, undefined],
    ['get-address-type-field-list', 'GET', `/${UNKNOWN_ID}/fields`, undefined],
    ['create-address-type-field', 'POST', `/${UNKNOWN_ID}/fields`, validField],
    ['get-address-type-field-by-id', 'GET', `/${UNKNOWN_ID}/fields/${UNKNOWN_ID}`, undefined],
    ['update-address-type-field', 'PUT', `/${UNKNOWN_ID}/fields/${UNKNOWN_ID}`, validFieldUpdate],
    ['delete-address-type-field', 'DELETE', `/${UNKNOWN_ID}/fields/${UNKNOWN_ID}`, undefined],
  ])('%s with an unknown id → 400 ERR_PLAT_4 with envelope (never 404)', async (_op, method, path, json) => {
    const res = await call(`${base()}${path}`, method, { json });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('ERR_PLAT_4');
  });

  test.each([['GET'], ['PUT'], ['DELETE']])('%s of a field through another type → 400 ERR_PLAT_4', async (method) => {
    const typeA = await createAddressType(s.svc);
    const typeB = await createAddressType(s.svc);
    const fieldId = await createField(s.svc, typeA);
    const res = await call(`${base()}/${typeB}/fields/${fieldId}`, method, { json: method === 'PUT' ? validFieldUpdate : undefined });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('ERR_PLAT_4');
    expect((await call(`${base()}/${typeA}/fields/${fieldId}`, 'GET')).status).toBe(200);
  });
});

type BodyOp = { op: string; method: string; path: (typeId: string, fieldId: string) => string; valid: Record<string, unknown>; required: string[] };

const bodyOps: BodyOp[] = [
  { op: 'create-address-type', method: 'POST', path: () => '/address-types', valid: validAddressType, required: ['code', 'name'] },
  { op: 'update-address-type', method: 'PUT', path: (t) => `/address-types/${t}`, valid: validAddressTypeUpdate, required: ['isActive', 'name'] },
  { op: 'create-address-type-field', method: 'POST', path: (t) => `/address-types/${t}/fields`, valid: validField, required: ['fieldKey', 'isMandatory', 'sequenceNumber'] },
  {
    op: 'update-address-type-field',
    method: 'PUT',
    path: (t, f) => `/address-types/${t}/fields/${f}`,
    valid: validFieldUpdate,
    required: ['fieldKey', 'isActive', 'isMandatory', 'sequenceNumber'],
  },
];

const wrongTypes: Array<[string, string, unknown]> = [
  ['create-address-type', 'code', 1],
  ['create-address-type', 'code', null],
  ['create-address-type', 'name', true],
  ['create-address-type', 'name', ['Home']],
  ['create-address-type', 'country', '90'],
  ['create-address-type', 'country', 1.5],
  ['create-address-type', 'country', 2147483648],
  ['create-address-type', 'country', -2147483649],
  ['create-address-type', 'country', null],
  ['update-address-type', 'isActive', 'true'],
  ['update-address-type', 'isActive', 1],
  ['update-address-type', 'name', 5],
  ['update-address-type', 'country', 1e10],
  ['create-address-type-field', 'fieldKey', 5],
  ['create-address-type-field', 'isMandatory', 'yes'],
  ['create-address-type-field', 'sequenceNumber', '1'],
  ['create-address-type-field', 'sequenceNumber', 2.5],
  ['create-address-type-field', 'sequenceNumber', 2147483648],
  ['create-address-type-field', 'isVisible', 'no'],
  ['create-address-type-field', 'separatorMark', 1],
  ['update-address-type-field', 'fieldKey', {}],
  ['update-address-type-field', 'isActive', null],
  ['update-address-type-field', 'isMandatory', 0],
  ['update-address-type-field', 'sequenceNumber', -2147483649],
  ['update-address-type-field', 'isVisible', 'true'],
  ['update-address-type-field', 'separatorMark', false],
];

describe('address types: validation (400 VALIDATION_ERROR with envelope)', () => {
  const s = useService();
  const ids = { typeId: '', fieldId: '' };
  const url = (o: BodyOp): string => `${s.svc.customerBaseUrl}${o.path(ids.typeId, ids.fieldId)}`;
  const opOf = (name: string): BodyOp => {
    const o = bodyOps.find((b) => b.op === name);
    if (o === undefined) throw new Error(name);
    return o;
  };

  test('setup: a type and a field exist, and every valid body is accepted', async () => {
    ids.typeId = await createAddressType(s.svc);
    ids.fieldId = await createField(s.svc, ids.typeId);
    for (const o of bodyOps) expect((await call(url(o), o.method, { json: o.valid })).status, o.op).toBe(200);
  });

  const missing = bodyOps.flatMap((o) => o.required.map((field) => ({ op: o.op, field })));
  test.each(missing)('$op without $field → VALIDATION_ERROR naming it', async ({ op, field }) => {
    const o = opOf(op);
    const body = { ...o.valid };
    delete body[field];
    const res = await call(url(o), o.method, { json: body });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res)).toEqual([field]);
  });

  test.each(bodyOps)('$op with an empty object → every required field is reported', async (o) => {
    const res = await call(url(o), o.method, { json: {} });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res).sort()).toEqual([...o.required].sort());
  });

  test.each(wrongTypes)('%s with %s = %j → VALIDATION_ERROR naming it', async (op, field, value) => {
    const o = opOf(op);
    const res = await call(url(o), o.method, { json: { ...o.valid, [field]: value } });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res)).toEqual([field]);
  });

  const badBodies: Array<[string, string]> = [
    ['malformed JSON', '{"code": '],
    ['a JSON array', '[]'],
    ['a JSON string', '"HOME"'],
    ['a JSON number', '1'],
    ['JSON null', 'null'],
    ['an empty body', ''],
  ];
  const badBodyCases = bodyOps.flatMap((o) => badBodies.map(([label, raw]) => ({ op: o.op, label, raw })));
  test.each(badBodyCases)('$op with $label → VALIDATION_ERROR', async ({ op, raw }) => {
    const o = opOf(op);
    const res = await call(url(o), o.method, { raw });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(typeof obj(obj(res.json)['error'])['message']).toBe('string');
  });

  const badIds = ['not-a-uuid', '123', `${UNKNOWN_ID}0`, UNKNOWN_ID.replace(/-/g, ''), 'g'.repeat(8) + UNKNOWN_ID.slice(8)];
  const idRoutes: Array<{ op: string; method: string; path: (bad: string) => string; field: string; json?: unknown }> = [
    { op: 'update-address-type', method: 'PUT', path: (b) => `/address-types/${b}`, field: 'id', json: validAddressTypeUpdate },
    { op: 'delete-address-type', method: 'DELETE', path: (b) => `/address-types/${b}`, field: 'id' },
    { op: 'get-address-type-field-list', method: 'GET', path: (b) => `/address-types/${b}/fields`, field: 'id' },
    { op: 'create-address-type-field', method: 'POST', path: (b) => `/address-types/${b}/fields`, field: 'id', json: validField },
    { op: 'get-address-type-field-by-id', method: 'GET', path: (b) => `/address-types/${b}/fields/${UNKNOWN_ID}`, field: 'id' },
    { op: 'get-address-type-field-by-id', method: 'GET', path: (b) => `/address-types/${UNKNOWN_ID}/fields/${b}`, field: 'fieldId' },
    { op: 'update-address-type-field', method: 'PUT', path: (b) => `/address-types/${b}/fields/${UNKNOWN_ID}`, field: 'id', json: validFieldUpdate },
    { op: 'update-address-type-field', method: 'PUT', path: (b) => `/address-types/${UNKNOWN_ID}/fields/${b}`, field: 'fieldId', json: validFieldUpdate },
    { op: 'delete-address-type-field', method: 'DELETE', path: (b) => `/address-types/${b}/fields/${UNKNOWN_ID}`, field: 'id' },
    { op: 'delete-address-type-field', method: 'DELETE', path: (b) => `/address-types/${UNKNOWN_ID}/fields/${b}`, field: 'fieldId' },
  ];
  const idCases = idRoutes.flatMap((r) => badIds.map((bad) => ({ ...r, bad })));
  test.each(idCases)('$op with $field = "$bad" → VALIDATION_ERROR naming $field', async ({ method, path, field, json, bad }) => {
    const res = await call(`${s.svc.customerBaseUrl}${path(bad)}`, method, { json });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res)).toEqual([field]);
  });

  const badQueries = ['pageIndex=abc', 'pageSize=1.5', 'pageSize=2147483648', 'pageIndex=-2147483649', 'pageIndex=', 'pageSize=1e3', 'pageSize=%2B1', 'pageIndex=0&pageIndex=x'];
  test.each(badQueries)('get-address-type-field-list with %s → VALIDATION_ERROR', async (q) => {
    const res = await call(`${s.svc.customerBaseUrl}/address-types/${ids.typeId}/fields?${q}`, 'GET');
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res)[0]).toMatch(/^page(Index|Size)$/);
  });

  test('a body over 1 MiB → 400 VALIDATION_ERROR with envelope', async () => {
    const res = await call(`${s.svc.customerBaseUrl}/address-types`, 'POST', { json: { ...validAddressType, name: 'x'.repeat(1024 * 1024) } });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    // The connection is still usable afterwards.
    expect((await call(`${s.svc.customerBaseUrl}/address-types`, 'POST', { json: validAddressType })).status).toBe(200);
  });
});

describe('address type field list: ordering and paging', () => {
  const s = useService();
  const state = { typeId: '', keys: [] as string[] };
  const list = async (query: string): Promise<number[]> => {
    const res = await call(`${s.svc.customerBaseUrl}/address-types/${state.typeId}/fields?${query}`, 'GET');
    expect(res.status).toBe(200);
    return arr(res.json).map((f) => Number(obj(f)['sequenceNumber']));
  };

  test('setup: three fields created in the order 3, 1, 2', async () => {
    state.typeId = await createAddressType(s.svc);
    for (const n of [3, 1, 2]) await createField(s.svc, state.typeId, { fieldKey: `k${n}`, isMandatory: true, sequenceNumber: n });
    expect(await list('')).toEqual([3, 1, 2]);
  });

  test.each([
    ['orderBy=sequenceNumber', [1, 2, 3]],
    ['orderBy=sequenceNumber&orderSort=asc', [1, 2, 3]],
    ['orderBy=sequenceNumber&orderSort=DESC', [3, 2, 1]],
    ['orderBy=sequenceNumber&orderSort=sideways', [1, 2, 3]],
    ['orderBy=SequenceNumber&orderSort=desc', [3, 2, 1]],
    ['orderBy=fieldKey&orderSort=desc', [3, 2, 1]],
    ['orderBy=noSuchField', [3, 1, 2]],
    ['pageSize=2', [3, 1]],
    ['pageSize=2&pageIndex=1', [2]],
    ['pageSize=2&pageIndex=5', []],
    ['pageSize=0', [3, 1, 2]],
    ['pageSize=-1&pageIndex=1', [3, 1, 2]],
    ['pageIndex=-3&pageSize=1', [3]],
    ['orderBy=sequenceNumber&pageSize=1&pageIndex=2', [3]],
    ['filter=%7B%22fieldKey%22%3A%22k1%22%7D', [3, 1, 2]],
    ['pageIndex=2147483647&pageSize=2147483647', []],
  ] as const)('%s → sequence numbers %j', async (query, expected) => {
    expect(await list(query)).toEqual(expected);
  });
});
