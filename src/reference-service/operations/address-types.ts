/**
 * Address types and their fields (seed §2.1, §2.2, §4.2). Order of checks: path ids (uuid), then the body,
 * then the query, then existence (an unknown record is 400 ERR_PLAT_4).
 * Updates replace the updatable fields (PUT): an optional field left out is reset (country and
 * separatorMark removed, isVisible back to true). `code` is not accepted on update: it is ignored.
 */
import { randomUUID } from 'node:crypto';
import { applyListQuery } from '../list.ts';
import { created, ok, recordNotFound } from '../replies.ts';
import type { AddressType, AddressTypeField, Operation, ReferenceState } from '../state.ts';
import type { Reply } from '../types.ts';
import { checkListQuery, checkObjectBody, checkUuidParams, type FieldRule } from '../validate.ts';

const CREATE_TYPE: readonly FieldRule[] = [
  { name: 'code', type: 'string', required: true },
  { name: 'name', type: 'string', required: true },
  { name: 'country', type: 'int32' },
];

const UPDATE_TYPE: readonly FieldRule[] = [
  { name: 'isActive', type: 'boolean', required: true },
  { name: 'name', type: 'string', required: true },
  { name: 'country', type: 'int32' },
];

const CREATE_FIELD: readonly FieldRule[] = [
  { name: 'fieldKey', type: 'string', required: true },
  { name: 'isMandatory', type: 'boolean', required: true },
  { name: 'sequenceNumber', type: 'int32', required: true },
  { name: 'isVisible', type: 'boolean' },
  { name: 'separatorMark', type: 'string' },
];

const UPDATE_FIELD: readonly FieldRule[] = [
  { name: 'fieldKey', type: 'string', required: true },
  { name: 'isActive', type: 'boolean', required: true },
  { name: 'isMandatory', type: 'boolean', required: true },
  { name: 'sequenceNumber', type: 'int32', required: true },
  { name: 'isVisible', type: 'boolean' },
  { name: 'separatorMark', type: 'string' },
];

const TYPE = 'address type';
const FIELD = 'address type field';

function withCountry(record: AddressType, country: unknown): AddressType {
  if (typeof country === 'number') record.country = country;
  else delete record.country;
  return record;
}

function withSeparator(record: AddressTypeField, separatorMark: unknown): AddressTypeField {
  if (typeof separatorMark === 'string') record.separatorMark = separatorMark;
  else delete record.separatorMark;
  return record;
}

export const createAddressType: Operation = (req, { state, createShape }) => {
  const body = checkObjectBody(req, CREATE_TYPE);
  if (!body.ok) return body.reply;
  const { code, name, country } = body.value;
  const record = withCountry({ id: randomUUID(), code: String(code), name: String(name), isActive: true }, country);
  state.addressTypes.set(record.id, record);
  return created({ ...record }, createShape);
};

export const updateAddressType: Operation = (req, { state }) => {
  const ids = checkUuidParams(req.params, ['id']);
  if (!ids.ok) return ids.reply;
  const body = checkObjectBody(req, UPDATE_TYPE);
  if (!body.ok) return body.reply;
  const id = ids.value['id'] ?? '';
  const record = state.addressTypes.get(id);
  if (record === undefined) return recordNotFound(TYPE, id);
  record.name = String(body.value['name']);
  record.isActive = body.value['isActive'] === true;
  withCountry(record, body.value['country']);
  return ok({});
};

export const deleteAddressType: Operation = (req, { state }) => {
  const ids = checkUuidParams(req.params, ['id']);
  if (!ids.ok) return ids.reply;
  const id = ids.value['id'] ?? '';
  if (!state.addressTypes.delete(id)) return recordNotFound(TYPE, id);
  for (const field of state.fieldsOf(id)) state.addressTypeFields.delete(field.id);
  return ok({});
};

export const getAddressTypeFieldList: Operation = (req, { state }) => {
  const ids = checkUuidParams(req.params, ['id']);
  if (!ids.ok) return ids.reply;
  const query = checkListQuery(req.query, req.lenient);
  if (!query.ok) return query.reply;
  const id = ids.value['id'] ?? '';
  if (!state.addressTypes.has(id)) return recordNotFound(TYPE, id);
  // `filter` is accepted and ignored (its semantics are not shown). Translations: none are ever set.
  const fields = applyListQuery(state.fieldsOf(id), query.value);
  return ok(fields.map((f) => ({ ...f, translations: [] })));
};

export const createAddressTypeField: Operation = (req, { state, createShape }) => {
  const ids = checkUuidParams(req.params, ['id']);
  if (!ids.ok) return ids.reply;
  const body = checkObjectBody(req, CREATE_FIELD);
  if (!body.ok) return body.reply;
  const typeId = ids.value['id'] ?? '';
  if (!state.addressTypes.has(typeId)) return recordNotFound(TYPE, typeId);
  const v = body.value;
  const record = withSeparator(
    {
      id: randomUUID(),
      typeId,
      fieldKey: String(v['fieldKey']),
      isMandatory: v['isMandatory'] === true,
      isVisible: v['isVisible'] !== false,
      isActive: true,
      sequenceNumber: Number(v['sequenceNumber']),
    },
    v['separatorMark'],
  );
  state.addressTypeFields.set(record.id, record);
  return created({ ...record }, createShape);
};

/** The field, when both ids are uuids, the type exists and the field belongs to it; else the error reply. */
function findField(
  params: Record<string, string>,
  state: ReferenceState,
): { field: AddressTypeField } | { reply: Reply } {
  const ids = checkUuidParams(params, ['id', 'fieldId']);
  if (!ids.ok) return { reply: ids.reply };
  const typeId = ids.value['id'] ?? '';
  const fieldId = ids.value['fieldId'] ?? '';
  if (!state.addressTypes.has(typeId)) return { reply: recordNotFound(TYPE, typeId) };
  const field = state.addressTypeFields.get(fieldId);
  if (field === undefined || field.typeId !== typeId) return { reply: recordNotFound(FIELD, fieldId) };
  return { field };
}

export const getAddressTypeFieldById: Operation = (req, { state }) => {
  const found = findField(req.params, state);
  return 'reply' in found ? found.reply : ok({ ...found.field });
};

export const updateAddressTypeField: Operation = (req, { state }) => {
  const ids = checkUuidParams(req.params, ['id', 'fieldId']);
  if (!ids.ok) return ids.reply;
  const body = checkObjectBody(req, UPDATE_FIELD);
  if (!body.ok) return body.reply;
  const found = findField(req.params, state);
  if ('reply' in found) return found.reply;
  const v = body.value;
  const field = found.field;
  field.fieldKey = String(v['fieldKey']);
  field.isActive = v['isActive'] === true;
  field.isMandatory = v['isMandatory'] === true;
  field.sequenceNumber = Number(v['sequenceNumber']);
  field.isVisible = v['isVisible'] !== false;
  withSeparator(field, v['separatorMark']);
  return ok({});
};

export const deleteAddressTypeField: Operation = (req, { state }) => {
  const found = findField(req.params, state);
  if ('reply' in found) return found.reply;
  state.addressTypeFields.delete(found.field.id);
  return ok({});
};
