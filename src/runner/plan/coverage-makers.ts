/**
 * The makers of a target's candidate values (plan/coverage-classes.ts orders them; plan/coverage-table.ts names the
 * maker of each class): each maker offers the values of its class or classes for one parameter or body field,
 * with the validity they are meant to have; and the value helpers they share.
 */
import { LosslessNumber, stringify as losslessStringify } from 'lossless-json';
import type { JsonSchema, Operation } from '../model.ts';
import { accepts } from './accepts.ts';
import { boundaryValues } from './coverage.ts';
import type { CoverageRequest } from './coverage-request.ts';
import { ABSENT, type Target, type Value, type Where } from './coverage-targets.ts';
import { sendsEmpty } from './empty-values.ts';
import { formatRow } from './formats.ts';
import { edges, factsOf, INT64 } from './keywords.ts';
import { beyondInt64Text, isRawSegment, rawSegments } from './path-classes.ts';
import type { Random } from './random.ts';
import { coercibleValues, generate, patternValue, UNKNOWN, withoutExamples, wrongKindValues } from './values.ts';

/** Validity the item is meant to have: kept only when accepts() agrees ('either': kept as judged). */
export type Intent = boolean | 'either';

/** One value a maker offers for a target, with its class, its label's note and the validity it is meant to have. */
export interface Candidate {
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

const UNICODE = 'Ünïcødé ✓ 𝔘 中文';
/** Longest string built for a length. */
const MAX_BUILT_LENGTH = 10_000;
/** The JSON types a one-element array of a valid value is sent for (the one-element-array class). */
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** Judges each candidate on the target and builds its request; drops those whose validity is not shown. */
export function judged(target: Target, c: Candidate, request: Omit<CoverageRequest, 'label' | 'valid' | 'class'>): CoverageRequest | undefined {
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

/** What every maker of a target's candidates reads: the target, its schema's facts, where its values go. */
export interface FieldContext {
  t: Target;
  op: Operation;
  random: Random;
  options: CoverageOptions;
  /** The target's schema, the one branch beside `{type: 'null'}` of a 3.1 nullable (nonNullBranch). */
  schema: Record<string, unknown>;
  facts: ReturnType<typeof factsOf>;
  types: string[];
  /** Sent as URL, header or cookie text (a form field, a text body too); else any JSON value can be sent. */
  inUrl: boolean;
  jsonValued: boolean;
  /** The items' schema of an array in the query or the path. */
  item: Record<string, unknown> | undefined;
  /** The declared type, with its article ("an integer"). */
  declared: string;
}

export function fieldContext(t: Target, op: Operation, random: Random, options: CoverageOptions): FieldContext | undefined {
  if (typeof t.schema !== 'object') return undefined;
  // A nullable written `anyOf: [X, {type: 'null'}]` (3.1, FastAPI, Pydantic) gets the classes of X; each value is
  // still judged by the whole schema.
  const schema = nonNullBranch(t.schema);
  const facts = factsOf(schema);
  const types = facts.types;
  // A JSON parameter's values are JSON texts: any JSON value can be sent, as in a body.
  const inUrl = (t.where !== 'body' && !t.json) || t.text === true;
  const item = inUrl && (t.where === 'query' || t.where === 'path') && types.includes('array') && facts.hasItems && typeof facts.items === 'object' ? nonNullBranch(facts.items) : undefined;
  const declared = article(types.find((x) => x !== 'null') ?? 'value');
  return { t, op, random, options, schema, facts, types, inUrl, jsonValued: !inUrl, item, declared };
}

function candidate(value: unknown, cls: string, note: Candidate['note'], intent: Intent, asInput?: true, probe?: true): Candidate {
  return { value, class: cls, note, intent, ...(asInput ? { asInput } : {}), ...(probe ? { probe } : {}) };
}

/** The integers beyond int64 an integer target gets (2^63 first). */
function beyondInt64(types: readonly string[]): bigint[] {
  return types.includes('integer') ? [2n ** 63n, INT64.min - 1n, 2n ** 64n, -(2n ** 64n)] : [];
}

/** beyond-int64, first: 2^63 for an integer; in a string for a path id that takes digits; as an array item in the URL. */
export function beyondInt64First(c: FieldContext): Candidate[] {
  const { t, inUrl, schema, item } = c;
  const list: Candidate[] = [];
  const beyond = beyondInt64(c.types);
  if (beyond[0] !== undefined) list.push(candidate(beyond[0], 'beyond-int64', 'beyond int64', 'either'));
  // A string path id a server may cast to a 64-bit integer: 2^63 first, on every method (plan/path-classes.ts).
  const digits = t.where === 'path' && inUrl ? beyondInt64Text(schema) : undefined;
  if (digits !== undefined) list.push(candidate(digits, 'beyond-int64', 'beyond int64, in a string', 'either', undefined, true));
  if (item && factsOf(item).types.includes('integer')) list.push(candidate([2n ** 63n], 'beyond-int64', 'an item beyond int64', 'either'));
  return list;
}

/** beyond-int64, the others: -2^63-1, 2^64, -2^64. */
export function beyondInt64Rest(c: FieldContext): Candidate[] {
  return beyondInt64(c.types).slice(1).map((v) => candidate(v, 'beyond-int64', v > 0n ? 'beyond int64' : 'below int64', 'either'));
}

/**
 * wrong-type: text no declared type parses (URL), else one value of each JSON kind no parser turns into the
 * declared type (must be refused); one-element-array: a scalar body field's valid value as an array of one.
 */
export function wrongTypes(c: FieldContext): Candidate[] {
  const { t, schema, types, declared } = c;
  const list: Candidate[] = [];
  if (c.inUrl) {
    const wrong = urlWrongType(schema);
    if (wrong !== UNKNOWN) list.push(candidate(wrong, 'wrong-type', `not ${declared}`, false));
    return list;
  }
  const like = t.positiveValue === ABSENT ? undefined : t.positiveValue;
  // A scalar body field's valid value as a one-element array (`["a@b.c"]`) is a class of its own: validators that
  // coerce types to arrays (ajv's coerceTypes: 'array') unwrap it.
  const scalar = t.where === 'body' && types.some((x) => x !== 'null') && types.every((x) => SCALAR_TYPES.has(x));
  for (const v of wrongKindValues(schema, like)) {
    if (scalar && Array.isArray(v) && v.length === 1 && accepts(schema, v[0]) === true) list.push(candidate(v, 'one-element-array', `a one-element array, not ${declared}`, false));
    else list.push(candidate(v, 'wrong-type', `${kindName(v)}, not ${declared}`, false));
  }
  return list;
}

/** coercible-type: the scalars lenient parsers coerce (accepting them is lenient: plan/input-tiers.ts); JSON values only. */
export function coercibleTypes(c: FieldContext): Candidate[] {
  if (c.inUrl) return [];
  const like = c.t.positiveValue === ABSENT ? undefined : c.t.positiveValue;
  return coercibleValues(c.schema, like).map((v) => candidate(v, 'coercible-type', `${kindName(v)}, not ${c.declared}`, false));
}

/** integer-as-decimal: an integer body field's value written `5.0` (valid under decimalIntegers, else input taken leniently). */
export function decimalIntegers(c: FieldContext): Candidate[] {
  if (c.inUrl) return [];
  const like = c.t.positiveValue === ABSENT ? undefined : c.t.positiveValue;
  const decimal = integerAsDecimal(c.facts, like);
  if (!decimal || c.t.where !== 'body') return [];
  if (c.options.decimalIntegers) return [{ value: decimal, class: 'integer-as-decimal', note: 'an integer written with a fraction', intent: true, validSpelling: DECIMAL_INTEGER }];
  return [candidate(decimal, 'integer-as-decimal', 'an integer written with a fraction', false, true)];
}

/** invalid-format: a string the format refuses, then values close to valid ones (a date-time for a date, a uuid one digit short). */
export function invalidFormats(c: FieldContext): Candidate[] {
  const format = c.facts.format;
  const row = c.types.includes('string') ? formatRow(format) : undefined;
  const list: Candidate[] = [];
  if (row?.invalid !== undefined) list.push(candidate(row.invalid, 'invalid-format', `invalid ${format}`, false));
  for (const near of row?.near ?? []) list.push(candidate(near, 'invalid-format', `invalid ${format}, close to a valid one`, false));
  return list;
}

/**
 * format-respelling: other spellings of a valid value, judged by the validator as every value is: one it refuses (a
 * uuid without hyphens, in braces) is lenient input; one it takes is valid (an upper-case uuid: RFC 9562 reads UUIDs
 * case-insensitively), its refusal judged as any valid value's; one it takes beyond the format's own definition
 * (a uuid's URN form) has only its answer judged.
 */
export function formatRespellings(c: FieldContext): Candidate[] {
  const { t, schema } = c;
  const format = c.facts.format;
  const row = c.types.includes('string') ? formatRow(format) : undefined;
  const list: Candidate[] = [];
  if (row?.respell) {
    const valid = typeof t.positiveValue === 'string' && accepts(schema, t.positiveValue) === true ? t.positiveValue : row.value(c.random);
    for (const other of row.respell(valid)) {
      if (other === valid) continue;
      const beyond = row.beyondDefinition?.(other) === true;
      const taken = beyond ? `another spelling of a ${format} the validator takes, beyond the format's definition` : `another spelling of a ${format}, valid`;
      list.push({ value: other, class: 'format-respelling', note: [taken, `another spelling of a ${format}`], intent: 'either', ...(beyond ? { probeWhereValid: true as const } : {}) });
    }
  }
  return list;
}

/** null: for a JSON value. */
export function nullValue(c: FieldContext): Candidate[] {
  return c.inUrl ? [] : [candidate(null, 'null', ['nullable', 'not nullable'], 'either')];
}

/** empty-string: "" for a string (not in a path: it changes the route). */
export function emptyString(c: FieldContext): Candidate[] {
  return c.types.includes('string') && c.t.where !== 'path' ? [candidate('', 'empty-string', 'empty string', 'either')] : [];
}

/** unicode: a non-ASCII string (not in a header). */
export function unicodeValue(c: FieldContext): Candidate[] {
  return c.types.includes('string') && c.t.where !== 'header' ? [candidate(unicodeOf(c.schema), 'unicode', 'non-ASCII', 'either')] : [];
}

/** outside-enum: a value of the enum's type outside it. */
export function outsideEnumValue(c: FieldContext): Candidate[] {
  const allowed = c.facts.allowed;
  const outside = allowed ? outsideEnum(allowed) : undefined;
  return outside !== undefined ? [candidate(outside, 'outside-enum', 'not in the enum', false)] : [];
}

/** enum: each enum (or const) value (no null in the URL). */
export function enumValues(c: FieldContext): Candidate[] {
  return (c.facts.allowed ?? []).filter((v) => !(c.inUrl && v === null)).map((v) => candidate(v, 'enum', 'enum value', true));
}

/** empty-array: [] for a JSON array. */
export function emptyArray(c: FieldContext): Candidate[] {
  return c.types.includes('array') && c.jsonValued ? [candidate([], 'empty-array', 'empty array', 'either')] : [];
}

/**
 * identifier-like: in the URL, a string nothing constrains is read by many servers as a name or a number: a sort or
 * filter field, a record they look up, a number they cast. A plain word and numeric strings (0, beyond int64) reach
 * those readings, which a run's own tagged values (`conf-…`) and random text miss; only the answer is judged.
 */
export function identifierLike(c: FieldContext): Candidate[] {
  if (!((c.t.where === 'query' || c.t.where === 'path') && c.inUrl)) return [];
  return identifierProbes(c.schema, c.random).map((v) => candidate(v, 'identifier-like', 'a name or a number in a string', 'either', undefined, true));
}

/** Segments sent as they are, already encoded: percent-encoding edges, encoded separators (plan/path-classes.ts). */
export function pathSegments(c: FieldContext): Candidate[] {
  if (!(c.t.where === 'path' && c.inUrl)) return [];
  return rawSegments().map((r) => candidate(r.value, r.class, r.note, 'either', undefined, true));
}

/** An array in the URL (a list of ids, of names) gets the classes of its items that break servers, as a list of one. */
export function arrayItemProbes(c: FieldContext): Candidate[] {
  const item = c.item;
  if (!item) return [];
  const list = identifierProbes(item, c.random).map((v) => candidate([v], 'identifier-like', 'a name or a number in a string', 'either', undefined, true));
  if (factsOf(item).types.includes('integer')) list.push(candidate([INT64.min - 1n], 'beyond-int64', 'an item below int64', 'either'));
  return list;
}

/** no-match-filter: a string query parameter of a GET (no enum) set to a value nothing matches. */
export function noMatchFilter(c: FieldContext): Candidate[] {
  if (!(c.op.method === 'GET' && c.t.where === 'query' && !c.facts.allowed)) return [];
  const unlikely = unlikelyValue(c.schema, c.random);
  return unlikely !== undefined ? [candidate(unlikely, 'no-match-filter', 'a filter nothing matches', true)] : [];
}

/** The edge values coverage.ts has always sent (0, -1, 2^53-1, the largest double, true/false, a pattern match). */
export function edgeValues(c: FieldContext): Candidate[] {
  const { t, schema, inUrl } = c;
  const list: Candidate[] = [];
  if (c.facts.allowed) return list;
  for (const v of boundaryValues(schema, c.random)) {
    if (v === null || (inUrl && (v === '' || (Array.isArray(v) && v.length === 0)))) continue;
    if (t.where === 'header' && typeof v === 'string' && /[^\x20-\x7e]/.test(v)) continue;
    list.push(candidate(v, ...leftoverClass(v, schema)));
  }
  return list;
}

/** optional-left-out, optional-present: an optional query parameter or body field left out where the positive request has it, else added. */
export function optionalPresence(c: FieldContext): Candidate[] {
  const { t } = c;
  if (!((t.where === 'body' || t.where === 'query') && !t.required)) return [];
  // Left out where the positive request has it (judged: a dependentRequired may still need it), else added.
  if (t.present) return [candidate(ABSENT, 'optional-left-out', ['optional', 'optional, but another field needs it'], 'either')];
  const drawn = generate(withoutExamples(c.schema), c.random);
  return drawn !== UNKNOWN && drawn !== undefined ? [candidate(drawn, 'optional-present', 'optional, present', 'either')] : [];
}

/**
 * An empty value in the query, a header or a cookie: sent only as a probe that must be refused, where both of its
 * readings (left out, or the empty string) are invalid: for a required parameter (plan/empty-values.ts); and
 * empty-optional-query.
 */
export function withEmptyValues(c: FieldContext, list: Candidate[]): Candidate[] {
  const { t } = c;
  const ambiguous = t.emptyAmbiguous;
  if (!ambiguous) return list;
  const out = list.flatMap((x) => (!sendsEmpty(x.value, ambiguous) ? [x] : t.required && x.intent !== true ? [{ ...x, intent: false as const }] : []));
  // An optional query parameter sent empty where its schema refuses "": invalid by OpenAPI (no allowEmptyValue),
  // read as left out by many binders, so accepting it is lenient (plan/input-tiers.ts).
  if (t.where === 'query' && !t.required && accepts(c.schema, '') === false) out.push({ value: '', class: 'empty-optional-query', note: 'an empty value', intent: false });
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Value helpers

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

export function boundCandidates(schema: Record<string, unknown>, where: Where, random: Random): Candidate[] {
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

function show(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (isRawSegment(value)) return value.raw;
  if (typeof value === 'string' && value.length > 12 && /^(.)\1*$/su.test(value)) return `"${[...value][0]}" × ${[...value].length}`;
  if (Array.isArray(value) && value.length > 3) return `[${value.length} items]`;
  const shown = losslessStringify(value) ?? String(value);
  return shown.length > 40 ? `${shown.slice(0, 37)}...` : shown;
}
