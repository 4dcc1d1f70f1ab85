/**
 * Writes are read back at their edges: a read of a record (its GET by id, its collection's list) is called after
 * each write of the record (its updates, the collection's create) that stored a schema-valid boundary value, one
 * value per write (execute/phases/edge-writes.ts). The values, in order of priority, at most MAX_EDGE_WRITES:
 *  1. past a bound the read's record schema declares and the write's schema lacks, valid for the write (an update
 *     without the create's maxLength takes 51 characters where the record holds 50 at most; an age with a maximum
 *     only takes -1 where the record's minimum is 0): a correct deployment refuses it or stores what its reads
 *     serve within their schema;
 *  2. the longest string the write takes (its maxLength; where it has none and the read bounds the length, a long one);
 *  3. each other declared bound of the write's own schema (edges(): minimum, maximum, lengths, item counts).
 * Every value is one its write's schema accepts. Derived from the contract only; pure.
 */
import type { Contract, JsonSchema, Operation } from '../model.ts';
import { accepts } from './accepts.ts';
import { edges, factsOf, mergedShape, type Edge, type SchemaFacts } from './keywords.ts';
import { onPath } from './operation-index.ts';
import { Random } from './random.ts';
import { isCreate, itemParam, listSchema, namesRecord, pathRecordFields, recordProperties, recordSchema } from './relations.ts';
import { generate, isOmitted, patternValue, UNKNOWN } from './values.ts';

/** The case name (a lifecycle case of each read of a record some write stores). */
export const EDGE_WRITES_CASE = 'lifecycle: reads after edge writes';
/** Writes per case at most. */
export const MAX_EDGE_WRITES = 8;
/** The string sent where a write sets no maxLength and the read's schema does. */
export const LONG_STRING = 1000;

/** The operations about one collection's records: the read by id, the list, the create, the updates. */
export interface EdgeTargets {
  /** The path parameter of the record's id. */
  param: string;
  item?: { operation: Operation; param: string };
  list?: Operation;
  create?: Operation;
  updates: Operation[];
}

/** One write: the property set to a boundary value, and why that value, in words. */
export interface EdgeWrite {
  write: Operation;
  property: string;
  value: unknown;
  /** "valid for its schema; the read schema's minimum is 0". */
  why: string;
  /** 0: past a bound only the read declares; 1: the longest string; 2: another bound of the write's own. */
  rank: number;
}

/** The JSON object body schema of a write, when its body is one with properties (never a JSON Patch). */
export function objectBody(op: Operation): JsonSchema | undefined {
  const body = op.requestBody;
  if (!body || !/json/i.test(body.contentType) || /json-patch/i.test(body.contentType)) return undefined;
  return Object.keys(factsOf(mergedShape(body.schema)).properties).length > 0 ? body.schema : undefined;
}

/** The read by id, the list, the create and the updates of the collection a GET reads (by id or as its list). */
export function edgeTargets(contract: Contract, op: Operation): EdgeTargets | undefined {
  if (op.method !== 'GET') return undefined;
  const own = /\/\{([^{}]+)\}$/.exec(op.path);
  const collection = own ? op.path.slice(0, own.index) : op.path;
  const param = own?.[1] ?? itemParam(contract, op);
  if (param === undefined || collection === '' || (!own && listSchema(op) === undefined)) return undefined;
  const itemPath = `${collection}/{${param}}`;
  const item = onPath(contract, op.service, itemPath).find((o) => o.method === 'GET');
  const list = onPath(contract, op.service, collection).find((o) => o.method === 'GET' && listSchema(o) !== undefined);
  const create = onPath(contract, op.service, collection).find((o) => isCreate(contract, o) && objectBody(o) !== undefined);
  const updates = onPath(contract, op.service, itemPath).filter((o) => (o.method === 'PUT' || o.method === 'PATCH') && objectBody(o) !== undefined);
  if (!create && updates.length === 0) return undefined;
  return { param, ...(item ? { item: { operation: item, param } } : {}), ...(list ? { list } : {}), ...(create ? { create } : {}), updates };
}

/** "minimum is 0" of "below minimum 0", "format is int32" of "beyond int32". */
function readBound(note: string): string {
  const bound = /^(?:below|above|not above|not below) (\w+) (\S+)$/.exec(note);
  if (bound) return `the read schema's ${bound[1]} is ${bound[2]}`;
  const format = /^(?:below|beyond) (int32)$/.exec(note);
  return format ? `the read schema's format is ${format[1]}` : `the read schema: ${note}`;
}

/** A string of `length` characters the property's pattern takes where it has one. */
function textOf(length: number, facts: SchemaFacts, random: Random): string | undefined {
  if (facts.pattern !== undefined) return patternValue(facts.pattern, random, length, length);
  return 'edge'.repeat(Math.ceil(length / 4)).slice(0, length);
}

/** The value of a property at an edge: the number, a string of that length, an array of that many items. */
function valueAt(edge: Edge, facts: SchemaFacts, random: Random): unknown {
  if (typeof edge.value === 'bigint') return undefined;
  if (edge.of === 'value') return edge.value;
  if (edge.of === 'length') return textOf(edge.value, facts, random);
  const item = generate(facts.items, random);
  return item === UNKNOWN || item === undefined ? undefined : Array.from({ length: edge.value }, () => structuredClone(item));
}

/** The boundary values of one write's properties, with their rank (unsorted, unbounded). */
function writeEdges(write: Operation, read: JsonSchema | undefined): EdgeWrite[] {
  const body = objectBody(write);
  if (body === undefined) return [];
  const random = new Random(`${write.operationId}:edge-writes`);
  const readProperties = recordProperties(read);
  const ownFields = pathRecordFields(write);
  const out: EdgeWrite[] = [];
  for (const [property, schema] of Object.entries(factsOf(mergedShape(body)).properties)) {
    if (isOmitted(schema) || namesRecord(property) || ownFields.has(property)) continue;
    const own = factsOf(mergedShape(schema));
    if (own.allowed !== undefined) continue;
    const theirs = readProperties[property] === undefined ? undefined : factsOf(mergedShape(readProperties[property]));
    const add = (rank: number, value: unknown, why: string) => {
      if (value !== undefined && accepts(schema, value) === true) out.push({ write, property, value, why, rank });
    };
    for (const edge of theirs === undefined ? [] : edges(theirs)) {
      if (!edge.inside && edge.class === 'bound') add(0, valueAt(edge, own, random), `valid for its schema; ${readBound(edge.note)}`);
    }
    const text = own.types.includes('string') && own.format === undefined;
    if (text && own.maxLength !== undefined) add(1, textOf(own.maxLength, own, random), `its schema's maxLength`);
    else if (text && theirs?.maxLength !== undefined && theirs.maxLength < LONG_STRING) add(1, textOf(LONG_STRING, own, random), `its schema sets no maxLength; the read schema's is ${theirs.maxLength}`);
    for (const edge of edges(own)) {
      if (edge.inside && edge.class === 'bound' && !(edge.of === 'length' && edge.value === own.maxLength)) add(2, valueAt(edge, own, random), `${edge.note} of its schema`);
    }
  }
  return out;
}

/**
 * The writes a read's case sends: the updates' boundary values, then the create's, by rank (past a bound only the
 * read declares first), each value once, at most MAX_EDGE_WRITES. `allowed` leaves out writes the run may not send.
 */
export function edgeWrites(contract: Contract, op: Operation, allowed: (write: Operation) => boolean = () => true): EdgeWrite[] {
  const targets = edgeTargets(contract, op);
  if (!targets) return [];
  const read = recordSchema(op);
  const writes = [...targets.updates, ...(targets.create ? [targets.create] : [])].filter(allowed);
  const seen = new Set<string>();
  return writes
    .flatMap((write) => writeEdges(write, read))
    .sort((a, b) => a.rank - b.rank)
    .filter((w) => {
      const key = `${w.write.operationId}\u0000${w.property}\u0000${JSON.stringify(w.value)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_EDGE_WRITES);
}

/**
 * What a write stored, as the findings of the reads after it name it: `age = -1 (valid for its schema; the read
 * schema's minimum is 0)`; a long string by its first characters and its length, an array by its count.
 */
export function writtenValue(w: Pick<EdgeWrite, 'property' | 'value' | 'why'>): string {
  const { value } = w;
  const long = typeof value === 'string' && value.length > 12;
  const shown = long ? `"${value.slice(0, 12)}…"` : Array.isArray(value) ? '[…]' : JSON.stringify(value);
  const size = long ? `${value.length} characters; ` : Array.isArray(value) ? `${value.length} items; ` : '';
  return `${w.property} = ${shown} (${size}${w.why})`;
}

/** Spelling-insensitive name (`first_name`, `firstName`). */
function spelling(name: string): string {
  return name.replace(/[-_]/g, '').toLowerCase();
}

/** The list's query parameter that filters by the written property, where it takes the written value: its name. */
export function filterParam(list: Operation, property: string, value: unknown): string | undefined {
  return list.parameters.find((p) => p.in === 'query' && spelling(p.name) === spelling(property) && value !== undefined && typeof value !== 'object' && accepts(p.schema, value) === true)?.name;
}
