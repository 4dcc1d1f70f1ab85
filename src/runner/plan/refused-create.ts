/**
 * A refused create leaves nothing behind (WFC 104): which creates the case is about, and the request it sends. A
 * valid body carries a unique marker in one free-text property and is made surely invalid by one must-reject change
 * of another property (a required one left out, else a JSON kind no parser coerces: plan/input-tiers.ts); after the
 * refusal the reads that would show a stored record look for the marker (execute/phases/refused-create.ts). A PUT
 * that creates the record its path names needs no marker: its id is the one the client chose.
 * Derived from the contract only; pure.
 */
import type { Contract, JsonSchema, Operation } from '../model.ts';
import { accepts } from './accepts.ts';
import { factsOf, mergedShape } from './keywords.ts';
import type { InputClass } from './input-tiers.ts';
import { listSchema, namesRecord, readersOfCreated } from './relations.ts';
import type { Random } from './random.ts';
import { createsItself, readerFor } from './resources.ts';
import { absentValue, isOmitted, wrongKindValues } from './values.ts';

/** The case name of the refused create (a lifecycle case of the create). */
export const REFUSED_CREATE_CASE = 'lifecycle: refused create leaves nothing';

/** The reads that would show a record a create stored: its collection's list, its read by id (and the id's parameter). */
export interface RefusedCreateReads {
  list?: Operation;
  item?: { operation: Operation; param: string };
  /** A PUT that creates the record its path names: the id is the client's, in this path parameter. */
  putParam?: string;
}

/**
 * The reads of a create that would show what it stored: a POST that makes records of a collection (its list, its
 * read by id), or a PUT that creates the record its path names (the GET of the same path). Undefined for any other
 * operation, and for a create without a JSON object body (nothing to mark).
 */
export function refusedCreateReads(contract: Contract, op: Operation): RefusedCreateReads | undefined {
  if (!op.requestBody || !/json/i.test(op.requestBody.contentType)) return undefined;
  if (op.method === 'PUT') {
    const param = /\{([^{}]+)\}$/.exec(op.path)?.[1];
    const reader = param !== undefined && createsItself(contract, op, param) ? readerFor(contract, op) : undefined;
    return reader && param ? { item: { operation: reader, param }, putParam: param } : undefined;
  }
  if (op.method !== 'POST') return undefined;
  const readers = readersOfCreated(contract, op);
  const list = readers.find((r) => r.role === 'list')?.operation;
  const item = readers.find((r) => r.role === 'item' && r.param !== undefined);
  if (!list && !item) return undefined;
  return { ...(list ? { list } : {}), ...(item ? { item: { operation: item.operation, param: item.param! } } : {}) };
}

/** The marker a refused create's body carries: unique to the seed and the operation. */
export function refusedMarker(random: Random): string {
  return `refused-${random.uuid().slice(0, 8)}`;
}

/** A refused create's body: the marker in `field` (none for a PUT whose id marks it), and the one change that makes it invalid. */
export interface RefusedBody {
  body: Record<string, unknown>;
  field?: string;
  /** What was made invalid, in words ("sequenceNumber left out", "name as an array"). */
  change: string;
  inputClass: InputClass;
}

/**
 * The valid body with the marker in its first free-text property (a string whose schema takes the marker: no
 * enum, format or reference; pattern and lengths allowing it), required ones first, and one other property made
 * invalid: a required one left out, else one sent as a JSON kind no parser coerces. Undefined when no property
 * takes the marker (and `marker` is required), or no other one can be made invalid so that the schema refuses it.
 */
export function refusedBody(op: Operation, valid: unknown, marker: string, needsMarker = true): RefusedBody | undefined {
  if (!op.requestBody || typeof valid !== 'object' || valid === null || Array.isArray(valid)) return undefined;
  const schema = op.requestBody.schema;
  const facts = factsOf(mergedShape(schema));
  const required = new Set(facts.required);
  const names = Object.keys(facts.properties).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const field = names.find((name) => takesMarker(name, facts.properties[name]!, marker));
  if (field === undefined && needsMarker) return undefined;
  const marked: Record<string, unknown> = { ...(valid as Record<string, unknown>), ...(field !== undefined ? { [field]: marker } : {}) };
  for (const candidate of brokenBodies(marked, facts.properties, facts.required, field)) {
    if (accepts(schema, candidate.body) === false) return { ...candidate, ...(field !== undefined ? { field } : {}) };
  }
  return undefined;
}

/** A property that takes the marker as free text: a declared string, no listed values, format or reference, the marker valid for it. */
function takesMarker(name: string, schema: JsonSchema, marker: string): boolean {
  const facts = factsOf(schema);
  if (isOmitted(schema) || namesRecord(name) || !facts.types.includes('string')) return false;
  return facts.allowed === undefined && facts.format === undefined && accepts(schema, marker) === true;
}

/** The marked body with one other property made invalid, in the order they are tried: required ones left out, then wrong kinds. */
function* brokenBodies(marked: Record<string, unknown>, properties: Record<string, JsonSchema>, required: string[], field: string | undefined): Generator<Omit<RefusedBody, 'field'>> {
  for (const name of required) {
    if (name === field || !(name in marked)) continue;
    const { [name]: _left, ...rest } = marked;
    yield { body: rest, change: `${name} left out`, inputClass: 'missing-required' };
  }
  for (const [name, schema] of Object.entries(properties)) {
    if (name === field || isOmitted(schema)) continue;
    const [wrong] = wrongKindValues(schema, marked[name]);
    if (wrong !== undefined) yield { body: { ...marked, [name]: wrong }, change: `${name} as ${Array.isArray(wrong) ? 'an array' : typeof wrong === 'object' ? 'an object' : `a ${typeof wrong}`}`, inputClass: 'wrong-type' };
  }
}

/**
 * The id a PUT that creates its record is sent with: the marker where the parameter takes free text, a fresh uuid
 * for a uuid, else a value valid for the parameter that names no record (plan/values.ts absentValue).
 */
export function wouldBeId(op: Operation, param: string, marker: string, random: Random): string | undefined {
  const schema = op.parameters.find((p) => p.in === 'path' && p.name === param)?.schema ?? { type: 'string' };
  const facts = factsOf(schema);
  if (facts.format === 'uuid') return random.uuid();
  if (facts.types.includes('string') && facts.allowed === undefined && facts.format === undefined && accepts(schema, marker) === true) return marker;
  return absentValue(schema, random);
}

/** Query parameter names that set how many records a page of a list holds. */
const PAGE_SIZE = /^(limit|pages?[-_]?size|per[-_]?page|size|top|max[-_]?results)$/i;

/**
 * The query that asks a list for its largest first page: its page-size parameter at the maximum the contract
 * declares. Nothing where it declares none (the deployment's own default then: often the whole list, and a
 * size of the tool's choosing may cut it shorter), or where the list takes no page size.
 */
export function largestPage(list: Operation): Record<string, number> {
  if (listSchema(list) === undefined) return {};
  const param = list.parameters.find((p) => p.in === 'query' && PAGE_SIZE.test(p.name) && factsOf(p.schema).integer !== undefined && factsOf(p.schema).bounds.max !== undefined);
  const size = param ? factsOf(param.schema).integer?.hi : undefined;
  return param && size !== undefined && accepts(param.schema, size) === true ? { [param.name]: size } : {};
}

/** A marker of the real one's shape, to tell at plan time whether a body can carry one. */
const PLAN_MARKER = 'refused-00000000';

/** True when the operation gets a refused-create case: a create whose records a read shows, with a body that can be marked and made invalid. */
export function plansRefusedCreate(contract: Contract, op: Operation, body: unknown): boolean {
  const reads = refusedCreateReads(contract, op);
  return reads !== undefined && refusedBody(op, body, PLAN_MARKER, reads.putParam === undefined) !== undefined;
}
