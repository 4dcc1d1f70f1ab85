/**
 * Relations between operations, derived from paths and schemas only: which POST creates the records of a
 * collection, which GETs serve a created record (by id, nested under it, or listed in its collection), and
 * which field of a child record names its parent. Kept apart from the planner so a fuller resource model
 * can replace it without touching the checks.
 */
import type { Contract, JsonSchema, Operation } from '../model.ts';
import { responseFor } from '../description/load.ts';
import { onPath, operationIndex } from './operation-index.ts';
import { schemaFormat, schemaProperties, schemaTypes } from '../description/json-schema.ts';
import { factsOf } from './keywords.ts';

/** How a reader serves a created record: its item path, a path nested under it, or its collection's list. */
export type ReadRole = 'item' | 'nested' | 'list';

export interface Reader {
  operation: Operation;
  role: ReadRole;
  /** The path parameter the created id fills (absent for the list, which lives on the collection path). */
  param?: string;
}

function params(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
}

/** The item parameter of a collection path: the `{x}` in `<collection>/{x}` of any operation, if one exists. */
export function itemParam(contract: Contract, op: Operation): string | undefined {
  return operationIndex(contract).itemParam.get(`${op.service} ${op.path}`);
}

/** True when the operation creates records of a collection: a POST on a path that has item paths under it. */
export function isCreate(contract: Contract, op: Operation): boolean {
  return op.method === 'POST' && !op.path.endsWith('}') && itemParam(contract, op) !== undefined;
}

/** The GETs that serve a record the create made: by its id, under its id (no further ids), or in the list. */
export function readersOfCreated(contract: Contract, create: Operation): Reader[] {
  const param = itemParam(contract, create);
  if (!param) return [];
  const item = `${create.path}/{${param}}`;
  const known = params(item).length;
  const readers: Reader[] = [];
  // The GETs on the item path, under it, and on the collection path, in contract order.
  const index = operationIndex(contract);
  const candidates = [
    ...onPath(contract, create.service, item),
    ...(index.getsUnder.get(`${create.service} ${item}`) ?? []),
    ...onPath(contract, create.service, create.path),
  ].sort((a, b) => index.position.get(a)! - index.position.get(b)!);
  for (const o of candidates) {
    if (o.method !== 'GET') continue;
    if (o.path === item) readers.push({ operation: o, role: 'item', param });
    else if (o.path.startsWith(`${item}/`) && params(o.path).length === known) readers.push({ operation: o, role: 'nested', param });
    else if (o.path === create.path && listSchema(o) !== undefined) readers.push({ operation: o, role: 'list' });
  }
  return readers;
}

/** The create of the collection an item or list path belongs to. */
export function createOf(contract: Contract, reader: Operation): Operation | undefined {
  const collection = reader.path.endsWith('}') ? reader.path.replace(/\/\{[^}]+\}$/, '') : reader.path;
  return onPath(contract, reader.service, collection).find((o) => isCreate(contract, o));
}

/** The list of a collection: the GET on the collection path, when it answers records. */
export function listOf(contract: Contract, itemOp: Operation): Operation | undefined {
  if (!itemOp.path.endsWith('}')) return undefined;
  const collection = itemOp.path.replace(/\/\{[^}]+\}$/, '');
  return onPath(contract, itemOp.service, collection).find((o) => o.method === 'GET' && listSchema(o) !== undefined);
}

/** Names a page gives its records, in the order they are tried (JSON:API and most platforms, Spring, DRF, ...). */
export const PAGE_RECORDS = ['data', 'items', 'results', 'content', 'records', 'values'];

/** The property of a page schema that holds its records: a known name, else its only array property. */
function pageProperty(schema: JsonSchema): string | undefined {
  const props = recordProperties(schema);
  const arrays = Object.keys(props).filter((k) => typeof props[k] === 'object' && schemaTypes(props[k]!).includes('array'));
  return PAGE_RECORDS.find((k) => arrays.includes(k)) ?? (arrays.length === 1 ? arrays[0] : undefined);
}

/** The record schema of a list's items (a bare array or a page's records), when the 200 answer is a list. */
export function listSchema(op: Operation): JsonSchema | undefined {
  const schema = responseFor(op, 200)?.schema;
  if (schema === undefined) return undefined;
  if (schemaTypes(schema).includes('array') && typeof schema === 'object') return (schema['items'] as JsonSchema | undefined) ?? true;
  const property = pageProperty(schema);
  const records = property === undefined ? undefined : recordProperties(schema)[property];
  if (records !== undefined && typeof records === 'object') return (records['items'] as JsonSchema | undefined) ?? true;
  return undefined;
}

/** The record schema a reader answers: a list's item schema, else its 200 schema. */
export function recordSchema(reader: Operation): JsonSchema | undefined {
  return listSchema(reader) ?? responseFor(reader, 200)?.schema;
}

/** Properties of a schema, through allOf (the record schemas compose with allOf). */
export function recordProperties(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  if (schema === undefined || typeof schema !== 'object') return {};
  const out: Record<string, JsonSchema> = {};
  for (const part of (schema['allOf'] as JsonSchema[] | undefined) ?? []) Object.assign(out, recordProperties(part));
  return { ...out, ...schemaProperties(schema) };
}

/**
 * The field of a child record that names its parent: when the child's collection sits under exactly one
 * parent id, the one uuid property of the record other than its own `id`. Undefined when that is not clear.
 */
export function ownerField(create: Operation, record: JsonSchema | undefined): { field: string; parentParam: string } | undefined {
  const parents = params(create.path);
  if (parents.length !== 1) return undefined;
  const candidates = Object.entries(recordProperties(record)).filter(([name, s]) => name !== 'id' && schemaFormat(s) === 'uuid');
  if (candidates.length !== 1) return undefined;
  return { field: candidates[0]![0], parentParam: parents[0]! };
}

/** The record fields a request sent that a reader's record declares with the same scalar type: they must read back equal. */
export function comparableFields(sent: unknown, record: JsonSchema | undefined): string[] {
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return [];
  const props = recordProperties(record);
  return Object.entries(sent as Record<string, unknown>)
    .filter(([name, value]) => {
      const schema = props[name];
      if (schema === undefined) return false;
      const types = schemaTypes(schema);
      const format = schemaFormat(schema);
      if (format === 'date-time' || format === 'date') return false; // a server may normalise these
      const kind = typeof value === 'number' ? (Number.isInteger(value) ? ['integer', 'number'] : ['number']) : [typeof value];
      return types.length > 0 && kind.some((k) => types.includes(k)) && ['string', 'number', 'boolean'].includes(typeof value);
    })
    .map(([name]) => name);
}

/** The suffix of a field that names another record, after a lower-case letter or digit. */
const REFERENCE = /[a-z0-9](?:_id|Id|ID|_uuid|Uuid)$/;
const SUFFIX = /(?:_id|Id|ID|_uuid|Uuid)$/;

/**
 * The body fields that name the record the path names, each with the path parameter it takes its value from: a
 * field named like a path parameter (`PUT /todos/{id}` with `{"id": …}`), and a bare `id`, the record's own, where
 * the path ends in a parameter of another name (`PUT /pettypes/{petTypeId}` with `{"id": …}`).
 */
export function pathRecordFields(op: Pick<Operation, 'path' | 'parameters'>): Map<string, string> {
  const names = [...op.parameters.filter((p) => p.in === 'path').map((p) => p.name), ...[...op.path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!)];
  const fields = new Map(names.map((name) => [name, name]));
  const own = /\{([^{}]+)\}$/.exec(op.path)?.[1];
  if (own !== undefined && fields.has(own) && !fields.has('id')) fields.set('id', own);
  return fields;
}

/** The kind of record a reference field names, lower case without separators (`user_id` -> `user`); else undefined. */
export function referenceStem(name: string): string | undefined {
  if (!REFERENCE.test(name)) return undefined;
  return name.replace(SUFFIX, '').replace(/[-_]/g, '').toLowerCase();
}

/**
 * A field or parameter that names records (`id`, `pk`, `author_id`, `tagIds`: a record's own id or a reference, one
 * or a list): the small-value sweep leaves it drawn, since small ids name records that exist (someone else's, moved
 * by a relationship write); a reproduction script reads such a value from the answer that gave it, however short.
 */
export function namesRecord(name: string): boolean {
  return /^(ids?|uuids?|pks?)$/i.test(name) || referenceStem(name.replace(/s$/, '')) !== undefined;
}

/** A path's last segment as a reference field would name it: lower case, no separators (`/line-items` -> `lineitems`). */
export function lastSegmentName(path: string): string | undefined {
  return path.split('/').at(-1)?.replace(/[-_]/g, '').toLowerCase();
}

/** The collection names a reference stem names: `user` names `user`, `users` and `useres`. */
export function namedCollections(stem: string): string[] {
  return [stem, `${stem}s`, `${stem}es`];
}

const createsByName = new WeakMap<Contract, Map<string, Operation[]>>();

/**
 * The creates of the records a body field names: `user_id` -> the create of `/users` (or `/user`, `/useres`)
 * in the same service. Worked out once per contract.
 */
export function createsOfReference(contract: Contract, service: string, name: string): Operation[] {
  const stem = referenceStem(name);
  if (!stem) return [];
  let byName = createsByName.get(contract);
  if (!byName) {
    byName = new Map();
    for (const o of contract.operations) {
      const collection = isCreate(contract, o) ? lastSegmentName(o.path) : undefined;
      if (collection === undefined) continue;
      const list = byName.get(collection) ?? [];
      list.push(o);
      byName.set(collection, list);
    }
    createsByName.set(contract, byName);
  }
  return namedCollections(stem).flatMap((n) => byName.get(n) ?? []).filter((o) => o.service === service);
}

/** The top-level body fields of an operation that name a record some create of the contract makes, with that create. */
export function referencedCreates(contract: Contract, op: Operation): { field: string; create: Operation }[] {
  if (!op.requestBody) return [];
  const out: { field: string; create: Operation }[] = [];
  for (const field of Object.keys(factsOf(op.requestBody.schema).properties)) {
    const create = createsOfReference(contract, op.service, field)[0];
    if (create) out.push({ field, create });
  }
  return out;
}
