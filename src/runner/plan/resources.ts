import { isDeepStrictEqual } from 'node:util';
import type { Contract, JsonSchema, Operation } from '../model.ts';
import { recordSchema, recordsIn } from './answer-records.ts';
import { operationIndex, pathShape, withShape, type OperationIndex } from './operation-index.ts';

/**
 * The resource model: which operation produces the id a path parameter names, and which reads a record back.
 * Derived from the contract only, in this order of evidence:
 *  1. OpenAPI links: a response link to the operation that fills the parameter from the response
 *     (`$response.body#/id`);
 *  2. path structure: a POST on the collection path before the parameter, trailing slashes normalised
 *     (`POST /heroes/` produces `{hero_id}` of `/heroes/{hero_id}`);
 *  3. a create nested under a parent record whose records are served flat: `POST /owners/{ownerId}/pets`
 *     produces `{petId}` of `/pets/{petId}` where it is the one such create and answers the record the flat item
 *     read serves (the same schema);
 *  4. PUT-to-create: a PUT on the item path itself, where the client chooses the id.
 * The created id is read from the create response in any of the three create shapes (record, array, page
 * `{total, data}`): the link's pointer, else `id`, the parameter's own name, or its camelCase/snake_case forms;
 * integer and string ids alike.
 */

export interface Producer {
  producer: Operation;
  /** How the id comes about: from the create response, or chosen by the client (PUT on the item path). */
  via: 'link' | 'path' | 'put';
  /** JSON pointer into the response body, when a link names it. */
  pointer?: string;
  /** The record's field the parameter names, where it is found by name (`username` for `{username}`). */
  field?: string;
}

/** A path with trailing slashes removed (the root stays "/"). */
export function normalisePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** The parameter-name-insensitive shape of a path: `/heroes/{}` for `/heroes/{hero_id}`. */
function shape(path: string): string {
  return pathShape(path);
}

function sameService(a: Operation, b: Operation): boolean {
  return a.service === b.service;
}

const producers = new WeakMap<OperationIndex, WeakMap<Operation, Map<string, Producer | undefined>>>();

/** The producer of the id a path parameter names (remembered per operation and parameter: it is asked per case). */
export function producerFor(contract: Contract, op: Operation, param: string): Producer | undefined {
  const index = operationIndex(contract);
  let byOp = producers.get(index);
  if (!byOp) producers.set(index, (byOp = new WeakMap()));
  let byParam = byOp.get(op);
  if (!byParam) byOp.set(op, (byParam = new Map()));
  if (byParam.has(param)) return byParam.get(param);
  const found = findProducer(contract, op, param);
  byParam.set(param, found);
  return found;
}

function findProducer(contract: Contract, op: Operation, param: string): Producer | undefined {
  // A parameter whose schema lists its values names a choice (a kind, a format), never a record.
  if (listsValues(op, param)) return undefined;
  const byLink = linkProducer(contract, op, param);
  if (byLink) return byLink;
  return pathProducer(contract, op, param) ?? namedProducer(contract, op, param);
}

function pathProducer(contract: Contract, op: Operation, param: string): Producer | undefined {
  const segments = normalisePath(op.path).split('/');
  const index = segments.indexOf(`{${param}}`);
  if (index < 1) return undefined;
  const collection = shape(segments.slice(0, index).join('/') || '/');
  const post = withShape(contract, op.service, 'POST', collection)[0];
  if (post) return { producer: post, via: 'path' };
  const item = shape(segments.slice(0, index + 1).join('/'));
  const nested = nestedCreate(contract, op, collection, item);
  if (nested) return { producer: nested, via: 'path' };
  const put = withShape(contract, op.service, 'PUT', item).find(
    (o) => normalisePath(o.path).split('/')[index] === `{${param}}` && o.requestBody !== undefined,
  );
  if (put && put !== op) return { producer: put, via: 'put' };
  return undefined;
}

/** True where the path parameter's schema lists its values (`enum`, `const`). */
function listsValues(op: Operation, param: string): boolean {
  const schema = op.parameters.find((p) => p.in === 'path' && p.name === param)?.schema;
  return typeof schema === 'object' && (Array.isArray(schema['enum']) || 'const' in schema);
}

/**
 * Whether a path parameter names a value, not a record: its schema lists its values (`enum`, `const`), or it is a
 * number or a boolean whose name does not say it is an id (`/math/sum/{a}/{b}`), and no operation makes a record
 * for it. Such a parameter gets values of its schema like any other.
 */
export function namesValue(contract: Contract, op: Operation, param: string): boolean {
  if (listsValues(op, param)) return true;
  const schema = op.parameters.find((p) => p.in === 'path' && p.name === param)?.schema;
  const type = typeof schema === 'object' ? schema['type'] : undefined;
  const types = Array.isArray(type) ? type : [type];
  const scalar = types.length > 0 && types.every((t) => t === 'integer' || t === 'number' || t === 'boolean');
  return scalar && !/(id|uuid|key|no|number|num)$/i.test(param) && producerFor(contract, op, param) === undefined;
}

/** A name without case or separators: `user_name`, `userName` and `username` are one. */
const bare = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

/**
 * The record field a path parameter names, by its name: the field of that name in any spelling (`{user_name}`
 * names `username`), or the last word of a name that says whose it is (`{articleSlug}`, `{article_slug}` name an
 * article's `slug`). Never `id` alone: an `{id}` no path or link ties to a create names nothing by its name.
 */
export function fieldNamedBy(param: string, fields: readonly string[]): string | undefined {
  const wanted = bare(param);
  if (wanted === 'id') return undefined;
  const exact = fields.find((f) => bare(f) === wanted);
  if (exact) return exact;
  const words = param.replace(/([a-z0-9])([A-Z])/g, '$1_$2').split(/[_-]/).filter(Boolean);
  const last = words.length > 1 ? bare(words.at(-1)!) : undefined;
  return last !== undefined && last !== 'id' ? fields.find((f) => bare(f) === last) : undefined;
}

/**
 * A create whose record holds the field the path parameter names (`{username}` of `/profiles/{username}` is the
 * `username` of the record `POST /users` answers), where no link or path ties the parameter to one: a POST of the
 * same service whose documented success answer holds a record with that field, of a type the parameter takes.
 * A create that is sent the field itself (a register sends the username) comes before one that only answers it
 * (a login), then the one of the shortest path.
 */
/** Whether a schema names the property at any depth (a recursive schema walked once: a seen-set, no JSON text). */
function namesProperty(schema: unknown, name: string, seen = new Set<object>()): boolean {
  if (typeof schema !== 'object' || schema === null || seen.has(schema)) return false;
  seen.add(schema);
  const properties = (schema as Record<string, unknown>)['properties'];
  if (typeof properties === 'object' && properties !== null && name in properties) return true;
  return Object.values(schema).some((value) => namesProperty(value, name, seen));
}

function namedProducer(contract: Contract, op: Operation, param: string): Producer | undefined {
  const schema = op.parameters.find((p) => p.in === 'path' && p.name === param)?.schema;
  const paramType = typeof schema === 'object' ? schema['type'] : undefined;
  const ranked = contract.operations
    .filter((o) => o.service === op.service && o.method === 'POST' && o !== op)
    .flatMap((o) => {
      const record = recordSchema(successSchema(o) as JsonSchema | undefined);
      const properties = record && typeof record['properties'] === 'object' ? (record['properties'] as Record<string, Record<string, unknown>>) : {};
      const field = fieldNamedBy(param, Object.keys(properties));
      if (field === undefined) return [];
      const fieldType = properties[field]?.['type'];
      if (paramType !== undefined && fieldType !== undefined && fieldType !== paramType && !(fieldType === 'integer' && paramType === 'number')) return [];
      const sent = namesProperty(o.requestBody?.schema, field);
      return [{ o, field, rank: (sent ? 0 : 1000) + o.path.split('/').length }];
    })
    .sort((a, b) => a.rank - b.rank);
  const best = ranked[0];
  return best ? { producer: best.o, via: 'path', field: best.field } : undefined;
}

/**
 * The one create nested under a parent record (`POST /owners/{}/pets`) of a flat collection (`/pets`) whose item
 * read (`GET /pets/{}`) serves what the create answers: the same success schema.
 */
function nestedCreate(contract: Contract, op: Operation, collection: string, item: string): Operation | undefined {
  const reader = withShape(contract, op.service, 'GET', item)[0];
  const served = reader ? successSchema(reader) : undefined;
  if (served === undefined) return undefined;
  const candidates = nestedPosts(contract).filter((o) => o.service === op.service && flatCollection(o.path) === collection);
  if (candidates.length !== 1) return undefined;
  const answered = successSchema(candidates[0]!);
  return answered !== undefined && (answered === served || isDeepStrictEqual(answered, served)) ? candidates[0] : undefined;
}

/**
 * The flat collection shape of a create nested one level under a parent record: `/api/pets` for
 * `/api/owners/{ownerId}/pets`; undefined for any other path.
 */
function flatCollection(path: string): string | undefined {
  const parts = shape(path).split('/');
  const [segment, param, parent] = [parts.at(-1), parts.at(-2), parts.at(-3)];
  if (parts.length < 4 || param !== '{}' || !segment || !parent || segment.includes('{') || parent.includes('{')) return undefined;
  return [...parts.slice(0, -3), segment].join('/');
}

/**
 * The operation with this method on the flat item path whose records a nested create makes (`DELETE /pets/{petId}`
 * for `POST /owners/{ownerId}/pets`), where the create is that path's producer.
 */
export function flatItemOperation(contract: Contract, create: Operation, method: string): Operation | undefined {
  const collection = create.method === 'POST' ? flatCollection(create.path) : undefined;
  const target = collection !== undefined ? withShape(contract, create.service, method, `${collection}/{}`)[0] : undefined;
  const param = target ? /\{([^{}]+)\}$/.exec(normalisePath(target.path))?.[1] : undefined;
  return target && param && producerFor(contract, target, param)?.producer === create ? target : undefined;
}

/** The POSTs on a collection under a parent record (`/owners/{}/pets`), once per contract. */
const nestedPostsOf = new WeakMap<OperationIndex, Operation[]>();
function nestedPosts(contract: Contract): Operation[] {
  const index = operationIndex(contract);
  let found = nestedPostsOf.get(index);
  if (!found) nestedPostsOf.set(index, (found = contract.operations.filter((o) => o.method === 'POST' && flatCollection(o.path) !== undefined)));
  return found;
}

/** The JSON schema of an operation's first success answer that declares one (the record it serves or makes). */
function successSchema(op: Operation): unknown {
  return op.responses.find((r) => /^2\d\d$/.test(r.status) && r.schema !== undefined)?.schema;
}

function linkProducer(contract: Contract, op: Operation, param: string): Producer | undefined {
  for (const candidate of operationIndex(contract).linking) {
    if (!sameService(candidate, op) || candidate === op) continue;
    for (const link of candidate.links ?? []) {
      const targets = link.operationId !== undefined ? link.operationId === op.operationId : link.method === op.method && link.path === op.path;
      if (!targets || !/^2/.test(link.status)) continue;
      const expression = link.parameters[param];
      const pointer = expression ? /^\$response\.body#(\/.*)?$/.exec(expression) : null;
      if (pointer) return { producer: candidate, via: 'link', pointer: pointer[1] ?? '' };
    }
  }
  return undefined;
}

/** True for a PUT on an item path whose id no other operation produces: the PUT creates the record it names. */
export function createsItself(contract: Contract, op: Operation, param: string): boolean {
  if (op.method !== 'PUT' || op.requestBody === undefined) return false;
  const segments = normalisePath(op.path).split('/');
  return segments.at(-1) === `{${param}}` && producerFor(contract, op, param) === undefined;
}

/** The GET of the same record (trailing slashes normalised). */
export function readerFor(contract: Contract, op: Operation): Operation | undefined {
  return withShape(contract, op.service, 'GET', shape(op.path))[0];
}

/** The DELETE of the record a create made: on the item path that the create's path leads to. */
export function deleterFor(contract: Contract, create: Operation): Operation | undefined {
  if (create.method === 'PUT') return withShape(contract, create.service, 'DELETE', shape(create.path))[0];
  // A DELETE whose shape is the collection's followed by one "/{}".
  return withShape(contract, create.service, 'DELETE', `${shape(create.path)}/{}`)[0];
}

/** The records of a create response, wherever the answer holds them (plan/answer-records.ts). */
export function createdRecords(body: unknown, schema?: JsonSchema): unknown[] {
  return recordsIn(body, schema);
}

/** An id as text: a non-empty string, a finite number or a bigint. */
export function idText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  return undefined;
}

/** Names the id of a record may go by for a path parameter: id, hero_id, heroId, HeroId. */
export function idNames(param: string): string[] {
  const camel = param.replace(/[_-]([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const snake = param.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  // The parameter's own name first (a path {email} takes the record's email, not its id), then the record's id.
  return [...new Set([param, camel, snake, camel.charAt(0).toUpperCase() + camel.slice(1), 'id', 'Id', 'ID'])];
}

/** The id a create answered for a path parameter, as text; undefined when the response carries none. */
export function createdId(body: unknown, param: string, pointer?: string): string | undefined {
  if (pointer !== undefined) return idText(at(body, pointer));
  for (const record of createdRecords(body)) {
    if (typeof record !== 'object' || record === null) {
      const bare = idText(record);
      if (bare) return bare;
      continue;
    }
    for (const name of idNames(param)) {
      const found = idText((record as Record<string, unknown>)[name]);
      if (found) return found;
    }
  }
  return undefined;
}

/** The value at a JSON pointer (RFC 6901), or undefined. */
export function at(value: unknown, pointer: string): unknown {
  let current = value;
  for (const raw of pointer.split('/').slice(1)) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return current;
}
