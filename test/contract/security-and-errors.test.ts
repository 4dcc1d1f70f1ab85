// Seed section 5 (every operation needs a bearer token) and section 7 (the error statuses every
// customer-domain operation documents; the foreign-trade service's errors are not shown).
import { beforeAll, describe, expect, test } from 'vitest';
import {
  arr,
  at,
  CUSTOMER_FILE,
  FOREIGN_TRADE_FILE,
  loadContract,
  obj,
  readYaml,
  strings,
  type Obj,
  type OperationEntry,
} from './support.ts';

// Seed section 7, written by hand.
const seedStatuses: Record<string, string[]> = {
  '400': ['ERR_PLAT_30', 'ERR_PLAT_31', 'ERR_PLAT_32', 'ERR_PLAT_39', 'ERR_PLAT_4', 'ERR_PLAT_5', 'VALIDATION_ERROR'],
  '408': ['ERR_PLAT_33'],
  '409': ['ERR_PLAT_1', 'ERR_PLAT_3'],
  '500': ['ERROR'],
  '502': ['ERR_PLAT_41'],
};
const operationSpecificCodes: Record<string, string[]> = {
  'send-forget-password-otp': ['ERR_BPMCUS_17', 'ERR_CORE_161'],
};

const customerOperationIds = [
  'create-address-type', 'update-address-type', 'delete-address-type', 'get-address-type-field-list',
  'create-address-type-field', 'get-address-type-field-by-id', 'update-address-type-field',
  'delete-address-type-field', 'customer-get-cache-key-list', 'customer-refresh-cache', 'create-user',
  'send-forget-password-otp', 'verify-forget-password-otp',
];
const foreignTradeOperationIds = ['get-foreign-trade-reference-number', 'validate-reference-number'];

let operations: OperationEntry[] = [];
let envelope: Obj = {};
beforeAll(async () => {
  const contract = await loadContract();
  operations = contract.operations;
  envelope = obj(at(contract.apis.get(CUSTOMER_FILE), 'components', 'schemas', 'ErrorEnvelope'), 'ErrorEnvelope');
});

function entry(operationId: string): OperationEntry {
  const hit = operations.find((candidate) => candidate.operationId === operationId);
  if (!hit) throw new Error(`no operation ${operationId}`);
  return hit;
}

function responses(operationId: string): Obj {
  return obj(at(entry(operationId).operation, 'responses'), `${operationId} responses`);
}

test('the error envelope is {error: {code: string}} with both levels required and open to other fields', () => {
  expect(envelope).toMatchObject({
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } },
  });
  expect(JSON.stringify(envelope)).not.toContain('additionalProperties');
});

describe.each([...customerOperationIds, ...foreignTradeOperationIds])('%s', (operationId) => {
  test('requires the bearer token on the operation itself', () => {
    expect(entry(operationId).operation['security']).toEqual([{ bearerAuth: [] }]);
  });

  test('declares no 401/403 (the status for a rejected token is not shown)', () => {
    const declared = Object.keys(responses(operationId));
    expect(declared).not.toContain('401');
    expect(declared).not.toContain('403');
  });
});

describe.each(customerOperationIds)('%s error responses', (operationId) => {
  test('documents exactly 200, 400, 408, 409, 500 and 502', () => {
    expect(Object.keys(responses(operationId)).sort()).toEqual(['200', '400', '408', '409', '500', '502']);
  });

  test.each(['408', '409', '500', '502'])('%s carries the error envelope (application/json) and its codes', (status) => {
    const response = obj(responses(operationId)[status], status);
    expect(Object.keys(obj(response['content'], 'content'))).toEqual(['application/json']);
    expect(at(response, 'content', 'application/json', 'schema')).toEqual(envelope);
    expect(response['x-envelope']).toBe('required');
    expect(strings(response['x-error-codes'], 'x-error-codes')).toEqual(seedStatuses[status]);
    for (const code of seedStatuses[status] ?? []) expect(String(response['description'])).toContain(code);
  });

  test('400 allows a body without the envelope and lists its codes', () => {
    const response = obj(responses(operationId)['400'], '400');
    expect(Object.keys(obj(response['content'], 'content'))).toEqual(['application/json']);
    expect(response['x-envelope']).toBe('optional');
    const schema = obj(at(response, 'content', 'application/json', 'schema'), '400 schema');
    const branches = arr(schema['anyOf'], 'anyOf').map((branch, index) => obj(branch, `anyOf[${index}]`));
    expect(branches).toHaveLength(2);
    expect(branches[0]).toEqual(envelope);
    // The second branch accepts any body: only annotations, no constraint.
    expect(Object.keys(branches[1] ?? { missing: true })).toEqual(['description']);
    const expected = [...(seedStatuses['400'] ?? []), ...(operationSpecificCodes[operationId] ?? [])];
    expect(strings(response['x-error-codes'], 'x-error-codes')).toEqual(expected);
    for (const code of expected) expect(String(response['description'])).toContain(code);
  });
});

describe.each(foreignTradeOperationIds)('%s error responses', (operationId) => {
  test('are not shown: only a default response with a description, no schema', () => {
    const all = responses(operationId);
    expect(Object.keys(all).sort()).toEqual(['200', 'default']);
    const fallback = obj(all['default'], 'default');
    expect(fallback).toEqual({ description: 'error responses: not shown' });
  });
});

test('every operation in the files is covered by the lists above', () => {
  expect(operations.map((op) => op.operationId).sort()).toEqual(
    [...customerOperationIds, ...foreignTradeOperationIds].sort(),
  );
  for (const op of operations) {
    const expectedFile = customerOperationIds.includes(op.operationId) ? CUSTOMER_FILE : FOREIGN_TRADE_FILE;
    expect(op.file, op.operationId).toBe(expectedFile);
  }
});

test('the error codes agree with the service profile (contract/profile.yaml)', () => {
  const profile = readYaml('profile.yaml');
  const statuses = arr(at(profile, 'statuses'), 'statuses').map((s) => obj(s, 'status'));
  expect(statuses.map((s) => String(s['status'])).sort()).toEqual(Object.keys(seedStatuses).sort());
  for (const s of statuses) {
    expect(strings(s['codes'], 'codes'), `status ${String(s['status'])}`).toEqual(seedStatuses[String(s['status'])]);
    expect(s['envelope']).toBe(s['status'] === 400 ? 'optional' : 'required');
  }
  const specific = arr(at(profile, 'operationCodes'), 'operationCodes')
    .map((c) => obj(c, 'operationCode'))
    .filter((c) => customerOperationIds.includes(String(c['operation'])));
  expect(specific.map((c) => `${String(c['operation'])}:${String(c['code'])}`)).toEqual(
    Object.entries(operationSpecificCodes).flatMap(([op, codes]) => codes.map((code) => `${op}:${code}`)),
  );
  expect(at(profile, 'errorEnvelope', 'appliesTo')).toEqual(['customer-service']);
});

test('a foreign-trade operation does not reuse the customer error responses', () => {
  const doc = readYaml(FOREIGN_TRADE_FILE);
  expect(obj(at(doc, 'components'), 'components')['responses']).toBeUndefined();
});
