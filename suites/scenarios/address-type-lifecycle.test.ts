/**
 * Scenario: an address type and one of its fields through their whole life, as a QA engineer writes it with
 * the suite's helpers. Every call is checked against the contract with `toConformTo`; the assertions in
 * between are the business expectations the contract cannot express.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { conformanceClient, runConfig, unmetOperations, type ConformanceClient } from '../../src/runner/testing/index.ts';

const config = runConfig();
const unmet = await unmetOperations(
  'create-address-type',
  'create-address-type-field',
  'get-address-type-field-list',
  'get-address-type-field-by-id',
  'update-address-type-field',
  'update-address-type',
  'delete-address-type-field',
  'delete-address-type',
);
let api: ConformanceClient;
const created: Array<{ operationId: string; pathParams: Record<string, string> }> = [];

function idOf(body: unknown): string {
  const record = Array.isArray(body) ? body[0] : body && typeof body === 'object' && 'data' in body ? (body as { data: unknown[] }).data[0] : body;
  const id = record && typeof record === 'object' ? (record as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : '';
}

/** Later steps need the records earlier ones created; without them they are skipped, not blamed. */
function needs(skip: (note: string) => never, ...ids: Array<[string, string]>): void {
  for (const [name, value] of ids) if (!value) skip(`no ${name}: an earlier step did not create it`);
}

describe.skipIf(!unmet && config.readOnly)('address type lifecycle', () => {
  let typeId = '';
  let fieldId = '';

  beforeAll(async () => {
    api = await conformanceClient();
  });

  beforeEach(({ skip }) => {
    if (unmet) skip(unmet);
  });

  afterAll(async () => {
    for (const { operationId, pathParams } of created.reverse()) await api.call(operationId, { pathParams });
  });

  test('create an address type', async () => {
    const res = await api.call('create-address-type', { body: { code: `QA-${Date.now()}`, name: 'Home address', country: 90 } });
    expect(res).toConformTo('create-address-type');
    typeId = idOf(res.body);
    if (typeId) created.push({ operationId: 'delete-address-type', pathParams: { id: typeId } });
  });

  test('add a field to it', async ({ skip }) => {
    needs(skip, ['address type id', typeId]);
    const res = await api.call('create-address-type-field', {
      pathParams: { id: typeId },
      body: { fieldKey: 'street', isMandatory: true, sequenceNumber: 1, separatorMark: ',' },
    });
    expect(res).toConformTo('create-address-type-field');
    fieldId = idOf(res.body);
    if (fieldId) created.push({ operationId: 'delete-address-type-field', pathParams: { id: typeId, fieldId } });
  });

  test('the field is listed with its translations', async ({ skip }) => {
    needs(skip, ['address type id', typeId], ['field id', fieldId]);
    const res = await api.call('get-address-type-field-list', { pathParams: { id: typeId } });
    expect(res).toConformTo('get-address-type-field-list');
    expect((res.body as Array<{ id: string }>).map((f) => f.id)).toContain(fieldId);
  });

  test('the field reads back as created', async ({ skip }) => {
    needs(skip, ['address type id', typeId], ['field id', fieldId]);
    const res = await api.call('get-address-type-field-by-id', { pathParams: { id: typeId, fieldId } });
    expect(res).toConformTo('get-address-type-field-by-id');
    expect(res.body).toMatchObject({ fieldKey: 'street', isMandatory: true, sequenceNumber: 1 });
  });

  test('an update of the field is visible', async ({ skip }) => {
    needs(skip, ['address type id', typeId], ['field id', fieldId]);
    const update = await api.call('update-address-type-field', {
      pathParams: { id: typeId, fieldId },
      body: { fieldKey: 'street-line', isActive: false, isMandatory: false, sequenceNumber: 2 },
    });
    expect(update).toConformTo('update-address-type-field');
    const read = await api.call('get-address-type-field-by-id', { pathParams: { id: typeId, fieldId } });
    expect(read).toConformTo('get-address-type-field-by-id');
    expect(read.body).toMatchObject({ fieldKey: 'street-line', isActive: false, isMandatory: false, sequenceNumber: 2 });
  });

  test('the address type can be renamed and deactivated', async ({ skip }) => {
    needs(skip, ['address type id', typeId]);
    const res = await api.call('update-address-type', { pathParams: { id: typeId }, body: { name: 'Work address', isActive: false } });
    expect(res).toConformTo('update-address-type');
  });

  test('a deleted field is no longer served', async ({ skip }) => {
    needs(skip, ['address type id', typeId], ['field id', fieldId]);
    const del = await api.call('delete-address-type-field', { pathParams: { id: typeId, fieldId } });
    expect(del).toConformTo('delete-address-type-field');
    created.splice(created.findIndex((c) => c.pathParams['fieldId'] === fieldId), 1);
    const read = await api.call('get-address-type-field-by-id', { pathParams: { id: typeId, fieldId } });
    expect(read.status).not.toBeLessThan(300);
    expect(read).toConformTo('get-address-type-field-by-id', 'rejected');
  });

  test('the address type is deleted', async ({ skip }) => {
    needs(skip, ['address type id', typeId]);
    const res = await api.call('delete-address-type', { pathParams: { id: typeId } });
    expect(res).toConformTo('delete-address-type');
    created.splice(created.findIndex((c) => c.pathParams['id'] === typeId && !c.pathParams['fieldId']), 1);
  });
});
