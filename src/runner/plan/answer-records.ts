/**
 * The record in an answer: the one reading of where an answer holds the records it is about, used by every part
 * of the engine that reads a record back (the created id, fixtures, the value pool, read-your-writes,
 * use-after-delete, clean-up, reproductions). An answer holds them
 *  - at the top: the record itself, or a bare array of records;
 *  - in a one-key envelope: `{"article": {...}}`, `{"user": {...}}` (where the contract's response schema is an
 *    object of one property wrapping an object or an array, that property is the envelope; without a schema, an
 *    object of one key holding an object is read as one);
 *  - in a data wrapper: `{"data": {...}}` (JSON:API) where the answer names no id of its own;
 *  - in a page: one array of records beside counts and links (`{"data": [...], "total": 3}`,
 *    `{"articles": [...], "articlesCount": 3}`).
 * Pure functions of the answer's body and, where given, its schema.
 */
import type { JsonSchema } from '../model.ts';
import { referenceStem } from './relations.ts';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const ID_KEY = /^(id|uuid)$/i;
/** A key that names a record or a reference to one (`id`, `userId`): an object with one is a record, not a wrapper. */
const namesRecord = (key: string) => ID_KEY.test(key) || referenceStem(key) !== undefined;

/**
 * The envelope a response schema declares: the name of its one property where the schema is an object of exactly
 * one property that holds an object or an array of them (`{"article": Article}`); undefined for any other schema.
 */
export function envelopeKey(schema: JsonSchema | undefined): string | undefined {
  if (!isObject(schema) || (schema['type'] !== undefined && schema['type'] !== 'object')) return undefined;
  const properties = schema['properties'];
  if (!isObject(properties)) return undefined;
  const keys = Object.keys(properties);
  if (keys.length !== 1) return undefined;
  const inner = properties[keys[0]!];
  if (!isObject(inner)) return undefined;
  const held = inner['type'] === 'array' ? inner['items'] : inner;
  return objectSchema(held) ? keys[0] : undefined;
}

/** A schema of an object: typed so, or with properties or an allOf and no other type. */
function objectSchema(schema: unknown): schema is Record<string, unknown> {
  if (!isObject(schema)) return false;
  const type = schema['type'];
  return type === 'object' || (type === undefined && (isObject(schema['properties']) || Array.isArray(schema['allOf'])));
}

/**
 * The schema of the record an answer of this schema holds: the envelope's content, the items of an array or of a
 * page's one array; the schema itself for a record at the top. Undefined where it names no object.
 */
export function recordSchema(schema: JsonSchema | undefined): Record<string, unknown> | undefined {
  if (!isObject(schema)) return undefined;
  const key = envelopeKey(schema);
  const inner = key !== undefined ? (schema['properties'] as Record<string, unknown>)[key] : schema;
  const items = isObject(inner) && inner['type'] === 'array' ? inner['items'] : inner;
  if (objectSchema(items) && items !== schema) return items;
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const arrays = Object.entries(properties).filter(([, v]) => isObject(v) && v['type'] === 'array');
  if (arrays.length === 1 && Object.keys(properties).every((k) => k === arrays[0]![0] || PAGE_KEY.test(k))) {
    const held = (arrays[0]![1] as Record<string, unknown>)['items'];
    if (objectSchema(held)) return held;
  }
  return objectSchema(schema) ? schema : undefined;
}

/** What a page holds beside its records: counts, positions and links. */
const PAGE_KEY = /count|total|page|size|offset|limit|next|prev|previous|cursor|links?|meta|has_?more|hasMore/i;

/** The one array of a page: the only array property of an object whose other properties are counts and links. */
function pageItems(body: Record<string, unknown>): unknown[] | undefined {
  const keys = Object.keys(body);
  const arrays = keys.filter((k) => Array.isArray(body[k]));
  if (arrays.length !== 1 || keys.some(namesRecord)) return undefined;
  const items = body[arrays[0]!] as unknown[];
  const beside = keys.filter((k) => k !== arrays[0]).every((k) => PAGE_KEY.test(k));
  return beside && items.every((item) => isObject(item)) ? items : undefined;
}

/**
 * The records an answer holds, in the order it holds them: the record at the top, or those of an envelope, a data
 * wrapper, a bare array or a page. `schema` is the answer's documented schema where known (its envelope then wins
 * over a guess from the data). An answer that is no object or array is its own one record (a bare id).
 */
export function recordsIn(body: unknown, schema?: JsonSchema): unknown[] {
  if (body === undefined) return [];
  if (Array.isArray(body)) return body;
  if (!isObject(body)) return [body];
  const declared = envelopeKey(schema);
  if (declared !== undefined && declared in body) return unwrapped(body[declared]);
  const keys = Object.keys(body);
  const data = body['data'];
  if (Array.isArray(data)) return data;
  // A record in an envelope (JSON:API's `{"data": {"type": …, "id": …}, "links": …}`) where the answer names no id of its own.
  if (isObject(data) && !keys.some(namesRecord)) return [data];
  // A one-key envelope: `{"article": {...}}`.
  if (keys.length === 1 && !namesRecord(keys[0]!) && isObject(body[keys[0]!])) return [body[keys[0]!]];
  return pageItems(body) ?? [body];
}

function unwrapped(inner: unknown): unknown[] {
  if (Array.isArray(inner)) return inner;
  return inner === undefined || inner === null ? [] : [inner];
}

/** The record an answer is about: the first it holds (undefined for an empty list or no body). */
export function recordIn(body: unknown, schema?: JsonSchema): unknown {
  return recordsIn(body, schema)[0];
}
