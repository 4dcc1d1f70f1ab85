import type { JsonSchema } from '../model.ts';
import RandExp from 'randexp';
import { formatRow } from './formats.ts';
import { distinctValues, factsOf, INT32, mergeSchemas } from './keywords.ts';
import type { Random } from './random.ts';
import { kindTier } from './input-tiers.ts';
import { namedValue } from './named-values.ts';

export const INT32_MAX = INT32.max;

/** Marker for "no value can be built without inventing a type" (an unconstrained schema). */
export const UNKNOWN = Symbol('unknown');
export type Generated = unknown | typeof UNKNOWN;

/** How deep generation follows nested (and recursive) schemas before it stops adding optional parts. */
export const MAX_DEPTH = 5;

/** What the value is for: a request leaves out readOnly properties (they are the server's to set). */
export interface GenerateOptions {
  /** Leave out readOnly properties (requests); a response expectation leaves out writeOnly ones. */
  omit?: 'readOnly' | 'writeOnly';
}

/** The schema without its examples and default: what a value drawn afresh from it, not the documented one, needs. */
export function withoutExamples(schema: Record<string, unknown>): Record<string, unknown> {
  const { examples: _e, example: _x, default: _d, ...rest } = schema;
  return rest;
}

/**
 * Builds a value that honours a schema: examples first, then const/enum/default, then type, format and bounds
 * (inclusive and exclusive, multipleOf, lengths, patterns). A schema that takes any value gives a string, one
 * whose type the contract says is not shown (`x-type: not shown`) UNKNOWN: no value is invented for it. oneOf/anyOf with a discriminator build the first mapped subtype with
 * its discriminator value set; recursion stops at MAX_DEPTH (optional parts left out, arrays empty).
 */
export function generate(schema: JsonSchema, random: Random, depth = 0, options: GenerateOptions = { omit: 'readOnly' }): Generated {
  if (typeof schema === 'boolean') return schema ? anyValue({}) : undefined;
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0];
  const facts = factsOf(schema);
  if ('const' in schema) return schema['const'];
  if (facts.allowed) return facts.allowed.find((v) => v !== null) ?? null;
  if ('default' in schema && schema['default'] !== null) return schema['default'];
  if (depth > MAX_DEPTH * 4) return UNKNOWN;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      // Sibling annotations (a title, a description) say nothing of the value: the branch alone is drawn.
      const base = withoutKey(schema, key);
      if (annotationsOnly(base)) for (const k of Object.keys(base)) delete base[k];
      for (const branch of orderBranches(branches as JsonSchema[])) {
        if (isNullSchema(branch)) continue;
        const merged = Object.keys(base).length > 0 ? { allOf: [base, branch] } : branch;
        const value = generate(merged, random, depth + 1, options);
        if (value !== UNKNOWN) return withDiscriminator(schema, branch, value);
      }
      return UNKNOWN;
    }
  }
  if (Array.isArray(schema['allOf'])) {
    const rest = withoutKey(schema, 'allOf');
    // A scalar or array built of plain parts is drawn from the parts merged (each part's bound holds); objects
    // are put together from each part's value, so that a part's example still shows.
    const all = [...(schema['allOf'] as JsonSchema[]), rest];
    if (all.every(isPlain)) {
      const merged = mergeSchemas(all as Array<Record<string, unknown>>);
      const kind = factsOf(merged).primary;
      if (kind !== undefined && kind !== 'object') return generate(merged, random, depth + 1, options);
    }
    // A part of annotations only takes any value: it adds none to the others'.
    const parts = (schema['allOf'] as JsonSchema[]).filter((s) => !(typeof s === 'object' && annotationsOnly(s) && Object.keys(s).length > 0)).map((s) => generate(s, random, depth + 1, options));
    if (Object.keys(rest).length > 0 && !annotationsOnly(rest)) parts.push(generate(rest, random, depth + 1, options));
    if (parts.length === 0) return 'conformance'; // annotations all through: any value
    const known = parts.filter((m) => m !== UNKNOWN && m !== undefined);
    if (known.length > 0 && known.every((m) => typeof m === 'object' && m !== null && !Array.isArray(m))) {
      return Object.assign({}, ...(known as object[]));
    }
    return known[0] ?? UNKNOWN;
  }
  const type = facts.primary ?? (schema['properties'] ? 'object' : undefined);
  switch (type) {
    case 'string':
      return stringValue(schema, random);
    case 'integer':
      return integerValue(schema, random);
    case 'number':
      return numberValue(schema, random);
    case 'boolean':
      return true;
    case 'array': {
      const min = facts.minItems;
      const count = depth >= MAX_DEPTH ? min : Math.max(1, min);
      const values = Array.from({ length: count }, () => generate(facts.items, random, depth + 1, options));
      if (values.includes(UNKNOWN)) return min > 0 ? UNKNOWN : [];
      return facts.uniqueItems ? uniqueOrMinimal(values, min, facts.items) : values;
    }
    case 'object':
      return objectValue(schema, random, depth, options);
    default:
      return anyValue(schema);
  }
}

/** Keywords that say nothing of a value's type. */
const ANNOTATIONS = new Set(['description', 'title', 'deprecated', 'readOnly', 'writeOnly', 'nullable', 'example', 'examples', '$comment', 'externalDocs', 'xml']);

/**
 * A value of a schema that lets any value through (`{}`, annotations only): a string, valid by the letter; none
 * where the contract says the type is not shown (`x-type: not shown`): no value is invented for it.
 */
function anyValue(schema: Record<string, unknown>): Generated {
  if (schema['x-type'] === 'not shown') return UNKNOWN;
  return Object.keys(schema).every((k) => ANNOTATIONS.has(k) || k.startsWith('x-')) ? 'conformance' : UNKNOWN;
}

/** A schema of annotations (and x- extensions) only, which lets any value through; not one that says its type is not shown. */
function annotationsOnly(schema: Record<string, unknown>): boolean {
  return schema['x-type'] !== 'not shown' && Object.keys(schema).every((k) => ANNOTATIONS.has(k) || k.startsWith('x-'));
}

function withoutKey(schema: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _removed, discriminator: _d, ...rest } = schema;
  return rest;
}

function isNullSchema(schema: JsonSchema): boolean {
  const types = factsOf(schema).types;
  return types.length === 1 && types[0] === 'null';
}

/** Branches with a declared type first, so that an unconstrained branch does not win over a concrete one. */
function orderBranches(branches: JsonSchema[]): JsonSchema[] {
  return [...branches].sort((a, b) => Number(factsOf(b).types.length > 0 || hasProps(b)) - Number(factsOf(a).types.length > 0 || hasProps(a)));
}

function hasProps(schema: JsonSchema): boolean {
  return typeof schema === 'object' && (schema['properties'] !== undefined || Array.isArray(schema['allOf']));
}

/** Sets the discriminator property to the value that selects the branch (its mapping key, else its title). */
export function withDiscriminator(schema: Record<string, unknown>, branch: JsonSchema, value: unknown): unknown {
  const discriminator = schema['discriminator'];
  if (typeof discriminator !== 'object' || discriminator === null || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const property = (discriminator as { propertyName?: unknown }).propertyName;
  if (typeof property !== 'string') return value;
  const allowed = discriminatorValues(branch, property);
  if (allowed.length > 0) return { ...value, [property]: allowed[0] };
  const mapping = (discriminator as { mapping?: Record<string, unknown> }).mapping ?? {};
  const title = typeof branch === 'object' ? branch['title'] : undefined;
  const key = Object.entries(mapping).find(([, ref]) => typeof ref === 'string' && typeof title === 'string' && ref.endsWith(`/${title}`))?.[0];
  const current = (value as Record<string, unknown>)[property];
  return { ...value, [property]: key ?? (typeof title === 'string' ? title : current) };
}

function discriminatorValues(branch: JsonSchema, property: string): unknown[] {
  const prop = factsOf(branch).properties[property];
  if (typeof prop === 'object') {
    if ('const' in prop) return [prop['const']];
    if (Array.isArray(prop['enum'])) return prop['enum'];
  }
  if (typeof branch === 'object' && Array.isArray(branch['allOf'])) {
    for (const part of branch['allOf'] as JsonSchema[]) {
      const found = discriminatorValues(part, property);
      if (found.length > 0) return found;
    }
  }
  return [];
}

/** A part of allOf that holds no composition of its own. */
function isPlain(schema: JsonSchema): boolean {
  return typeof schema === 'object' && schema !== null && !schema['oneOf'] && !schema['anyOf'] && !schema['allOf'];
}

/**
 * Items that are unique: as drawn, else the distinct values the item schema allows (its enum or const, the two
 * booleans) up to the count, else as few as minItems lets the array hold; UNKNOWN when minItems asks for more
 * distinct values than the item schema allows.
 */
function uniqueOrMinimal(values: unknown[], min: number, items: JsonSchema): unknown[] | typeof UNKNOWN {
  const seen = new Set(values.map((v) => JSON.stringify(v)));
  if (seen.size === values.length) return values;
  const choices = distinctValues(factsOf(items));
  if (choices) {
    const distinct = [...new Map(choices.map((v) => [JSON.stringify(v), v])).values()].slice(0, values.length);
    return distinct.length >= min ? distinct : UNKNOWN;
  }
  return values.slice(0, Math.max(min, 1));
}

function objectValue(schema: Record<string, unknown>, random: Random, depth: number, options: GenerateOptions): Generated {
  const facts = factsOf(schema);
  const required = new Set(facts.required);
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(facts.properties)) {
    if (isOmitted(prop, options)) continue;
    // Past the depth bound only what is required is built, so recursive schemas end.
    if (depth >= MAX_DEPTH && !required.has(name)) continue;
    const value = namedValue(name, prop, random) ?? generate(prop, random, depth + 1, options);
    if (value === UNKNOWN) {
      if (required.has(name)) return UNKNOWN;
      continue;
    }
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** True for a property the request (or response expectation) leaves out: readOnly in requests. */
export function isOmitted(schema: JsonSchema, options: GenerateOptions = { omit: 'readOnly' }): boolean {
  if (typeof schema !== 'object' || !options.omit) return false;
  if (schema[options.omit] === true) return true;
  return Array.isArray(schema['allOf']) && (schema['allOf'] as JsonSchema[]).some((s) => typeof s === 'object' && s[options.omit as string] === true);
}

function integerValue(schema: Record<string, unknown>, random: Random): Generated {
  const range = factsOf(schema).integer;
  if (!range) return UNKNOWN;
  const lo = Math.max(range.lo, range.hi < 1 ? range.lo : Math.min(1, range.hi));
  const hi = Math.min(range.hi, Math.max(lo, lo + 999));
  const value = random.int(lo, hi);
  return Math.ceil(value / range.step) * range.step <= range.hi ? Math.ceil(value / range.step) * range.step : range.lo;
}

function numberValue(schema: Record<string, unknown>, random: Random): Generated {
  const facts = factsOf(schema);
  const m = facts.multipleOf;
  if (m !== undefined) return integerValue({ ...schema, multipleOf: Number.isInteger(m) ? m : 1 }, random);
  const b = facts.bounds;
  const lo = b.min ?? Math.min(1, b.max ?? 1) - (b.max !== undefined && b.max < 1 ? 1000 : 0);
  const hi = b.max ?? lo + 1000;
  if (lo > hi || (lo === hi && (b.exclusiveMin || b.exclusiveMax))) return UNKNOWN;
  // Strictly inside when a bound is exclusive: the midpoint of a non-empty open interval is always allowed.
  if (b.exclusiveMin || b.exclusiveMax) return lo + (hi - lo) / 2;
  return Math.round((lo + random.next() * (hi - lo)) * 100) / 100;
}

function stringValue(schema: Record<string, unknown>, random: Random): Generated {
  const facts = factsOf(schema);
  const min = facts.minLength;
  const max = facts.maxLength ?? Math.max(min, 24);
  const byFormat = formatRow(facts.format)?.value(random);
  if (byFormat !== undefined) return byFormat;
  if (facts.pattern !== undefined) {
    const matched = patternValue(facts.pattern, random, min, max);
    // No value is invented that the pattern may reject: the case says the body cannot be built.
    return matched ?? UNKNOWN;
  }
  const word = `conf-${random.word(8)}`;
  return word.length > max ? word.slice(0, Math.max(min, max)) : word.padEnd(min, 'x');
}

/**
 * A string matching an ECMA-262 pattern (unicode-aware), drawn with randexp and confirmed with RegExp; undefined
 * when the pattern does not compile or no candidate matches within the length bounds (never throws).
 */
export function patternValue(pattern: string, random: Random, min = 0, max = Number.MAX_SAFE_INTEGER): string | undefined {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch {
    try {
      regex = new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
  // randexp knows no Unicode property escapes: draw from ASCII stand-ins, then confirm with the real pattern.
  // Large explicit repetition bounds (`.{0,262144}`) are narrowed, since randexp draws every repetition one
  // character range at a time; a narrower bound matches a subset of the same strings.
  const drawable = narrowRepetitions(asciiStandIns(pattern), Math.max(32, Math.min(min, 4096)), Math.min(min, 4096));
  let source = regex;
  if (drawable !== pattern) {
    try {
      source = new RegExp(drawable);
    } catch {
      return undefined;
    }
  }
  const fits = (value: string | undefined): value is string => value !== undefined && regex.test(value) && [...value].length >= min && [...value].length <= max;
  // Open repetitions (`+`, `*`) are drawn up to 8 times, or as often as the least length needs.
  const reach = Math.min(max, Math.max(8, Math.min(min, MAX_REACH)));
  for (let attempt = 0; attempt < 10; attempt++) {
    const value = draw(source, reach, (a, b) => random.int(a, b));
    if (value === null) return undefined;
    if (fits(value)) return value;
  }
  // A length the draws rarely hit (a phone of 20 digits and more, the length just past a maxLength): the value in
  // which every repetition runs to its limit and every choice takes its last option, for the smallest limit that
  // reaches the least length.
  if (min <= 8 || min > MAX_REACH) return undefined;
  const longest = (limit: number) => draw(source, limit, (_a, b) => b) ?? undefined;
  let lo = 1;
  let hi = min;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const value = longest(mid);
    if (value !== undefined && [...value].length >= min) hi = mid;
    else lo = mid + 1;
  }
  const value = longest(lo);
  return fits(value) ? value : undefined;
}

/** The least length up to which a pattern's value is built (as bounds past MAX_BUILT_LENGTH are not). */
const MAX_REACH = 4096;

/** One randexp value, open repetitions drawn up to `limit` times, printable ASCII for open classes; null if randexp cannot. */
function draw(source: RegExp, limit: number, randInt: (a: number, b: number) => number): string | null {
  try {
    const gen = new RandExp(source);
    gen.max = limit;
    gen.randInt = randInt;
    gen.defaultRange.subtract(0, 31);
    gen.defaultRange.subtract(127, 65535);
    return gen.gen() as string;
  } catch {
    return null;
  }
}

/**
 * `{m,n}` with n above `cap` becomes `{max(m,least),max(m,cap)}`, where `least` (at most n) lets one narrowed
 * repetition still reach the string's minLength. Escaped braces are left alone.
 */
export function narrowRepetitions(pattern: string, cap: number, least = 0): string {
  return pattern.replace(/(^|[^\\])\{(\d+),(\d+)\}/g, (all: string, before: string, lo: string, hi: string) => {
    const [m, n] = [Number(lo), Number(hi)];
    if (n <= cap) return all;
    const from = Math.max(m, Math.min(least, n));
    return `${before}{${from},${Math.max(from, cap)}}`;
  });
}

const STAND_INS: Record<string, string> = {
  Lu: 'A-Z',
  Uppercase_Letter: 'A-Z',
  Ll: 'a-z',
  Lowercase_Letter: 'a-z',
  L: 'a-zA-Z',
  Letter: 'a-zA-Z',
  Alphabetic: 'a-zA-Z',
  N: '0-9',
  Nd: '0-9',
  Number: '0-9',
  Decimal_Number: '0-9',
};

/** The pattern with \p{...} escapes replaced by ASCII ranges (inside a class) or classes (outside one). */
function asciiStandIns(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const m = /^\\p\{([A-Za-z_]+)\}/.exec(pattern.slice(i));
      const range = m?.[1] ? STAND_INS[m[1]] : undefined;
      if (m && range) {
        out += inClass ? range : `[${range}]`;
        i += m[0].length - 1;
        continue;
      }
      out += pattern.slice(i, i + 2);
      i++;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    out += c;
  }
  return out;
}

/**
 * JSON values of a kind no mainstream parser turns into any type the schema declares (plan/input-tiers.ts:
 * must-reject): an array or an object for a scalar (the value it replaces inside, where given: `["a@b.co"]` for
 * an email), a scalar or the other container for an array or an object, a string that is no number for a number,
 * no boolean text for a boolean. [] when the schema declares no type.
 */
export function wrongKindValues(schema: JsonSchema, like?: unknown): unknown[] {
  const types = factsOf(schema).types;
  // A {{template}} names a setup step's answer: the wrong kind is not built around one (the step would run for nothing).
  const inner = like === undefined || like === null || typeof like === 'object' || (typeof like === 'string' && like.includes('{{')) ? 'conformance' : like;
  const text = types.includes('number') || types.includes('integer') ? 'not-a-number' : types.includes('boolean') ? 'not-a-boolean' : 'conformance';
  return onePerKind([[inner], { conformance: inner }, text, 12345].filter((v) => kindTier(v, types) === 'must-reject'));
}

/**
 * JSON scalars of another type that mainstream parsers coerce into a declared one (plan/input-tiers.ts: lenient):
 * a number for a string, `true` and a numeric string for a number, 1 and "true" for a boolean. [] when the schema
 * declares no type.
 */
export function coercibleValues(schema: JsonSchema, like?: unknown): unknown[] {
  const facts = factsOf(schema);
  const types = facts.types;
  const numeric = typeof like === 'number' && Number.isFinite(like) ? String(like) : typeof like === 'bigint' ? like.toString() : '1';
  // A date or date-time string: the number lenient parsers read as Unix time, a whole day (2000-01-01T00:00:00Z),
  // which a date takes as well as a date-time.
  const time = types.includes('string') && (facts.format === 'date' || facts.format === 'date-time') ? [UNIX_TIME_OF_A_DAY] : [];
  return onePerKind([...time, 12345, true, 1, 'true', numeric].filter((v) => kindTier(v, types) === 'lenient'));
}

/** 2000-01-01T00:00:00Z in seconds since the epoch. */
const UNIX_TIME_OF_A_DAY = 946_684_800;

/** The first value of each JSON kind. */
function onePerKind(values: unknown[]): unknown[] {
  const kinds = new Set<string>();
  return values.filter((v) => {
    const kind = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'bigint' ? 'number' : typeof v;
    if (kinds.has(kind)) return false;
    kinds.add(kind);
    return true;
  });
}

/**
 * A value valid for a path parameter's schema that names no record a deployment holds: a fresh uuid for a uuid; for
 * an integer the most negative int32 the range allows (ids are not negative), else the largest up to int32's
 * maximum (any key type holds it, no sequence reaches it); a string matching the pattern or format, else a plain
 * `conformance-absent-…` text within the declared lengths. So a probe that must not touch a record is answered like
 * any request naming a record that does not exist, whatever the parameter's type.
 */
export function absentValue(schema: JsonSchema, random: Random): string | undefined {
  if (typeof schema !== 'object') return undefined;
  const facts = factsOf(schema);
  if (facts.allowed) return undefined;
  const fresh = generate(withoutExamples(schema), random);
  if (facts.format === 'uuid') return random.uuid();
  if (facts.primary === 'integer' || facts.primary === 'number') {
    const range = facts.integer;
    if (!range) return fresh === UNKNOWN || fresh === undefined ? undefined : String(fresh);
    const value = range.lo < 0 ? Math.max(range.lo, INT32.min + 1) : Math.min(range.hi, INT32.max);
    return String(value - ((value - range.lo) % range.step));
  }
  if (facts.primary === 'string' && facts.pattern === undefined && facts.format === undefined) {
    const text = `conformance-absent-${random.word(8)}`;
    const max = facts.maxLength ?? text.length;
    return text.slice(0, Math.max(max, 0)).padEnd(facts.minLength, 'z');
  }
  return fresh === UNKNOWN || fresh === undefined ? undefined : typeof fresh === 'string' ? fresh : JSON.stringify(fresh);
}
