import { LosslessNumber, stringify as losslessStringify } from 'lossless-json';
import type { JsonSchema, Operation, ParameterSpec, RequestBodySpec } from '../model.ts';
import { accepts } from './accepts.ts';
import { responseMediaTypes, undeclaredAccept } from './accept-header.ts';
import { tierOf } from './input-tiers.ts';
import type { PositiveRequest } from './arbitraries.ts';
import { boundaryValues } from './coverage.ts';
import { deepNestingItems, valuesAsArrayItem } from './body-shapes.ts';
import { formatRow } from './formats.ts';
import { emptyIsAmbiguous, sendsEmpty } from './empty-values.ts';
import { edges, factsOf, INT64, mergedShape } from './keywords.ts';
import { pathRecordFields } from './relations.ts';
import { beyondInt64Text, isDotSegment, isRawSegment, rawSegments } from './path-classes.ts';
import type { InputLocation } from './input-location.ts';
import type { Random } from './random.ts';
import { coercibleValues, generate, isOmitted, patternValue, UNKNOWN, withoutExamples, wrongKindValues } from './values.ts';

/**
 * The input classes that break servers, as overrides of an operation's positive request: the coverage phase
 * sends each one and judges it as a positive (valid) or as a negative (invalid). Every `valid` is shown, never
 * assumed: a value's validity comes from accepts() (against the parameter's schema, or the whole body), and an
 * item whose validity accepts() cannot decide is left out. Deterministic for a Random seed.
 *
 * Classes and their validity rule ("as judged" = whatever accepts() answers; "kept if" = the item is dropped
 * when accepts() disagrees, so a label never claims what the value is not):
 *
 * Body level (any operation that takes a body), first:
 * - malformed-json: `{"` sent as the JSON media type. Invalid.
 * - empty-body: no body at all. Valid only where the request body is not required.
 * - non-object-body: `[]`, `"conformance"`, `1`, `true` as the whole body (not the positive body's own JSON
 *   kind). Invalid where the schema says so; where it names properties but no type (any JSON kind is valid by
 *   the letter), only the answer's conformance is judged. wrong-type-body: `{}` where the body schema is no
 *   object, the same way.
 * - additional-property: the positive body with one property the schema does not list, where the schema lets
 *   others through (no `additionalProperties: false`). Kept if valid.
 * - null-body: the JSON `null` as the whole body. As judged (valid where the body schema is nullable).
 * - not-utf8: the positive body's JSON with a byte that is not UTF-8 (0x80) in its first string, else in a key,
 *   sent as the JSON media type. RFC 8259 asks UTF-8 of the sender and nothing of the receiver (servers refuse
 *   it or decode leniently), so only the answer's conformance is judged.
 * - undeclared-media-type: the positive body's JSON as text/plain (else application/xml, ...): a media type
 *   no declared one (wildcards included) matches. Invalid.
 * - values-as-array: the positive body's own values as a JSON array, in the schema's property order
 *   (`[5,"x",false]` for `{id, value, done}`; plan/body-shapes.ts): what a decoder building a record from a
 *   sequence takes. Invalid for an object body schema; where the schema names properties but no type, only the
 *   answer is judged.
 * - deep-nesting: JSON nested 5,000 levels deep in a few kilobytes (plan/body-shapes.ts), as the whole body
 *   (`[[[…]]]`) and at each object- or array-typed top-level field (`{"a":{"a":…}}`, `[[[…]]]`), sent as rawBody.
 *   Invalid where the schema makes it so; otherwise only the answer is judged (a recursive parser's stack
 *   overflow is a 5xx or a dropped connection; a depth limit's 4xx is right).
 *
 * Accept (plan/accept-header.ts; every request asks for the declared media types, successes first):
 * - accept-declared: the positive request asking for each type a successful answer declares beyond the first
 *   (valid: an undocumented 406 is an error), and the first must-reject item asking for each type only error
 *   answers declare.
 * - accept-undeclared: the positive request asking for a plain type no answer declares. Its answer alone is judged
 *   (an undocumented 406 is a warning, a 5xx an error).
 * - malformed-content-type: a Content-Type no parser takes as it is (multipart/form-data without a boundary, a
 *   parameter without a value), with the positive body or, where the operation takes none, alone. Its answer
 *   alone is judged (an undocumented 400 or 415 is a warning, a 5xx an error).
 *
 * Form fields and a text body: a form's fields get the classes of a query parameter (their values are text); a
 * text/* body is one value, with the classes of its schema.
 *
 * Per parameter and top-level body field (and field of a one-member envelope object: JSON:API's `data`):
 * - beyond-int64: 2^63, -2^63-1, 2^64, -2^64 for integers. As judged: valid where neither a format nor a bound
 *   limits them, invalid under int32/int64 or min/max. Bodies holding them go as rawBody (lossless-json).
 * - wrong-type: a value of another type (body: wrongTypeValue; path, query, header and cookie: text that no
 *   declared type parses, e.g. "not-a-number" for an integer; none for a string parameter). Kept if invalid.
 * - one-element-array: for a scalar body field, its valid value (the positive one where it has one) as an array of
 *   one (`["a@b.c"]`), which validators coercing types to arrays (ajv's coerceTypes: 'array') unwrap. Kept if
 *   invalid (the wrong-type class's array, under its own name).
 * - bound: each declared bound and its neighbour outside, as plan/keywords.ts edges() lists them
 *   (minimum/maximum, exclusive ones honoured, int32 and int64 limits where no bound is declared,
 *   minLength/maxLength, minItems/maxItems). The edge is kept if valid, the neighbour kept if invalid. Other
 *   edge values of coverage.ts's boundaryValues (0, -1, 2^53-1, the largest double) are here too, as judged.
 * - coercible-type: for a body field, a value lenient parsers coerce to the declared type (true for a number,
 *   1 for a boolean). Kept if invalid.
 * - invalid-format: a string the format rejects ("not-a-uuid", "2026-02-30", ...; plan/formats.ts). Kept if
 *   invalid.
 * - multiple-of: the lowest allowed integer plus one where multipleOf > 1. Kept if invalid.
 * - null: null for a body field. As judged (valid where nullable).
 * - empty-string, unicode: "" (not for a path parameter: it changes the route) and a non-ASCII string (not
 *   for a header). As judged.
 * - Path parameters only (plan/path-classes.ts), their answer alone judged: invalid-percent-encoding (`%ZZ`,
 *   `%C0%AF` overlong UTF-8, `%FF`), encoded-separator (`%2F`, `%3F`, `%23` inside the value), dot-segment (`..%2F`
 *   before it), each sent as it is (rawPathParams); a bare dot segment (`.`, `..`, `%2E%2E`) is never sent, the
 *   URL parser resolves it into another route. A string that takes digits also gets 2^63 as beyond-int64, first.
 * - empty-array: [] for a body field. As judged.
 * - enum: each enum (or const) value. Kept if valid. outside-enum: a value of the same type outside it. Kept if
 *   invalid.
 * - boolean, pattern: true/false; a string matching the pattern. As judged.
 * - no-match-filter: a string query parameter of a GET set to an unlikely value ("zz-nomatch-…", a fresh uuid,
 *   a new pattern match): a read whose filter nothing matches. Kept if valid.
 * - optional-left-out, optional-present: an optional query parameter or body field the positive request has,
 *   left out; or one it lacks, added. As judged (an optional query parameter left out is valid by its
 *   `required: false`; a body field another one depends on is not). Required ones are the negative cases'.
 * - all-at-bound: every numeric body field at its high, then its low end, together; then at opposite ends
 *   (the first high, the next low, and so on, then the other way round). Kept if valid.
 * - random: then, up to `max`, fields drawn afresh from their schema one at a time. Kept if valid.
 *
 * Ordering: one item of each body-level class first (cheap, and they catch the most); then a round robin over
 * the targets (path, query, header and cookie parameters in declaration order, then the body fields in schema
 * order, then the other body-level items) in which each target, at its turn, sends its first item of a class
 * kind not yet sent, else its next item; so a small `max` touches every parameter and as many class kinds as
 * it can. all-at-bound and random come last.
 * Requests identical to an earlier one or to the positive request are left out; the list is cut at `max`.
 */

export type { CoverageRequest } from './coverage-request.ts';
import type { CoverageRequest } from './coverage-request.ts';

export type { PositiveRequest };

type Verdict = boolean | undefined;
type Where = ParameterSpec['in'] | 'body';
/** Validity the item is meant to have: kept only when accepts() agrees ('either': kept as judged). */
type Intent = boolean | 'either';

const ABSENT = Symbol('absent');
type Value = unknown | typeof ABSENT;

interface Candidate {
  value: Value;
  class: string;
  /** The label's note, or one per verdict [valid, invalid]. */
  note: string | [string, string];
  intent: Intent;
  /**
   * Invalid by the description's dialect whatever the validator (JSON Schema 2020-12) says: an integer written 5.0
   * in an OpenAPI 3.0 description, where an integer has no fraction part. Judged as input of its class's tier: its
   * acceptance is lenient. (Every other value is as valid as the validator says: what it takes is no lenient input.)
   */
  asInput?: true;
  /** Only the answer is judged (its status documented, no server error): nothing says how a server must take it. */
  probe?: true;
  /** Only the answer is judged where the validator takes the value beyond the format's own definition (a uuid's URN form). */
  probeWhereValid?: true;
  /** Valid by the description's dialect, whatever the validator says; a refusal is a warning for this reason. */
  validSpelling?: string;
}

/** What the coverage classes take from the description beyond the operation. */
export interface CoverageOptions {
  /**
   * An integer written with a fraction of zero (`2.0`) is an integer: JSON Schema 2020-12, OpenAPI 3.1's dialect
   * (since draft 6). Else (OpenAPI 3.0's dialect) an integer has no fraction part and `2.0` is taken leniently.
   */
  decimalIntegers?: boolean;
}

/** Why the refusal of a `2.0` where the dialect makes it an integer is only a warning. */
const DECIMAL_INTEGER = 'an integer written with a fraction of zero is an integer under JSON Schema 2020-12 (OpenAPI 3.1), a spelling the JSON decoders of .NET and Go refuse';

interface Target {
  where: Where;
  name: string;
  schema: JsonSchema;
  required: boolean;
  /** Whether the positive request has it. */
  present: boolean;
  /** A parameter sent as one JSON text (described by a JSON media type): its values are any JSON, as a body field's. */
  json?: boolean;
  /** A parameter whose empty value a server may read as left out (plan/empty-values.ts). */
  emptyAmbiguous?: Pick<ParameterSpec, 'in' | 'required'>;
  /** A body field named like a path parameter: it names the path's record, so no valid variation of it (but null) is sent. */
  namesPath?: true;
  /** A field of the body's one-member envelope object (`data.id`): not one of the fields all-at-bound moves. */
  nested?: true;
  /** A form field or a text body: its values are text, as a URL parameter's are. */
  text?: true;
  /** What the positive request sends (ABSENT: nothing; undefined: not known here, e.g. a path id filled in later). */
  positiveValue: Value | undefined;
  verdict(value: Value): Verdict;
  request(value: Value): Omit<CoverageRequest, 'label' | 'valid' | 'class'> | undefined;
}

const UNICODE = 'Ünïcødé ✓ 𝔘 中文';
/** The name of a body property no schema lists (the additional-property class). */
const EXTRA_PROPERTY = 'conformanceExtra';
const MALFORMED_JSON = '{"';
const OTHER_MEDIA_TYPES = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream'];
/** Header parameters OpenAPI says are ignored (the engine sets them itself). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** Longest string built for a length. */
const MAX_BUILT_LENGTH = 10_000;
/** The JSON types a one-element array of a valid value is sent for (the one-element-array class). */
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** The coverage phase's requests for one operation: its input classes first, then random variations, at most `max`. */
export function coverageRequests(op: Operation, positive: PositiveRequest, random: Random, max: number, options: CoverageOptions = {}): CoverageRequest[] {
  if (max <= 0) return [];
  const out: CoverageRequest[] = [];
  const targets = targetsOf(op, positive);
  // What the positive request sends is no variation: each target's own value is seen already.
  const seen = new Set<string>(targets.flatMap((t) => (t.positiveValue === undefined ? [] : [targetKey(t, t.positiveValue)])));
  const push = (item: CoverageRequest | undefined, key: string | undefined): boolean => {
    if (!item || key === undefined || out.length >= max || seen.has(key)) return false;
    seen.add(key);
    out.push(item);
    return true;
  };

  const bodyLevel = bodyLevelItems(op, positive);
  for (const item of bodyLevel.first) push(item, wholeKey(item));

  // Candidates are judged only when their turn comes (a small max judges few). The other body-level items take
  // their turns after the fields'.
  const queues: Pending[][] = [
    ...targets.map((t) => pending(t, candidates(t, op, random, options))),
    bodyLevel.later.map((item) => ({ class: item.class, key: wholeKey(item), judge: () => item })),
  ];
  const kinds = new Set(out.map((i) => i.class));
  while (out.length < max && queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      // At its turn a target sends its first item of a class kind not sent yet, else its next one; of two
      // candidates sending the same request, the earlier one (its label says more) goes.
      while (queue.length > 0 && out.length < max) {
        const fresh = Math.max(0, queue.findIndex((p) => !kinds.has(p.class)));
        const at = queue.findIndex((p) => p.key === queue[fresh]?.key);
        const [next] = queue.splice(at, 1);
        const item = next?.judge();
        if (item && push(item, next?.key)) {
          kinds.add(item.class);
          break;
        }
      }
    }
  }

  for (const [item, key] of acceptItems(op, out)) push(item, key);
  for (const [item, key] of malformedContentTypes(op, positive)) push(item, key);
  for (const [item, key] of allAtBound(op, positive, targets, random)) push(item, key);
  for (const [item, key] of randomItems(targets, positive, random, max - out.length)) push(item, key);
  return out;
}

/** A candidate waiting for its turn: its class and request are known, its validity is judged on its turn. */
interface Pending {
  class: string;
  key: string;
  judge(): CoverageRequest | undefined;
}

function pending(target: Target, list: Candidate[]): Pending[] {
  const out: Pending[] = [];
  for (const c of list) {
    out.push({
      class: c.class,
      key: targetKey(target, c.value),
      judge: () => {
        const request = target.request(c.value);
        return request && judged(target, c, request);
      },
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Accept classes

/**
 * The positive request asking for each media type a successful answer declares beyond the first (which every
 * request asks for first); an invalid request of the list asking for each type only error answers declare (a
 * problem type); and the positive request asking for a plain type nobody declared (its answer alone is judged).
 */
function acceptItems(op: Operation, sent: readonly CoverageRequest[]): Array<[CoverageRequest, string]> {
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
function malformedContentTypes(op: Operation, positive: PositiveRequest): Array<[CoverageRequest, string]> {
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

function isJson(contentType: string): boolean {
  return /json/i.test(contentType.split(';')[0] ?? '');
}

/**
 * The body declared as JSON: a JSON media type, or the JSON a range (`*\/*`) stands for where its schema says
 * what the JSON holds (a range with a schema that takes anything takes any bytes: malformed JSON among them).
 */
function jsonBody(op: Operation): RequestBodySpec | undefined {
  return declaredBodies(op).find((b) => isJson(b.contentType) && (b.range === undefined || factsOf(b.schema).types.length > 0 || factsOf(b.schema).hasProperties));
}

function declaredBodies(op: Operation) {
  return op.requestBodies && op.requestBodies.length > 0 ? op.requestBodies : op.requestBody ? [op.requestBody] : [];
}

/** Whether a declared media type (wildcards allowed, parameters ignored) covers a concrete one. */
function mediaMatches(declared: string, concrete: string): boolean {
  const [dt = '', ds = ''] = (declared.split(';')[0] ?? '').trim().toLowerCase().split('/');
  const [ct = '', cs = ''] = concrete.toLowerCase().split('/');
  return (dt === '*' || dt === ct) && (ds === '*' || ds === cs);
}

/** One item of each body-level class (first), and the others. */
function bodyLevelItems(op: Operation, positive: PositiveRequest): { first: CoverageRequest[]; later: CoverageRequest[] } {
  if (!op.requestBody) return { first: [], later: [] };
  const declared = declaredBodies(op);
  const json = jsonBody(op);
  const first: CoverageRequest[] = [];
  const later: CoverageRequest[] = [];
  if (json) first.push({ label: `body = ${MALFORMED_JSON} (malformed JSON)`, valid: false, class: 'malformed-json', rawBody: MALFORMED_JSON, contentType: json.contentType });
  const required = op.requestBody.required;
  first.push({ label: `no body (the body is ${required ? 'required' : 'optional'})`, valid: !required, class: 'empty-body', noBody: true });
  if (json) {
    const bodyFacts = factsOf(mergedShape(json.schema));
    const objectSchema = bodyFacts.types.includes('object') || Object.keys(bodyFacts.properties).length > 0;
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
    const [firstItem, ...rest] = [...wrong, ...untyped];
    if (firstItem) first.push(firstItem);
    // A property the schema does not list, where it lets others through: valid by the letter, and what a strict
    // deserialiser breaks on (a 500 to an unknown field). The first of the later items.
    const extra = withAdditionalProperty(json.schema, positive.body);
    if (extra) later.push({ label: extra.label, valid: true, class: 'additional-property', body: extra.body });
    later.push(...rest);
    const bytes = notUtf8(positive.body);
    if (bytes !== undefined) later.push({ label: 'body with a byte that is not UTF-8 (0x80)', valid: false, judgeAs: 'response', class: 'not-utf8', rawBody: bytes, rawBodyEncoding: 'latin1', contentType: json.contentType });
    const nullVerdict = accepts(json.schema, null);
    // Valid by the letter only where the schema names properties but no type: its answer alone is judged.
    const byLetter = nullVerdict === true && objectSchema && !bodyFacts.types.includes('object') && !bodyFacts.nullable;
    if (nullVerdict !== undefined) later.push({ label: `body = null (${nullVerdict ? (byLetter ? 'the body schema allows it' : 'nullable') : 'not nullable'})`, valid: nullVerdict, class: 'null-body', rawBody: 'null', contentType: json.contentType, ...(byLetter ? { judgeAs: 'response' as const } : {}) });
    // Shapes that break parsers and binders (plan/body-shapes.ts): the body's own values as an array, JSON nested deep.
    const asArray = valuesAsArrayItem(json.schema, json.contentType, positive.body);
    if (asArray) later.push(asArray);
    later.push(...deepNestingItems(json.schema, json.contentType, positive.body));
  }
  const other = OTHER_MEDIA_TYPES.find((t) => !declared.some((b) => mediaMatches(b.contentType, t)));
  if (other) {
    const text = positive.body === undefined ? '{}' : typeof positive.body === 'string' ? positive.body : (losslessStringify(positive.body) ?? '{}');
    first.push({ label: `body as ${other} (a media type the operation does not declare)`, valid: false, class: 'undeclared-media-type', rawBody: text, contentType: other });
  }
  return { first, later };
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
// Targets: the parameters and the top-level body fields

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when the value holds a number JSON.stringify cannot write as sent (beyond 2^53, or `5.0`). */
export function hasBigInt(v: unknown): boolean {
  if (typeof v === 'bigint' || v instanceof LosslessNumber) return true;
  if (Array.isArray(v)) return v.some(hasBigInt);
  return isRecord(v) && Object.values(v).some(hasBigInt);
}

/** A value as URL, header or cookie text (arrays in the simple style). */
function text(v: unknown): string {
  if (Array.isArray(v)) return v.map(text).join(',');
  return typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** A query value the engine serialises as it would the typed one (BigInt as its digits, JSON-safe). */
function queryValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  return Array.isArray(v) ? v.map(queryValue) : v;
}

function targetsOf(op: Operation, positive: PositiveRequest): Target[] {
  const targets: Target[] = [];
  for (const where of ['path', 'query', 'header', 'cookie'] as const) {
    for (const p of op.parameters) {
      if (p.in !== where) continue;
      if (where === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
      targets.push(parameterTarget(p, positive));
    }
  }
  const json = jsonBody(op);
  if (json && isRecord(positive.body)) {
    const body = positive.body;
    const positiveOk = accepts(json.schema, body);
    const bodyFacts = factsOf(mergedShape(json.schema));
    const pathNames = new Set(pathRecordFields(op).keys());
    for (const [name, schema] of Object.entries(bodyFacts.properties)) {
      if (isOmitted(schema)) continue;
      const target = bodyFieldTarget(name, schema, json.schema, json.contentType, body, positiveOk, bodyFacts.required.includes(name));
      targets.push(pathNames.has(name) ? { ...target, namesPath: true } : target);
    }
    // A one-member envelope (JSON:API's `{"data": {"type": …, "id": …, "attributes": {…}}}`): the fields of its
    // object, and of that object's objects (the record's attributes), are the body's fields too.
    const [envelope, ...others] = Object.keys(body);
    const envelopeSchema = envelope === undefined ? undefined : bodyFacts.properties[envelope];
    if (envelope !== undefined && others.length === 0 && envelopeSchema !== undefined && isRecord(body[envelope])) {
      const nestedTargets = (schema: JsonSchema, within: string[], depth: number): void => {
        const inner = factsOf(mergedShape(schema));
        const object = objectAt(body, within);
        for (const [name, field] of Object.entries(inner.properties)) {
          if (isOmitted(field)) continue;
          const target = { ...bodyFieldTarget(name, field, json.schema, json.contentType, body, positiveOk, inner.required.includes(name), false, within), nested: true as const };
          targets.push(depth === 1 && pathNames.has(name) ? { ...target, namesPath: true } : target);
        }
        if (depth > 1) return;
        for (const [name, field] of Object.entries(inner.properties)) if (!isOmitted(field) && isRecord(object[name])) nestedTargets(field, [...within, name], depth + 1);
      };
      nestedTargets(envelopeSchema, [envelope], 1);
    }
    return targets;
  }
  // A form's fields are text, as a query parameter's are: their classes are a query parameter's (a number that is
  // no number, a bound, an enum, a field left out), sent in the form. A file field is left as it is.
  const first = op.requestBody;
  if (first && isForm(first.contentType) && isRecord(positive.body)) {
    const body = positive.body;
    const positiveOk = accepts(first.schema, body);
    const facts = factsOf(mergedShape(first.schema));
    for (const [name, schema] of Object.entries(facts.properties)) {
      if (isOmitted(schema) || isFileField(schema)) continue;
      targets.push({ ...bodyFieldTarget(name, schema, first.schema, first.contentType, body, positiveOk, facts.required.includes(name), true), text: true });
    }
  } else if (first && /^text\//i.test(first.contentType) && typeof positive.body === 'string') {
    // A text body is one value: the classes of its schema (lengths, a pattern, an enum), sent as that text.
    const schema = first.schema;
    targets.push({
      where: 'body',
      name: '',
      schema,
      required: first.required,
      present: true,
      text: true,
      positiveValue: positive.body,
      verdict: (value) => (value === ABSENT ? !first.required : accepts(schema, value)),
      request: (value) => (value === ABSENT ? undefined : { rawBody: text(value), contentType: first.contentType }),
    });
  }
  return targets;
}

function isForm(contentType: string): boolean {
  return /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(contentType);
}

/** A form field that carries a file (binary or base64, a content media type), or an array of them. */
function isFileField(schema: JsonSchema): boolean {
  if (typeof schema !== 'object') return false;
  const facts = factsOf(schema);
  if (facts.format === 'binary' || facts.format === 'base64' || schema['contentMediaType'] !== undefined || schema['contentEncoding'] !== undefined) return true;
  return facts.types.includes('array') && facts.hasItems && isFileField(facts.items);
}

function positiveParameter(p: ParameterSpec, positive: PositiveRequest): Value | undefined {
  switch (p.in) {
    case 'path':
      return positive.pathParams[p.name];
    case 'query':
      return positive.query[p.name] === undefined ? ABSENT : positive.query[p.name];
    case 'header':
      return positive.headers?.[headerName(p.name, positive.headers)];
    case 'cookie':
      return positive.cookies?.[p.name];
  }
}

/** The header's name as the positive request spells it (header names are case-insensitive), else as declared. */
function headerName(name: string, headers: Record<string, string> | undefined): string {
  return Object.keys(headers ?? {}).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
}

function parameterTarget(p: ParameterSpec, positive: PositiveRequest): Target {
  const json = p.contentType !== undefined && isJson(p.contentType);
  return {
    ...(json ? { json } : {}),
    ...(emptyIsAmbiguous(p) ? { emptyAmbiguous: p } : {}),
    where: p.in,
    name: p.name,
    schema: p.schema,
    required: p.required,
    present: p.in === 'query' ? p.name in positive.query : true,
    positiveValue: positiveParameter(p, positive),
    // Parameters are independent of each other: the parameter's own schema decides. A raw segment is no value of it.
    verdict: (value) => (value === ABSENT ? !p.required : isRawSegment(value) ? false : accepts(p.schema, value)),
    request: (value) => {
      switch (p.in) {
        case 'path':
          if (isRawSegment(value)) return { rawPathParams: { [p.name]: value.raw } };
          // A dot segment goes out resolved (another route): not sent.
          return value === ABSENT || isDotSegment(text(value)) ? undefined : { pathParams: { [p.name]: text(value) } };
        case 'query': {
          const { [p.name]: _left, ...rest } = positive.query;
          return { query: value === ABSENT ? rest : { ...positive.query, [p.name]: json ? value : queryValue(value) } };
        }
        case 'header':
          return value === ABSENT ? undefined : { headers: { [headerName(p.name, positive.headers)]: text(value) } };
        case 'cookie':
          return value === ABSENT ? undefined : { cookies: { [p.name]: text(value) } };
      }
    },
  };
}

/** The object at a path of field names inside a body (the body itself for none). */
function objectAt(body: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  return path.reduce<Record<string, unknown>>((o, key) => o[key] as Record<string, unknown>, body);
}

/** The body with the object at the path replaced. */
function withObjectAt(body: Record<string, unknown>, path: readonly string[], object: Record<string, unknown>): Record<string, unknown> {
  const [first, ...rest] = path;
  if (first === undefined) return object;
  return { ...body, [first]: withObjectAt(body[first] as Record<string, unknown>, rest, object) };
}

/** A body field's target; `within`: the path of the object that holds it (the body's one-member envelope, an object of it). */
function bodyFieldTarget(name: string, schema: JsonSchema, bodySchema: JsonSchema, contentType: string, body: Record<string, unknown>, positiveOk: Verdict, required: boolean, asText = false, within: readonly string[] = []): Target {
  const host = objectAt(body, within);
  const variant = (value: Value, sent = false): Record<string, unknown> => {
    let changed: Record<string, unknown>;
    if (value !== ABSENT) changed = { ...host, [name]: sent && asText ? queryValue(value) : value };
    else {
      const { [name]: _left, ...rest } = host;
      changed = rest;
    }
    return withObjectAt(body, within, changed);
  };
  return {
    where: 'body',
    name: [...within, name].join('.'),
    schema,
    required,
    present: Object.hasOwn(host, name),
    positiveValue: Object.hasOwn(host, name) ? host[name] : ABSENT,
    verdict: (value) => {
      // A value its property's schema rejects makes any body holding it invalid (`properties` applies to all).
      if (value !== ABSENT && accepts(schema, value) === false) return false;
      const whole = accepts(bodySchema, variant(value));
      if (whole === true) return true;
      // Invalid only where the positive body was valid: else the rest of the body (a {{template}}) may be why.
      return whole === false && positiveOk === true ? false : undefined;
    },
    request: (value) => {
      const v = variant(value, true);
      return !asText && hasBigInt(v) ? { rawBody: losslessStringify(v) as string, contentType } : { body: v };
    },
  };
}

/** Judges each candidate on the target and builds its request; drops those whose validity is not shown. */
function judged(target: Target, c: Candidate, request: Omit<CoverageRequest, 'label' | 'valid' | 'class'>): CoverageRequest | undefined {
  const verdict = c.validSpelling !== undefined ? true : c.asInput ? false : target.verdict(c.value);
  if (verdict === undefined || (c.intent !== 'either' && c.intent !== verdict)) return undefined;
  // A valid body that names another record than its path contradicts itself: not sent (the invalid ones are). A
  // null names no record.
  if (verdict && target.namesPath && c.value !== null) return undefined;
  const note = typeof c.note === 'string' ? c.note : c.note[verdict ? 0 : 1];
  const where = target.name === '' ? target.where : `${target.where}.${target.name}`;
  const label = c.value === ABSENT ? `${where} left out (${note})` : `${where} = ${show(c.value)} (${note})`;
  const probe = c.probe === true || (verdict && c.probeWhereValid === true);
  return { label, valid: verdict, class: c.class, ...(probe ? { judgeAs: 'response' as const } : {}), ...(c.validSpelling !== undefined ? { refusalMayBeRight: c.validSpelling } : {}), ...request };
}

// ---------------------------------------------------------------------------------------------------------
// The candidate values of one target, in the order the target offers them

function candidates(t: Target, op: Operation, random: Random, options: CoverageOptions): Candidate[] {
  if (typeof t.schema !== 'object') return [];
  // A nullable written `anyOf: [X, {type: 'null'}]` (3.1, FastAPI, Pydantic) gets the classes of X; each value is
  // still judged by the whole schema.
  const schema = nonNullBranch(t.schema);
  const facts = factsOf(schema);
  const types = facts.types;
  // A JSON parameter's values are JSON texts: any JSON value can be sent, as in a body.
  const inUrl = (t.where !== 'body' && !t.json) || t.text === true;
  const jsonValued = !inUrl;
  const list: Candidate[] = [];
  const add = (value: unknown, cls: string, note: Candidate['note'], intent: Intent, asInput?: true, probe?: true) =>
    list.push({ value, class: cls, note, intent, ...(asInput ? { asInput } : {}), ...(probe ? { probe } : {}) });

  const integer = types.includes('integer');
  const beyond = integer ? [2n ** 63n, INT64.min - 1n, 2n ** 64n, -(2n ** 64n)] : [];
  if (beyond[0] !== undefined) add(beyond[0], 'beyond-int64', 'beyond int64', 'either');
  // A string path id a server may cast to a 64-bit integer: 2^63 first, on every method (plan/path-classes.ts).
  const digits = t.where === 'path' && inUrl ? beyondInt64Text(schema) : undefined;
  if (digits !== undefined) add(digits, 'beyond-int64', 'beyond int64, in a string', 'either', undefined, true);
  const item = inUrl && (t.where === 'query' || t.where === 'path') && types.includes('array') && facts.hasItems && typeof facts.items === 'object' ? nonNullBranch(facts.items) : undefined;
  if (item && factsOf(item).types.includes('integer')) add([2n ** 63n], 'beyond-int64', 'an item beyond int64', 'either');

  const declared = article(types.find((x) => x !== 'null') ?? 'value');
  if (inUrl) {
    const wrong = urlWrongType(schema);
    if (wrong !== UNKNOWN) add(wrong, 'wrong-type', `not ${declared}`, false);
  } else {
    // One value of each JSON kind no parser turns into the declared type (must be refused), then the scalars
    // lenient parsers coerce (accepting them is lenient: plan/input-tiers.ts).
    const like = t.positiveValue === ABSENT ? undefined : t.positiveValue;
    // A scalar body field's valid value as a one-element array (`["a@b.c"]`) is a class of its own: validators that
    // coerce types to arrays (ajv's coerceTypes: 'array') unwrap it.
    const scalar = t.where === 'body' && types.some((x) => x !== 'null') && types.every((x) => SCALAR_TYPES.has(x));
    for (const v of wrongKindValues(schema, like)) {
      if (scalar && Array.isArray(v) && v.length === 1 && accepts(schema, v[0]) === true) add(v, 'one-element-array', `a one-element array, not ${declared}`, false);
      else add(v, 'wrong-type', `${kindName(v)}, not ${declared}`, false);
    }
    for (const v of coercibleValues(schema, like)) add(v, 'coercible-type', `${kindName(v)}, not ${declared}`, false);
    const decimal = integerAsDecimal(facts, like);
    if (decimal && t.where === 'body') {
      if (options.decimalIntegers) list.push({ value: decimal, class: 'integer-as-decimal', note: 'an integer written with a fraction', intent: true, validSpelling: DECIMAL_INTEGER });
      else add(decimal, 'integer-as-decimal', 'an integer written with a fraction', false, true);
    }
  }

  // A string the format refuses, then values close to valid ones (a date-time for a date, a uuid one digit short),
  // then other spellings of a valid value, judged by the validator as every value is: one it refuses (a uuid without
  // hyphens, in braces) is lenient input; one it takes is valid (an upper-case uuid: RFC 9562 reads UUIDs
  // case-insensitively), its refusal judged as any valid value's; one it takes beyond the format's own definition
  // (a uuid's URN form) has only its answer judged.
  const format = facts.format;
  const row = types.includes('string') ? formatRow(format) : undefined;
  if (row?.invalid !== undefined) add(row.invalid, 'invalid-format', `invalid ${format}`, false);
  for (const near of row?.near ?? []) add(near, 'invalid-format', `invalid ${format}, close to a valid one`, false);
  if (row?.respell) {
    const valid = typeof t.positiveValue === 'string' && accepts(schema, t.positiveValue) === true ? t.positiveValue : row.value(random);
    for (const other of row.respell(valid)) {
      if (other === valid) continue;
      const beyond = row.beyondDefinition?.(other) === true;
      const taken = beyond ? `another spelling of a ${format} the validator takes, beyond the format's definition` : `another spelling of a ${format}, valid`;
      list.push({ value: other, class: 'format-respelling', note: [taken, `another spelling of a ${format}`], intent: 'either', ...(beyond ? { probeWhereValid: true as const } : {}) });
    }
  }

  const bounds = boundCandidates(schema, t.where, random);
  for (const b of bounds.filter((b) => b.intent === false)) list.push(b);
  if (!inUrl) add(null, 'null', ['nullable', 'not nullable'], 'either');
  for (const b of bounds.filter((b) => b.intent !== false)) list.push(b);

  const stringy = types.includes('string');
  if (stringy && t.where !== 'path') add('', 'empty-string', 'empty string', 'either');
  if (stringy && t.where !== 'header') add(unicodeOf(schema), 'unicode', 'non-ASCII', 'either');

  const allowed = facts.allowed;
  if (allowed) {
    const outside = outsideEnum(allowed);
    if (outside !== undefined) add(outside, 'outside-enum', 'not in the enum', false);
    for (const v of allowed) if (!(inUrl && v === null)) add(v, 'enum', 'enum value', true);
  }
  if (types.includes('array') && jsonValued) add([], 'empty-array', 'empty array', 'either');
  for (const v of beyond.slice(1)) add(v, 'beyond-int64', v > 0n ? 'beyond int64' : 'below int64', 'either');

  // In the URL, a string nothing constrains is read by many servers as a name or a number: a sort or filter field,
  // a record they look up, a number they cast. A plain word and numeric strings (0, beyond int64) reach those
  // readings, which a run's own tagged values (`conf-…`) and random text miss; only the answer is judged.
  if ((t.where === 'query' || t.where === 'path') && inUrl) {
    const probes = identifierProbes(schema, random);
    for (const v of probes) add(v, 'identifier-like', 'a name or a number in a string', 'either', undefined, true);
  }
  // Segments sent as they are, already encoded: percent-encoding edges, encoded separators (plan/path-classes.ts).
  if (t.where === 'path' && inUrl) for (const r of rawSegments()) add(r.value, r.class, r.note, 'either', undefined, true);
  // An array in the URL (a list of ids, of names) gets the classes of its items that break servers, as a list of one.
  if (item) {
    for (const v of identifierProbes(item, random)) add([v], 'identifier-like', 'a name or a number in a string', 'either', undefined, true);
    if (factsOf(item).types.includes('integer')) add([INT64.min - 1n], 'beyond-int64', 'an item below int64', 'either');
  }

  if (op.method === 'GET' && t.where === 'query' && !allowed) {
    const unlikely = unlikelyValue(schema, random);
    if (unlikely !== undefined) add(unlikely, 'no-match-filter', 'a filter nothing matches', true);
  }

  // The edge values coverage.ts has always sent (0, -1, 2^53-1, the largest double, true/false, a pattern match).
  if (!allowed) {
    for (const v of boundaryValues(schema, random)) {
      if (v === null || (inUrl && (v === '' || (Array.isArray(v) && v.length === 0)))) continue;
      if (t.where === 'header' && typeof v === 'string' && /[^\x20-\x7e]/.test(v)) continue;
      add(v, ...leftoverClass(v, schema));
    }
  }

  if ((t.where === 'body' || t.where === 'query') && !t.required) {
    // Left out where the positive request has it (judged: a dependentRequired may still need it), else added.
    if (t.present) add(ABSENT, 'optional-left-out', ['optional', 'optional, but another field needs it'], 'either');
    else {
      const drawn = generate(withoutExamples(schema), random);
      if (drawn !== UNKNOWN && drawn !== undefined) add(drawn, 'optional-present', 'optional, present', 'either');
    }
  }
  // An empty value in the query, a header or a cookie: sent only as a probe that must be refused, where both of its
  // readings (left out, or the empty string) are invalid: for a required parameter (plan/empty-values.ts).
  const ambiguous = t.emptyAmbiguous;
  if (!ambiguous) return list;
  const out = list.flatMap((c) => (!sendsEmpty(c.value, ambiguous) ? [c] : t.required && c.intent !== true ? [{ ...c, intent: false as const }] : []));
  // An optional query parameter sent empty where its schema refuses "": invalid by OpenAPI (no allowEmptyValue),
  // read as left out by many binders, so accepting it is lenient (plan/input-tiers.ts).
  if (t.where === 'query' && !t.required && accepts(schema, '') === false) out.push({ value: '', class: 'empty-optional-query', note: 'an empty value', intent: false });
  return out;
}

/**
 * A plain word of letters and numeric strings (0, beyond int64) for a string schema that takes them (no format,
 * pattern or enum; within its lengths); none for any other schema.
 */
function identifierProbes(schema: JsonSchema, random: Random): string[] {
  if (typeof schema !== 'object') return [];
  const facts = factsOf(schema);
  if (!facts.types.includes('string') || facts.format !== undefined || facts.pattern !== undefined || facts.allowed !== undefined) return [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const word = Array.from({ length: 6 }, () => letters[random.int(0, letters.length - 1)]).join('');
  return [word, '0', String(-(2n ** 63n) - 1n) + '0'].filter((v) => accepts(schema, v) === true);
}

/** The one branch of an `anyOf`/`oneOf` beside `{type: 'null'}` (a nullable in the 3.1 spelling), else the schema. */
function nonNullBranch(schema: Record<string, unknown>): Record<string, unknown> {
  const branches = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (!Array.isArray(branches) || schema['discriminator'] !== undefined) return schema;
  const others = branches.filter((b) => !(typeof b === 'object' && factsOf(b).types.length === 1 && factsOf(b).types[0] === 'null'));
  const only = others[0];
  return others.length === 1 && others.length < branches.length && typeof only === 'object' ? only : schema;
}

function kindName(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'bigint') return 'a number';
  if (typeof v === 'string') return /^-?\d+(\.\d+)?$/.test(v) ? 'a numeric string' : 'a string';
  return article(typeof v);
}

/**
 * An integer field's value written with a fraction of zero (`5.0`): JSON Schema's integer, which .NET's and Go's
 * decoders refuse. Sent as exact JSON text; undefined where the field is not an integer-only one.
 */
function integerAsDecimal(facts: ReturnType<typeof factsOf>, like: unknown): LosslessNumber | undefined {
  if (!facts.types.includes('integer') || facts.types.includes('number')) return undefined;
  const n = typeof like === 'number' && Number.isSafeInteger(like) ? like : typeof like === 'bigint' ? like : facts.integer?.lo === undefined ? undefined : Math.max(facts.integer.lo, Math.min(facts.integer.hi, 1));
  return n === undefined ? undefined : new LosslessNumber(`${n}.0`);
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** The class of one of boundaryValues' values. */
function leftoverClass(v: unknown, schema: Record<string, unknown>): [string, string, Intent] {
  if (typeof v === 'boolean') return ['boolean', 'boolean', 'either'];
  if (typeof v === 'number') return ['bound', v === 0 ? 'zero' : v === -1 ? 'negative' : 'edge of the allowed range', 'either'];
  if (typeof v === 'string') {
    if (v === '') return ['empty-string', 'empty string', 'either'];
    if (factsOf(schema).pattern !== undefined) return ['pattern', 'matches the pattern', 'either'];
    return /[^\x20-\x7e]/.test(v) ? ['unicode', 'non-ASCII', 'either'] : ['bound', 'length at a bound', 'either'];
  }
  return Array.isArray(v) && v.length === 0 ? ['empty-array', 'empty array', 'either'] : ['bound', 'edge', 'either'];
}


function unicodeOf(schema: Record<string, unknown>): string {
  const { minLength: min, maxLength: max } = factsOf(schema);
  const chars = [...UNICODE];
  const n = Math.max(Math.min(min, MAX_BUILT_LENGTH), Math.min(max ?? chars.length, chars.length));
  return Array.from({ length: n }, (_, i) => chars[i % chars.length]).join('');
}

/** Text no declared type of a URL, header or cookie parameter parses; UNKNOWN for a string one. */
function urlWrongType(schema: Record<string, unknown>): unknown {
  const facts = factsOf(schema);
  const types = facts.types.filter((t) => t !== 'null');
  if (types.length === 0 || types.includes('string')) return UNKNOWN;
  if (types.every((t) => t === 'integer' || t === 'number')) return 'not-a-number';
  if (types.every((t) => t === 'boolean')) return 'not-a-boolean';
  if (types.every((t) => t === 'array')) {
    const inner = facts.hasItems && typeof facts.items === 'object' ? urlWrongType(facts.items) : UNKNOWN;
    return inner === UNKNOWN ? UNKNOWN : [inner];
  }
  return UNKNOWN;
}

/** A value of the enum's own type that is not in it; undefined for a mixed enum. */
function outsideEnum(allowed: unknown[]): unknown {
  const values = allowed.filter((v) => v !== null);
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) {
    let candidate = 'zz-not-in-enum';
    while (values.includes(candidate)) candidate += '-x';
    return candidate;
  }
  if (values.every((v) => typeof v === 'number')) return Math.max(...(values as number[])) + 1;
  if (values.every((v) => typeof v === 'boolean')) return values.includes(true) ? (values.includes(false) ? undefined : false) : true;
  return undefined;
}

/**
 * A schema-valid string a filter is unlikely to match: nothing in the collection has it. Numbers are left
 * alone (a numeric query parameter is as often paging as a filter, and its edges are the bound class's).
 */
function unlikelyValue(schema: Record<string, unknown>, random: Random): unknown {
  const facts = factsOf(schema);
  if (facts.types.includes('string')) {
    if (facts.format !== undefined) {
      const v = generate(withoutExamples(schema), random);
      return v === UNKNOWN ? undefined : v;
    }
    const min = facts.minLength;
    const max = facts.maxLength ?? 64;
    if (facts.pattern !== undefined) return patternValue(facts.pattern, random, min, max);
    const word = `zz-nomatch-${random.word(8)}`;
    return word.length > max ? word.slice(0, max) : word.padEnd(min, 'z');
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Bounds: each declared bound (valid) and its neighbour outside (invalid)

function boundCandidates(schema: Record<string, unknown>, where: Where, random: Random): Candidate[] {
  const out: Candidate[] = [];
  const facts = factsOf(schema);
  const pattern = facts.pattern;
  // A string of n characters (matching the pattern where one is declared; a plain one for the outside edges).
  const ofLength = (n: number) => (pattern !== undefined ? patternValue(pattern, random, n, n) : 'x'.repeat(n));
  const ofItems = (n: number): unknown[] | undefined => {
    const values = Array.from({ length: n }, () => generate(facts.items, random));
    return values.includes(UNKNOWN) || values.includes(undefined) ? undefined : values;
  };
  // An empty array, or an empty path segment, has no form in a URL: it is not sent there.
  const sendable = (n: number) => n > 0 || where === 'body';
  for (const e of edges(facts)) {
    let value: unknown;
    const n = Number(e.value);
    if (e.of === 'value') value = e.value;
    else if (e.of === 'length') {
      if (where === 'path' && n === 0) continue;
      value = e.inside ? ofLength(n) : (ofLength(n) ?? 'x'.repeat(n));
    } else value = sendable(n) ? ofItems(n) : undefined;
    if (value === undefined) continue;
    out.push({ value, class: e.class, note: e.note, intent: e.inside });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// After the classes: every numeric body field at one end together, then random variations

function allAtBound(op: Operation, positive: PositiveRequest, targets: Target[], random: Random): Array<[CoverageRequest, string]> {
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

function randomItems(targets: Target[], positive: PositiveRequest, random: Random, wanted: number): Array<[CoverageRequest, string]> {
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

// ---------------------------------------------------------------------------------------------------------

/**
 * Two items with the same key send the same request. A target's items differ from the positive request in one
 * value, keyed by that value as sent (URL text; a body field's JSON); an item replacing the whole body is keyed
 * by what it sends instead (they cannot meet a target's key).
 */
function targetKey(t: Target, value: Value): string {
  if (value === ABSENT) return `${t.where}\u0000${t.name}\u0000absent`;
  if (isRawSegment(value)) return `${t.where}\u0000${t.name}\u0000raw\u0000${value.raw}`;
  if (t.where === 'body') return `body\u0000${t.name}\u0000${valueKey(value)}`;
  const items = Array.isArray(value) ? value : [value];
  return `${t.where}\u0000${t.name}\u0000${items.map((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))).join('\u0000')}`;
}

function valueKey(value: unknown): string {
  if (value === ABSENT) return '\u0000absent';
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { '\u0000bigint': v.toString() } : v));
  }
}

function wholeKey(item: Pick<CoverageRequest, 'body' | 'rawBody' | 'contentType' | 'noBody'>): string {
  return `whole\u0000${item.noBody ? 'none' : item.rawBody !== undefined ? `${item.contentType}\u0000${item.rawBody}` : valueKey(item.body)}`;
}

function show(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (isRawSegment(value)) return value.raw;
  if (typeof value === 'string' && value.length > 12 && /^(.)\1*$/su.test(value)) return `"${[...value][0]}" × ${[...value].length}`;
  if (Array.isArray(value) && value.length > 3) return `[${value.length} items]`;
  const shown = losslessStringify(value) ?? String(value);
  return shown.length > 40 ? `${shown.slice(0, 37)}...` : shown;
}
