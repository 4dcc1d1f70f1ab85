import { describe, expect, test } from 'vitest';
import { call, detailFields, errorCode, obj, useService, UUID_RE, validGenerate } from './support.ts';

describe('foreign-trade reference numbers', () => {
  const s = useService();
  const generate = async (body: unknown): Promise<Record<string, unknown>> => {
    const res = await call(`${s.svc.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { json: body });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return obj(res.json);
  };
  const validate = (opts: { json?: unknown; raw?: string }): ReturnType<typeof call> =>
    call(`${s.svc.foreignTradeBaseUrl}/reference-numbers/validate`, 'POST', opts);

  test('generate answers a ReferenceNumberDto; Counter increases within a series', async () => {
    const first = await generate({ direction: 'EXPORT', isDomestic: true, transactionType: 'CASH' });
    expect(Object.keys(first).sort()).toEqual(['Counter', 'Description', 'Direction', 'Id', 'LastReference']);
    expect(first['Id']).toMatch(UUID_RE);
    expect(typeof first['Description']).toBe('string');
    expect(first).toMatchObject({ Counter: 1, LastReference: 'EXPORT-CASH-D-000001', Direction: 'EXPORT' });
    const second = await generate({ direction: 'EXPORT', isDomestic: true, transactionType: 'CASH' });
    expect(second).toMatchObject({ Id: first['Id'], Counter: 2, LastReference: 'EXPORT-CASH-D-000002' });
    const third = await generate({ direction: 'EXPORT', isDomestic: true, transactionType: 'CASH' });
    expect(third['Counter']).toBe(3);
  });

  test('each (direction, transactionType, isDomestic) has its own series', async () => {
    const foreign = await generate({ direction: 'EXPORT', isDomestic: false, transactionType: 'CASH' });
    expect(foreign).toMatchObject({ Counter: 1, LastReference: 'EXPORT-CASH-F-000001' });
    const other = await generate({ direction: 'IMPORT', isDomestic: false, transactionType: 'CASH' });
    expect(other).toMatchObject({ Counter: 1, LastReference: 'IMPORT-CASH-F-000001', Direction: 'IMPORT' });
    expect(other['Id']).not.toBe(foreign['Id']);
  });

  test.each([
    ['a field holding it', (ref: string) => ({ referenceNumber: ref })],
    ['a nested field', (ref: string) => ({ request: { items: [{ x: 1 }, { value: ref }] } })],
    ['a bare JSON string', (ref: string) => ref],
    ['an array', (ref: string) => ['nope', ref]],
  ])('validate recognises an issued LastReference in %s', async (_label, wrap) => {
    const ref = String((await generate(validGenerate))['LastReference']);
    const res = await validate({ json: wrap(ref) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ IsValid: true });
  });

  test.each([
    ['an unknown reference', { referenceNumber: 'IMPORT-LC-F-999999' }],
    ['a reference differing in case', { referenceNumber: 'import-lc-f-000001' }],
    ['no strings at all', { n: 1, b: true, z: null }],
    ['an empty object', {}],
  ])('validate rejects %s (IsValid false)', async (_label, body) => {
    await generate(validGenerate);
    const res = await validate({ json: body });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ IsValid: false });
  });

  test('validate with an empty body → IsValid false; malformed JSON → VALIDATION_ERROR', async () => {
    expect((await validate({ raw: '' })).json).toEqual({ IsValid: false });
    const bad = await validate({ raw: '{"referenceNumber":' });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe('VALIDATION_ERROR');
  });

  test('validate copes with deeply nested JSON', async () => {
    const ref = String((await generate(validGenerate))['LastReference']);
    const raw = '['.repeat(5000) + JSON.stringify(ref) + ']'.repeat(5000);
    const res = await validate({ raw });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ IsValid: true });
  });

  test.each(['direction', 'isDomestic', 'transactionType'])('generate without %s → VALIDATION_ERROR naming it', async (field) => {
    const body: Record<string, unknown> = { ...validGenerate };
    delete body[field];
    const res = await call(`${s.svc.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { json: body });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res)).toEqual([field]);
  });

  test.each([
    ['direction', 1],
    ['direction', null],
    ['isDomestic', 'true'],
    ['isDomestic', 0],
    ['transactionType', false],
    ['transactionType', ['LC']],
  ])('generate with %s = %j → VALIDATION_ERROR naming it', async (field, value) => {
    const res = await call(`${s.svc.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { json: { ...validGenerate, [field]: value } });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
    expect(detailFields(res)).toEqual([field]);
  });

  test.each(['', '{', '[]', '"IMPORT"'])('generate with body %j → VALIDATION_ERROR', async (raw) => {
    const res = await call(`${s.svc.foreignTradeBaseUrl}/reference-numbers/generate`, 'POST', { raw });
    expect(res.status).toBe(400);
    expect(errorCode(res)).toBe('VALIDATION_ERROR');
  });
});
