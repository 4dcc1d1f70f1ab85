/**
 * The makers of the coverage classes that vary a whole request (plan/coverage-classes.ts orders them;
 * plan/coverage-table.ts names the maker of each class): the body as a whole, the Accept and Content-Type headers,
 * and the closing items (every number at a bound together, random variations).
 */
import { stringify as losslessStringify } from 'lossless-json';
import type { JsonSchema, Operation, RequestBodySpec } from '../model.ts';
import { accepts } from './accepts.ts';
import { responseMediaTypes, undeclaredAccept } from './accept-header.ts';
import type { PositiveRequest } from './arbitraries.ts';
import { boundaryValues } from './coverage.ts';
import { judged } from './coverage-makers.ts';
import type { CoverageRequest } from './coverage-request.ts';
import { declaredBodies, isRecord, jsonBody, type Target, targetKey, valueKey, wholeKey } from './coverage-targets.ts';
import { tierOf } from './input-tiers.ts';
import { factsOf, mergedShape } from './keywords.ts';
import type { Random } from './random.ts';
import { generate, UNKNOWN, withoutExamples } from './values.ts';

/** The name of a body property no schema lists (the additional-property class). */
const EXTRA_PROPERTY = 'conformanceExtra';
const MALFORMED_JSON = '{"';
const OTHER_MEDIA_TYPES = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream'];

// ---------------------------------------------------------------------------------------------------------
// Accept classes

/**
 * The positive request asking for each media type a successful answer declares beyond the first (which every
 * request asks for first); an invalid request of the list asking for each type only error answers declare (a
 * problem type); and the positive request asking for a plain type nobody declared (its answer alone is judged).
 */
export function acceptItems(op: Operation, sent: readonly CoverageRequest[]): Array<[CoverageRequest, string]> {
  const { success, other } = responseMediaTypes(op);
  const out: Array<[CoverageRequest, string]> = [];
  const ask = (type: string) => ({ headers: { accept: type } });
  for (const type of success.slice(1)) out.push([{ label: `Accept: ${type} (a media type the successful answer declares)`, valid: true, class: 'accept-declared', ...ask(type) }, `accept\u0000${type}`]);
  const refused = sent.find((i) => !i.valid && i.judgeAs === undefined && tierOf(i.class) === 'must-reject' && i.headers === undefined);
  if (refused) {
    for (const type of other) {
      out.push([{ ...refused, label: `${refused.label}, Accept: ${type} (a media type an error answer declares)`, headers: { accept: type } }, `accept\u0000${type}\u0000${refused.label}`]);
    }
  }
  const undeclared = undeclaredAccept(op);
  if (undeclared) out.push([{ label: `Accept: ${undeclared} (a media type no answer declares)`, valid: true, judgeAs: 'response', class: 'accept-undeclared', ...ask(undeclared) }, `accept\u0000${undeclared}`]);
  return out;
}

/**
 * A Content-Type header no parser can take as it is: a multipart type without its boundary, a parameter without
 * a value; with the positive body, or alone where the operation takes none. Its answer alone is judged (a 5xx
 * is a finding; an undocumented 400 or 415 a warning).
 */
export function malformedContentTypes(op: Operation, positive: PositiveRequest): Array<[CoverageRequest, string]> {
  const item = (label: string, contentType: string): CoverageRequest => {
    const base = { label: `Content-Type: ${contentType} (${label})`, valid: false, judgeAs: 'response' as const, class: 'malformed-content-type' };
    if (!op.requestBody) return { ...base, headers: { 'content-type': contentType } };
    const body = typeof positive.body === 'string' ? positive.body : positive.body === undefined ? '' : (losslessStringify(positive.body) ?? '');
    return { ...base, rawBody: body, contentType };
  };
  const declared = (op.requestBody?.contentType.split(';')[0] ?? 'application/json').trim();
  const out: CoverageRequest[] = [item('a multipart type without its boundary', 'multipart/form-data')];
  if (op.requestBody) out.push(item('a parameter without a value', `${declared}; charset`));
  return out.map((i) => [i, `content-type\u0000${i.label}`]);
}

// ---------------------------------------------------------------------------------------------------------
// Body-level classes

/** Whether a declared media type (wildcards allowed, parameters ignored) covers a concrete one. */
function mediaMatches(declared: string, concrete: string): boolean {
  const [dt = '', ds = ''] = (declared.split(';')[0] ?? '').trim().toLowerCase().split('/');
  const [ct = '', cs = ''] = concrete.toLowerCase().split('/');
  return (dt === '*' || dt === ct) && (ds === '*' || ds === cs);
}

/** malformed-json: `{"` sent as the JSON media type. */
export function malformedJson(json: RequestBodySpec): CoverageRequest[] {
  return [{ label: `body = ${MALFORMED_JSON} (malformed JSON)`, valid: false, class: 'malformed-json', rawBody: MALFORMED_JSON, contentType: json.contentType }];
}

/** empty-body: no body at all, valid only where the body is not required. */
export function emptyBody(body: RequestBodySpec): CoverageRequest[] {
  const required = body.required;
  return [{ label: `no body (the body is ${required ? 'required' : 'optional'})`, valid: !required, class: 'empty-body', noBody: true }];
}

/** The body schema's facts, and whether it describes an object (a type, or properties named). */
function bodyShape(json: RequestBodySpec): { bodyFacts: ReturnType<typeof factsOf>; objectSchema: boolean } {
  const bodyFacts = factsOf(mergedShape(json.schema));
  return { bodyFacts, objectSchema: bodyFacts.types.includes('object') || Object.keys(bodyFacts.properties).length > 0 };
}

/** non-object-body, wrong-type-body: whole bodies of another JSON kind than the positive one's, the invalid ones first. */
export function wrongKindBodies(json: RequestBodySpec, positive: PositiveRequest): CoverageRequest[] {
  const { objectSchema } = bodyShape(json);
  const values: unknown[] = objectSchema ? [[], 'conformance', 1, true] : [{}, [], 'conformance', 1, true];
  const wrong: CoverageRequest[] = [];
  const untyped: CoverageRequest[] = [];
  for (const v of values) {
    if (jsonKind(v) === jsonKind(positive.body)) continue;
    const verdict = accepts(json.schema, v);
    if (verdict === undefined) continue;
    const text = losslessStringify(v) as string;
    const kind = jsonKind(v);
    const what = kind === 'object' ? 'an object' : `not an object: ${kind === 'array' ? 'an' : 'a'} ${kind}`;
    const item = { rawBody: text, contentType: json.contentType, class: kind === 'object' ? 'wrong-type-body' : 'non-object-body' };
    if (verdict === false) wrong.push({ ...item, label: `body = ${text} (${what})`, valid: false });
    // A schema that names properties but no type lets any JSON kind through: nothing says how the server
    // must take the value, but it answers something, and that answer must be one the contract documents.
    else untyped.push({ ...item, label: `body = ${text} (${what}; the body schema allows it)`, valid: true, judgeAs: 'response' });
  }
  return [...wrong, ...untyped];
}

/**
 * additional-property: a property the schema does not list, where it lets others through: valid by the letter, and
 * what a strict deserialiser breaks on (a 500 to an unknown field).
 */
export function additionalProperty(json: RequestBodySpec, positive: PositiveRequest): CoverageRequest[] {
  const extra = withAdditionalProperty(json.schema, positive.body);
  return extra ? [{ label: extra.label, valid: true, class: 'additional-property', body: extra.body }] : [];
}

/** not-utf8: the positive body's JSON with a byte that is not UTF-8; only its answer is judged. */
export function notUtf8Body(json: RequestBodySpec, positive: PositiveRequest): CoverageRequest[] {
  const bytes = notUtf8(positive.body);
  return bytes !== undefined ? [{ label: 'body with a byte that is not UTF-8 (0x80)', valid: false, judgeAs: 'response', class: 'not-utf8', rawBody: bytes, rawBodyEncoding: 'latin1', contentType: json.contentType }] : [];
}

/** null-body: the JSON `null` as the whole body, as judged. */
export function nullBody(json: RequestBodySpec): CoverageRequest[] {
  const { bodyFacts, objectSchema } = bodyShape(json);
  const nullVerdict = accepts(json.schema, null);
  // Valid by the letter only where the schema names properties but no type: its answer alone is judged.
  const byLetter = nullVerdict === true && objectSchema && !bodyFacts.types.includes('object') && !bodyFacts.nullable;
  if (nullVerdict === undefined) return [];
  return [{ label: `body = null (${nullVerdict ? (byLetter ? 'the body schema allows it' : 'nullable') : 'not nullable'})`, valid: nullVerdict, class: 'null-body', rawBody: 'null', contentType: json.contentType, ...(byLetter ? { judgeAs: 'response' as const } : {}) }];
}

/** undeclared-media-type: the positive body as a media type no declared one (wildcards included) matches. */
export function undeclaredMediaType(op: Operation, positive: PositiveRequest): CoverageRequest[] {
  const declared = declaredBodies(op);
  const other = OTHER_MEDIA_TYPES.find((t) => !declared.some((b) => mediaMatches(b.contentType, t)));
  if (!other) return [];
  const text = positive.body === undefined ? '{}' : typeof positive.body === 'string' ? positive.body : (losslessStringify(positive.body) ?? '{}');
  return [{ label: `body as ${other} (a media type the operation does not declare)`, valid: false, class: 'undeclared-media-type', rawBody: text, contentType: other }];
}

/**
 * The body with one property its schema does not list, when the schema lets it through (valid by the letter);
 * undefined when the body is no object or the schema refuses it.
 */
export function withAdditionalProperty(schema: JsonSchema, body: unknown): { body: Record<string, unknown>; label: string } | undefined {
  if (!isRecord(body) || Object.hasOwn(body, EXTRA_PROPERTY)) return undefined;
  const extended = { ...body, [EXTRA_PROPERTY]: 'conformance' };
  if (accepts(schema, extended) !== true) return undefined;
  return { body: extended, label: `body.${EXTRA_PROPERTY} = "conformance" (not in the schema, which allows others)` };
}

/** A character no generated body holds, whose UTF-8 bytes become the single byte 0x80. */
const MARK = '\uE000';

/** The body's JSON as bytes (one per character) with 0x80 in its first string (depth first), else in a new first key. */
function notUtf8(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  let marked = false;
  const mark = (v: unknown): unknown => {
    if (marked) return v;
    if (typeof v === 'string') {
      marked = true;
      return `${MARK}${v}`;
    }
    if (Array.isArray(v)) return v.map(mark);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mark(x)]));
    return v;
  };
  let value = mark(body);
  if (!marked) {
    if (!isRecord(value)) return undefined;
    value = { [MARK]: 0, ...value };
  }
  const text = (losslessStringify(value) as string | undefined) ?? '';
  return Buffer.from(text, 'utf8').toString('latin1').replace('\xee\x80\x80', '\x80');
}

function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'bigint' ? 'number' : typeof v;
}

// ---------------------------------------------------------------------------------------------------------
// After the classes: every numeric body field at one end together, then random variations

export function allAtBound(op: Operation, positive: PositiveRequest, targets: Target[], random: Random): Array<[CoverageRequest, string]> {
  const fields = targets.filter((t) => t.where === 'body' && !t.namesPath && !t.nested);
  if (fields.length < 2 || !isRecord(positive.body)) return [];
  const json = jsonBody(op);
  if (!json) return [];
  const highs: Record<string, number> = {};
  const lows: Record<string, number> = {};
  for (const t of fields) {
    const numbers = boundaryValues(t.schema, random).filter((v): v is number => typeof v === 'number');
    if (numbers.length === 0) continue;
    highs[t.name] = Math.max(...numbers);
    lows[t.name] = Math.min(...numbers);
  }
  const names = Object.keys(highs);
  if (names.length < 2) return [];
  const out: Array<[CoverageRequest, string]> = [];
  // Opposite ends: a difference or a quotient overflows where a sum does not.
  const alternate = (startHigh: boolean) => Object.fromEntries(names.map((n, i) => [n, (i % 2 === 0) === startHigh ? highs[n] : lows[n]])) as Record<string, number>;
  const ends = [['at its high end', highs], ['at its low end', lows], ['at opposite ends, the first high', alternate(true)], ['at opposite ends, the first low', alternate(false)]] as const;
  for (const [end, values] of ends) {
    const body = { ...positive.body, ...values };
    // Where only one field moves, it is the same request as that field's own item.
    const moved = fields.filter((t) => t.name in values && valueKey(values[t.name]) !== valueKey(t.positiveValue));
    if (moved.length === 0 || accepts(json.schema, body) !== true) continue;
    const key = moved.length === 1 ? targetKey(moved[0] as Target, values[(moved[0] as Target).name]) : wholeKey({ body });
    out.push([{ label: `every number ${end} (${names.join(', ')})`, valid: true, class: 'all-at-bound', body }, key]);
  }
  return out;
}

export function randomItems(targets: Target[], positive: PositiveRequest, random: Random, wanted: number): Array<[CoverageRequest, string]> {
  // Path parameters name the record; a body field holding a {{template}} refers to one the run made.
  const eligible = targets.filter((t) => t.where !== 'path' && !(t.where === 'body' && isRecord(positive.body) && JSON.stringify(positive.body[t.name] ?? null).includes('{{')));
  const out: Array<[CoverageRequest, string]> = [];
  if (wanted <= 0 || eligible.length === 0) return out;
  const attempts = Math.min(wanted * 3, wanted + eligible.length * 3);
  for (let i = 0; out.length < wanted * 2 && i < attempts; i++) {
    const t = eligible[i % eligible.length] as Target;
    if (typeof t.schema !== 'object') continue;
    const value = generate(withoutExamples(t.schema), random);
    if (value === UNKNOWN || value === undefined) continue;
    const request = t.request(value);
    const item = request && judged(t, { value, class: 'random', note: 'random', intent: true }, request);
    if (item) out.push([item, targetKey(t, value)]);
  }
  return out;
}
