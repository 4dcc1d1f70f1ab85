/**
 * Mass assignment (WFC 203), as the contract alone shows it: the properties a write must not set, and values for
 * them no correct deployment arrives at by itself. A write must not set a property of its record that its request
 * schema does not accept (where that schema lets other properties through: where it says
 * `additionalProperties: false`, sending one is a must-reject case), nor one its request schema marks `readOnly`.
 * The properties that name the record itself (its path's ids, its own `id`) are left out: changing them means
 * another record. Only scalar properties are sent, each with a distinctive value (a fresh token, a number far
 * from the stored one, a date long past): a property the server derives (a counter, a timestamp, a default) does
 * not happen to equal it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Contract, JsonSchema, Operation } from '../model.ts';
import { accepts } from './accepts.ts';
import { factsOf, mergedShape } from './keywords.ts';
import type { Random } from './random.ts';
import { createOf, isCreate, PAGE_RECORDS, pathRecordFields, readersOfCreated, recordProperties, recordSchema } from './relations.ts';
import { readerFor } from './resources.ts';
import { generate, withoutExamples } from './values.ts';

/** The name of the case that sends them where no other chain of the write does (plan/cases.ts). */
export const MASS_ASSIGNMENT_CASE = 'lifecycle: mass assignment';

/** Why a write must not set a property. */
export type AssignableWhy = 'not-accepted' | 'read-only';

export interface Assignable {
  name: string;
  /** The property's schema in the record (and in the request schema, for a readOnly one: both must accept the value). */
  schemas: JsonSchema[];
  why: AssignableWhy;
}

/** A property sent to a write that must not set it, with the value sent. */
export interface AssignedProperty {
  name: string;
  value: unknown;
  why: AssignableWhy;
}

const SCALARS = ['string', 'number', 'integer', 'boolean'];
/** The names a record's own identifier goes by. */
const OWN_ID = /^(id|uuid|pk|_id)$/i;

/** A property name as another spelling of it reads (`first_name`, `firstName`): lower case, no separators. */
function spelling(name: string): string {
  return name.replace(/[-_]/g, '').toLowerCase();
}

function isScalar(schema: JsonSchema): boolean {
  const facts = factsOf(mergedShape(schema));
  if (facts.allowed) return facts.allowed.every((v) => v === null || typeof v !== 'object');
  return facts.primary !== undefined && SCALARS.includes(facts.primary);
}

function flag(schema: JsonSchema, keyword: 'readOnly' | 'writeOnly'): boolean {
  const merged = mergedShape(schema);
  return typeof merged === 'object' && merged !== null && merged[keyword] === true;
}

/**
 * The spellings of every property the request schema lists (through allOf, oneOf, anyOf, if/then/else); undefined
 * when it takes properties it does not list by name (additionalProperties or patternProperties with a schema) or
 * lists none: then no property is known not to be accepted.
 */
function acceptedSpellings(schema: JsonSchema): Set<string> | undefined {
  const names = new Set<string>();
  let open = false;
  const visit = (s: JsonSchema, depth: number) => {
    if (typeof s !== 'object' || s === null || depth > 8) return;
    const extra = s['additionalProperties'];
    if ((typeof extra === 'object' && extra !== null && Object.keys(extra).length > 0) || s['patternProperties'] !== undefined) open = true;
    for (const name of Object.keys(recordProperties(s))) names.add(spelling(name));
    for (const key of ['allOf', 'oneOf', 'anyOf']) for (const part of (Array.isArray(s[key]) ? s[key] : []) as JsonSchema[]) visit(part, depth + 1);
    for (const key of ['then', 'else']) visit(s[key] as JsonSchema, depth + 1);
  };
  visit(schema, 0);
  return open || names.size === 0 ? undefined : names;
}

/** The object schema of a record in an answer's schema: itself, else its first alternative that is a record (not a list or a page). */
function recordIn(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (schema === undefined || typeof schema !== 'object') return undefined;
  const props = recordProperties(schema);
  const isPage = PAGE_RECORDS.some((k) => props[k] !== undefined && factsOf(props[k]!).types.includes('array'));
  if (Object.keys(props).length > 0) return isPage ? undefined : schema;
  for (const key of ['oneOf', 'anyOf']) {
    for (const part of (Array.isArray(schema[key]) ? schema[key] : []) as JsonSchema[]) {
      const found = recordIn(part);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The record schema an operation's own success answers, if its answer is a record. */
function answeredRecord(op: Operation): JsonSchema | undefined {
  const success = op.responses.filter((r) => /^2\d\d$/.test(r.status) && r.schema !== undefined);
  return success.map((r) => recordIn(r.schema)).find((s) => s !== undefined);
}

/** The item reader of a create's record (the GET of its item path), if the contract has one. */
export function itemReaderOf(contract: Contract, create: Operation): { operation: Operation; param: string } | undefined {
  const item = readersOfCreated(contract, create).find((r) => r.role === 'item' && r.param !== undefined);
  return item ? { operation: item.operation, param: item.param! } : undefined;
}

/**
 * The schema of the record a write sets: a create's item reader's, else the record its own answer holds; an
 * update's reader's, else the record its own answer holds, else the one its collection's create answers.
 */
export function writtenRecordSchema(contract: Contract, write: Operation): JsonSchema | undefined {
  if (isCreate(contract, write)) {
    const item = itemReaderOf(contract, write);
    return (item ? recordIn(recordSchema(item.operation)) : undefined) ?? answeredRecord(write);
  }
  const reader = readerFor(contract, write);
  const create = createOf(contract, write);
  return (reader ? recordIn(recordSchema(reader)) : undefined) ?? answeredRecord(write) ?? (create ? answeredRecord(create) : undefined);
}

/** Whether a property names the record the write is about (its path's ids, its own id). */
function namesOwnRecord(write: Operation, name: string): boolean {
  return OWN_ID.test(name) || pathRecordFields(write).has(name);
}

/**
 * The scalar properties a write must not set: the request schema's readOnly ones, and the record's that the
 * request schema does not list (under any spelling) where it lets other properties through.
 */
export function assignable(write: Operation, record: JsonSchema | undefined): Assignable[] {
  const body = write.requestBody;
  if (!body || !/json/i.test(body.contentType)) return [];
  const schema = mergedShape(body.schema);
  if (typeof schema !== 'object' || schema === null) return [];
  const requested = recordProperties(schema);
  const recorded = recordProperties(mergedShape(record ?? {}));
  const out: Assignable[] = [];
  for (const [name, s] of Object.entries(requested)) {
    if (flag(s, 'readOnly') && isScalar(s) && !namesOwnRecord(write, name)) out.push({ name, schemas: [s, ...(recorded[name] !== undefined ? [recorded[name]!] : [])], why: 'read-only' });
  }
  const accepted = acceptedSpellings(schema);
  if (accepted === undefined || schema['additionalProperties'] === false || schema['unevaluatedProperties'] === false) return out;
  for (const [name, s] of Object.entries(recorded)) {
    if (accepted.has(spelling(name)) || namesOwnRecord(write, name) || flag(s, 'writeOnly') || !isScalar(s)) continue;
    out.push({ name, schemas: [s], why: 'not-accepted' });
  }
  return out;
}

/**
 * Whether a write gets the case of its own: an update of a record (PUT or PATCH on an item path) or a create
 * with something it must not set, where no other chain sends it (a PUT with a reader does in its update-persisted
 * chain, a create with readers in its created-readable one).
 */
export function massAssignmentCase(contract: Contract, op: Operation): boolean {
  if (isCreate(contract, op)) return readersOfCreated(contract, op).length === 0 && assignable(op, writtenRecordSchema(contract, op)).length > 0;
  if ((op.method !== 'PUT' && op.method !== 'PATCH') || !op.path.endsWith('}')) return false;
  if (op.method === 'PUT' && readerFor(contract, op)) return false;
  return assignable(op, writtenRecordSchema(contract, op)).length > 0;
}

/**
 * The properties to send a write, each with a distinctive value: `current` is the record as stored now (or as a
 * write without them made it), undefined when the run cannot see it. A value none of the properties can take is
 * left out (an enum or a boolean whose stored value is not known: any of its values may be the server's own).
 */
export function assignedProperties(candidates: Assignable[], current: Record<string, unknown> | undefined, random: Random): AssignedProperty[] {
  const out: AssignedProperty[] = [];
  for (const { name, schemas, why } of candidates) {
    const avoid = current === undefined ? undefined : current[name] === undefined ? [] : [current[name]];
    const value = distinctive(schemas, avoid, random);
    if (value !== undefined) out.push({ name, value, why });
  }
  return out;
}

/**
 * A value every schema accepts that no correct deployment arrives at by itself: neither the default nor what
 * `avoid` holds (the stored value), and for a number not one next to either. undefined when there is none, or
 * when the value would be one of a few (an enum, a boolean) and `avoid` is not known.
 */
export function distinctive(schemas: JsonSchema[], avoid: readonly unknown[] | undefined, random: Random): unknown {
  const main = mergedShape(schemas[0] ?? {});
  if (typeof main !== 'object' || main === null) return undefined;
  const facts = factsOf(main);
  const avoided = [...(avoid ?? []), ...('default' in main ? [main['default']] : [])];
  const fits = (v: unknown) => schemas.every((s) => accepts(s, v) !== false) && !avoided.some((a) => isDeepStrictEqual(a, v));
  if (facts.allowed || facts.primary === 'boolean') {
    if (avoid === undefined) return undefined;
    const choices = (facts.allowed ?? [true, false]).filter((v) => v !== null && typeof v !== 'object' && fits(v));
    return choices.length > 0 ? choices[random.int(0, choices.length - 1)] : undefined;
  }
  if (facts.primary === 'integer' || facts.primary === 'number') return distinctiveNumber(main, avoided, avoid === undefined, fits, random);
  if (facts.primary === 'string') return distinctiveString(main, fits, random);
  return undefined;
}

/**
 * A number within the schema's range, six digits where the range allows (else anywhere in it), none next to a
 * stored value, the default, 0 or 1; a small range gives no distinctive number when the stored value is unknown.
 */
function distinctiveNumber(schema: Record<string, unknown>, avoided: unknown[], unknown: boolean, fits: (v: unknown) => boolean, random: Random): number | undefined {
  const facts = factsOf(schema);
  const range = facts.integer;
  if (!range) return undefined;
  const step = range.step;
  if (unknown && (range.hi - range.lo) / step < 1000) return undefined;
  const near = [0, 1, ...avoided.filter((a): a is number => typeof a === 'number')];
  const lo = Math.max(range.lo, 100_000);
  const hi = Math.min(range.hi, 999_999);
  for (let attempt = 0; attempt < 16; attempt++) {
    const raw = lo <= hi ? random.int(lo, hi) : range.lo + step * random.int(0, Math.floor((range.hi - range.lo) / step));
    const value = Math.min(range.hi, Math.max(range.lo, Math.round(raw / step) * step));
    if (!near.some((n) => Math.abs(n - value) <= 1) && fits(value)) return value;
  }
  return undefined;
}

/** A string of the schema's format, or a fresh token within its lengths; a pattern's own drawn value, when long enough to be distinctive. */
function distinctiveString(schema: Record<string, unknown>, fits: (v: unknown) => boolean, random: Random): string | undefined {
  const facts = factsOf(schema);
  const two = (lo: number, hi: number) => String(random.int(lo, hi)).padStart(2, '0');
  const date = () => `19${two(10, 89)}-${two(1, 12)}-${two(10, 28)}`;
  const byFormat: Record<string, () => string> = {
    uuid: () => random.uuid(),
    'date-time': () => `${date()}T${two(0, 23)}:${two(10, 59)}:${two(10, 59)}Z`,
    date,
    email: () => `ma-${random.word(8)}@example.com`,
    uri: () => `https://example.com/ma-${random.word(8)}`,
    url: () => `https://example.com/ma-${random.word(8)}`,
  };
  let value: unknown;
  if (facts.format !== undefined && byFormat[facts.format]) value = byFormat[facts.format]!();
  else if (facts.format === undefined && facts.pattern === undefined) {
    const length = Math.min(facts.maxLength ?? 11, Math.max(facts.minLength, 11));
    value = length >= 4 ? random.word(length) : undefined;
  } else value = generate(withoutExamples(schema), random);
  return typeof value === 'string' && [...value].length >= 4 && fits(value) ? value : undefined;
}
