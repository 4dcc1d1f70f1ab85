import fc from 'fast-check';
import type { JsonSchema, Operation } from '../model.ts';
import { formatRow } from './formats.ts';
import { distinctValues, factsOf, INT32, mergeSchemas } from './keywords.ts';
import { RESERVED_HEADERS } from './fuzz-inputs.ts';
import { namesRecord } from './relations.ts';
import { distinctArbitrary, namedArbitrary } from './named-values.ts';
import { emptyIsAmbiguous, hasNonEmptyValues, sendsEmpty } from './empty-values.ts';
import { asText } from './parameters.ts';
import type { Random } from './random.ts';
import { generate, isOmitted, patternValue, UNKNOWN, withDiscriminator } from './values.ts';

/**
 * JSON Schema -> fast-check arbitraries: random schema-valid values that fast-check can shrink (smaller numbers,
 * shorter strings and arrays, optional properties left out). Types (type arrays and nullable), const and enum,
 * inclusive and exclusive bounds, multipleOf, lengths, the formats the engine knows, patterns (fc.stringMatching,
 * confirmed with the real RegExp; a pattern it cannot draw from falls back to the generator of values.ts, never
 * throws), oneOf/anyOf (discriminator value set), allOf, required and optional properties, readOnly left out,
 * no additional properties, and a bounded depth so recursive schemas end. Where no value can be drawn without
 * inventing a type, the positive request's own value (the fallback) is used as is.
 */

/** Where a value is sent decides which characters a string may hold. */
export type TextRoom = 'any' | 'query' | 'header' | 'segment';

export interface ArbitraryOptions {
  /** Values for the fallbacks drawn from the existing generator (patterns, untyped parts). */
  random: Random;
  /** Nested objects and arrays followed before only required parts are built. */
  maxDepth?: number;
  /** 'header': printable ASCII; 'segment': a non-empty path segment; 'query': any text, no null; 'any': JSON (default). */
  text?: TextRoom;
  /** int64 values over the whole 64-bit range as exact digits (a BigInt): only where the value is sent as text. */
  int64Digits?: boolean;
  /** A cache shared by the arbitraries of one request (see Ctx.built). */
  built?: WeakMap<object, Map<string, Arb | undefined>>;
  /** The small-value sweep's request `index` (see SmallSweep); undefined: values drawn at random. */
  small?: SmallSweep;
}

/**
 * One request of the small-value sweep: every integer it carries is the `index`-th integer of its range counted
 * from the one nearest 0 upwards (0, 1, 2... where 0 is allowed; lo, lo + step... else), and every optional part
 * is present so each integer field takes the value. `used` is set when some integer took one: a request without
 * integers has no sweep.
 */
export interface SmallSweep {
  index: number;
  used: boolean;
}

interface Ctx {
  random: Random;
  maxDepth: number;
  text: TextRoom;
  int64Digits: boolean;
  depth: number;
  /** Nested compositions at the same depth (a oneOf that names itself must end too). */
  nesting: number;
  /** Arbitraries built so far, by schema object and where they are drawn (shared schemas are built once). */
  built: WeakMap<object, Map<string, Arb | undefined>>;
  small: SmallSweep | undefined;
}

export const FUZZ_MAX_DEPTH = 3;
const MAX_NESTING = 8;
/** Array lengths drawn beyond minItems. */
const EXTRA_ITEMS = 8;

type Arb = fc.Arbitrary<unknown>;

/** An arbitrary of schema-valid values; undefined when none can be built and no fallback is known. */
export function schemaArbitrary(schema: JsonSchema, options: ArbitraryOptions, fallback?: unknown): Arb | undefined {
  return withFallback(schema, {
    random: options.random,
    maxDepth: options.maxDepth ?? FUZZ_MAX_DEPTH,
    text: options.text ?? 'any',
    int64Digits: options.int64Digits ?? false,
    depth: 0,
    nesting: 0,
    built: options.built ?? new WeakMap(),
    small: options.small,
  }, fallback);
}

function withFallback(schema: JsonSchema, ctx: Ctx, fallback: unknown): Arb | undefined {
  const built = cached(schema, ctx, fallback);
  if (built) return built;
  if (fallback !== undefined) return fc.constant(fallback);
  const value = generate(schema, ctx.random);
  return value === UNKNOWN || value === undefined || !fitsText(value, ctx.text) ? undefined : fc.constant(value);
}

/** build() once per schema object, depth and text room; a value to fall back on makes its own. */
function cached(schema: JsonSchema, ctx: Ctx, fallback: unknown): Arb | undefined {
  if (typeof schema !== 'object' || schema === null || fallback !== undefined) return build(schema, ctx, fallback);
  const key = `${ctx.depth}:${ctx.nesting}:${ctx.text}:${ctx.int64Digits}:${ctx.small?.index ?? ''}`;
  let byKey = ctx.built.get(schema);
  if (!byKey) ctx.built.set(schema, (byKey = new Map()));
  if (byKey.has(key)) return byKey.get(key);
  const arb = build(schema, ctx, fallback);
  byKey.set(key, arb);
  return arb;
}

function build(schema: JsonSchema, ctx: Ctx, fallback: unknown): Arb | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  if (ctx.nesting > MAX_NESTING) return undefined;
  const facts = factsOf(schema);
  if ('const' in schema) return fitsText(schema['const'], ctx.text) ? fc.constant(schema['const']) : undefined;
  if (facts.allowed) {
    const values = facts.allowed.filter((v) => fitsText(v, ctx.text));
    return values.length > 0 ? fc.constantFrom(...values) : undefined;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(schema[key])) return branches(schema, key, ctx);
  }
  if (Array.isArray(schema['allOf'])) return allOf(schema, ctx, fallback);
  let types = facts.types;
  if (types.length === 0) {
    if (facts.hasProperties) types = ['object'];
    else if (facts.hasItems) types = ['array'];
    else return undefined;
  }
  const arbs: Array<{ arbitrary: Arb; weight: number }> = [];
  for (const type of types) {
    if (type === 'null') continue;
    const arb = typed(type, schema, ctx, fallback);
    if (arb) arbs.push({ arbitrary: arb, weight: 4 });
  }
  if (types.includes('null') && ctx.text === 'any') arbs.push({ arbitrary: fc.constant(null), weight: 1 });
  if (arbs.length === 0) return undefined;
  return arbs.length === 1 ? arbs[0]!.arbitrary : fc.oneof(...arbs);
}

function typed(type: string, schema: Record<string, unknown>, ctx: Ctx, fallback: unknown): Arb | undefined {
  switch (type) {
    case 'integer':
      return integerArbitrary(schema, ctx);
    case 'number':
      return numberArbitrary(schema, ctx);
    case 'string':
      return stringArbitrary(schema, ctx);
    case 'boolean':
      return fc.boolean();
    case 'array':
      return ctx.text !== 'segment' ? arrayArbitrary(schema, ctx, fallback) : undefined;
    case 'object':
      return ctx.text === 'any' || ctx.text === 'query' ? objectArbitrary(schema, ctx, fallback) : undefined;
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Composition

function withoutKey(schema: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _removed, discriminator: _d, ...rest } = schema;
  return rest;
}

const ANNOTATIONS = new Set(['title', 'description', 'examples', 'example', 'default', 'deprecated', 'externalDocs', 'xml', '$id', '$schema', '$comment']);

function hasConstraints(schema: Record<string, unknown>): boolean {
  return Object.keys(schema).some((k) => !ANNOTATIONS.has(k) && !k.startsWith('x-'));
}

function isNullSchema(schema: JsonSchema): boolean {
  const types = factsOf(schema).types;
  return types.length === 1 && types[0] === 'null';
}

/** oneOf/anyOf: one branch at a time (the schema's other keywords apply too); the discriminator value is set. */
function branches(schema: Record<string, unknown>, key: 'oneOf' | 'anyOf', ctx: Ctx): Arb | undefined {
  const base = withoutKey(schema, key);
  const inner = { ...ctx, nesting: ctx.nesting + 1 };
  const arbs: Arb[] = [];
  for (const branch of schema[key] as JsonSchema[]) {
    if (isNullSchema(branch)) {
      if (ctx.text === 'any') arbs.push(fc.constant(null));
      continue;
    }
    const merged: JsonSchema = hasConstraints(base) ? { allOf: [base, branch] } : branch;
    const arb = cached(merged, inner, undefined);
    if (!arb) continue;
    arbs.push(schema['discriminator'] !== undefined ? arb.map((v) => withDiscriminator(schema, branch, v)) : arb);
  }
  // Concrete branches first: fast-check shrinks towards the first arbitrary.
  if (arbs.length === 0) return undefined;
  return arbs.length === 1 ? arbs[0] : fc.oneof(...arbs);
}

/** allOf: plain parts are merged into one schema (tightest bounds, properties and required combined). */
function allOf(schema: Record<string, unknown>, ctx: Ctx, fallback: unknown): Arb | undefined {
  const parts = [...(schema['allOf'] as JsonSchema[]), withoutKey(schema, 'allOf')];
  const inner = { ...ctx, nesting: ctx.nesting + 1 };
  const plain = parts.every((p) => typeof p === 'object' && p !== null && !p['oneOf'] && !p['anyOf'] && !p['allOf']);
  if (plain) return build(mergeSchemas(parts as Array<Record<string, unknown>>), inner, fallback);
  // Compositions inside: each part drawn on its own, objects put together (as values.ts does).
  const arbs = parts
    .filter((p) => typeof p !== 'object' || hasConstraints(p))
    .map((p) => build(p, inner, fallback))
    .filter((a): a is Arb => a !== undefined);
  if (arbs.length === 0) return undefined;
  return fc.tuple(...arbs).map((values) => {
    const known = values.filter((v) => v !== undefined);
    if (known.length > 0 && known.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) return Object.assign({}, ...(known as object[]));
    return known[0];
  });
}

// ---------------------------------------------------------------------------------------------------------
// Numbers

function intBetween(lo: number, hi: number): fc.Arbitrary<number> {
  if (lo >= INT32.min && hi <= INT32.max) return fc.integer({ min: lo, max: hi });
  return fc.bigInt({ min: BigInt(lo), max: BigInt(hi) }).map(Number);
}

function integerArbitrary(schema: Record<string, unknown>, ctx: Ctx): Arb | undefined {
  const facts = factsOf(schema);
  const m = facts.multipleOf;
  const step = m !== undefined && Number.isInteger(m) && m > 1 ? m : 1;
  // int64 sent as text (query, header, path): the whole range, exact digits beyond 2^53.
  if (ctx.int64Digits && facts.format === 'int64' && step === 1) {
    const exact = facts.int64;
    if (!exact) return undefined;
    if (ctx.small) {
      const from = exact.lo > 0n ? exact.lo : exact.hi < 0n ? exact.hi : 0n;
      const value = from + BigInt(ctx.small.index);
      if (value <= exact.hi) {
        ctx.small.used = true;
        return fc.constant(value);
      }
    }
    return fc.bigInt({ min: exact.lo, max: exact.hi });
  }
  const range = facts.integer;
  if (!range) return undefined;
  if (ctx.small) {
    const lo = range.lo / range.step;
    const hi = range.hi / range.step;
    const unit = Math.min(Math.max(0, lo), hi) + ctx.small.index;
    if (unit <= hi) {
      ctx.small.used = true;
      return fc.constant(unit * range.step);
    }
  }
  if (range.step === 1) return intBetween(range.lo, range.hi);
  return intBetween(range.lo / range.step, range.hi / range.step).map((k) => k * range.step);
}

function decimals(n: number): number {
  const text = String(n);
  const e = /e-(\d+)$/.exec(text);
  if (e) return Number(e[1]);
  return text.includes('.') ? (text.split('.')[1]?.length ?? 0) : 0;
}

function numberArbitrary(schema: Record<string, unknown>, ctx: Ctx): Arb | undefined {
  const facts = factsOf(schema);
  const b = facts.bounds;
  const m = facts.multipleOf;
  if (m !== undefined) {
    if (Number.isInteger(m)) return integerArbitrary(schema, ctx);
    // A fractional step: whole multiples of it, rounded to its decimals and confirmed (else a plain multiple).
    const lo = b.min === undefined ? -1e9 : Math.ceil(b.min / m) + (b.exclusiveMin && Math.ceil(b.min / m) * m <= b.min ? 1 : 0);
    const hi = b.max === undefined ? 1e9 : Math.floor(b.max / m) - (b.exclusiveMax && Math.floor(b.max / m) * m >= b.max ? 1 : 0);
    if (!(lo <= hi) || !Number.isFinite(lo) || !Number.isFinite(hi)) return undefined;
    const places = decimals(m);
    const inside = (v: number) =>
      (b.min === undefined || (b.exclusiveMin ? v > b.min : v >= b.min)) && (b.max === undefined || (b.exclusiveMax ? v < b.max : v <= b.max));
    const safe = [0, lo * m, hi * m].map((v) => Number(v.toFixed(places))).find((v) => inside(v) && Number.isInteger(v / m));
    if (safe === undefined) return undefined;
    return intBetween(Math.max(lo, -1e15), Math.min(hi, 1e15))
      .map((k) => Number((k * m).toFixed(places)))
      .map((v) => (inside(v) && Number.isInteger(v / m) ? v : safe));
  }
  if (b.min !== undefined && b.max !== undefined && (b.min > b.max || (b.min === b.max && (b.exclusiveMin || b.exclusiveMax)))) return undefined;
  return fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(b.min !== undefined ? { min: b.min, minExcluded: b.exclusiveMin } : {}),
    ...(b.max !== undefined ? { max: b.max, maxExcluded: b.exclusiveMax } : {}),
  });
}

// ---------------------------------------------------------------------------------------------------------
// Strings

const HEADER_TEXT = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;
const printableAscii = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));
/**
 * One code point: mostly printable ASCII, also control characters, the rest of the BMP and astral planes (no
 * lone surrogates). Built from integer ranges: fast-check's own full-range units take seconds to set up.
 */
const anyCodePoint = fc
  .oneof(
    { arbitrary: fc.integer({ min: 0x20, max: 0x7e }), weight: 4 },
    { arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }), weight: 2 },
    { arbitrary: fc.integer({ min: 0x0, max: 0x1f }), weight: 1 },
    { arbitrary: fc.integer({ min: 0xe000, max: 0xfffd }), weight: 1 },
    { arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }), weight: 1 },
  )
  .map((c) => String.fromCodePoint(c));

/** True when a value can be sent where it goes (a header value, a path segment, any JSON). */
export function fitsText(value: unknown, text: TextRoom): boolean {
  if (text === 'any') return true;
  if (value === null || value === undefined) return false;
  if (text === 'query') return true;
  const s = asText(value);
  if (text === 'header') return HEADER_TEXT.test(s);
  return s !== '' && s !== '.' && s !== '..' && !s.includes('/');
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function stringArbitrary(schema: Record<string, unknown>, ctx: Ctx): Arb | undefined {
  const facts = factsOf(schema);
  const min = facts.minLength;
  const max = facts.maxLength;
  if (max !== undefined && max < min) return undefined;
  const fits = (s: string) => {
    const n = codePoints(s);
    return n >= min && (max === undefined || n <= max) && fitsText(s, ctx.text);
  };
  const fallback = () => {
    const value = generate(schema, ctx.random);
    return typeof value === 'string' && fits(value) ? value : undefined;
  };
  const byFormat = formatRow(facts.format)?.arbitrary?.(fc);
  if (byFormat && facts.pattern === undefined) {
    const safe = fallback();
    return safe === undefined ? undefined : byFormat.map((s) => (fits(s) ? s : safe));
  }
  if (facts.pattern !== undefined) return patternArbitrary(facts.pattern, min, max, fits, ctx);
  const size = max === undefined ? {} : { maxLength: Math.min(max, min + 64) };
  if (ctx.text === 'header') return fc.string({ minLength: min, ...size, unit: printableAscii });
  const plain = fc.string({ minLength: min, ...size, unit: 'grapheme-ascii' });
  const unicode = fc.string({ minLength: min, ...size, unit: anyCodePoint });
  const arb = fc.oneof(plain, unicode);
  if (ctx.text === 'any' || ctx.text === 'query') return arb;
  // A path segment: not empty, not a dot segment, no slash; else a plain stand-in of the right length.
  const stand = 'x'.repeat(Math.max(1, min));
  return max !== undefined && max < 1 ? undefined : arb.map((s) => (fits(s) ? s : stand));
}

/** fc.stringMatching confirmed with the real (unicode-aware) RegExp; randexp's value where it cannot draw one. */
function patternArbitrary(pattern: string, min: number, max: number | undefined, fits: (s: string) => boolean, ctx: Ctx): Arb | undefined {
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
  const ok = (s: string) => regex.test(s) && fits(s);
  // A Unicode property (\p{L}) holds what the newest Unicode assigned (Node 20: Unicode 17), and a server on an older
  // one refuses those characters (Java 25 knows Unicode 16; CJK Extension J and Latin Extended-D's latest letters are
  // 17's): a drawn character outside a repertoire every Unicode version since 2.0 holds (the two-byte UTF-8 range,
  // kana, the CJK ideographs of Unicode 1.1, Hangul syllables) is replaced by an ASCII letter, kept where the pattern
  // still holds.
  const recent = /\\[pP]\{/.test(pattern) ? /[^\u0000-\u07FF\u3040-\u30FF\u4E00-\u9FA5\uAC00-\uD7A3]/gu : undefined;
  const settled = (s: string): string => {
    if (!recent) return s;
    const plain = s.replace(recent, 'a');
    return plain === s || !ok(plain) ? s : plain;
  };
  // randexp's value is drawn only when needed (it is costly for large character classes).
  let memo: { value: string | undefined } | undefined;
  const safe = () => {
    if (!memo) {
      const drawn = patternValue(pattern, ctx.random, min, max);
      memo = { value: drawn !== undefined && ok(drawn) ? drawn : undefined };
    }
    return memo.value;
  };
  const arb = matching(pattern, max);
  if (!arb) {
    const value = safe();
    return value === undefined ? undefined : fc.constant(value);
  }
  // A drawn value the pattern or the lengths refuse: randexp's, else the request is not sent (see NOT_SENT).
  return arb.map((drawn) => {
    const s = settled(drawn);
    return ok(s) && (!recent || s.match(recent) === null) ? s : (safe() ?? NOT_SENT);
  });
}

/**
 * fc.stringMatching of a pattern and a length bound, built once per run: building one reads its regular expression
 * and slices fast-check's dangerous strings through every character class (a negated class is a filter over every
 * character), which costs far more than drawing from it, and the fuzzing phase rebuilds a request's arbitraries for
 * each of its small-value sweeps. The arbitrary is pure (drawn from the seed it is given), so sharing it changes no
 * value drawn.
 */
const MATCHING = new Map<string, fc.Arbitrary<string> | undefined>();

function matching(pattern: string, max: number | undefined): fc.Arbitrary<string> | undefined {
  const key = `${max ?? ''}/${pattern}`;
  if (MATCHING.has(key)) return MATCHING.get(key);
  let arb: fc.Arbitrary<string> | undefined;
  for (const flags of ['u', '']) {
    try {
      arb = fc.stringMatching(new RegExp(pattern, flags), max !== undefined ? { maxLength: Math.max(max, 1) } : {});
      break;
    } catch {
      arb = undefined;
    }
  }
  MATCHING.set(key, arb);
  return arb;
}

/** Stands for a value no generator could make valid: a request holding it is never sent (execute/fuzz.ts). */
export const NOT_SENT = '\u0000conformance: no valid value\u0000';

// ---------------------------------------------------------------------------------------------------------
// Arrays and objects

function arrayArbitrary(schema: Record<string, unknown>, ctx: Ctx, fallback: unknown): Arb | undefined {
  const facts = factsOf(schema);
  const minItems = facts.minItems;
  const maxItems = facts.maxItems;
  if (maxItems !== undefined && maxItems < minItems) return undefined;
  if (ctx.depth >= ctx.maxDepth) return minItems === 0 ? fc.constant([]) : undefined;
  const items = facts.items;
  // Distinct items cannot all be one small value: they are drawn.
  const inner = { ...ctx, depth: ctx.depth + 1, nesting: 0, small: facts.uniqueItems ? undefined : ctx.small };
  const itemArb = withFallback(items, inner, Array.isArray(fallback) ? fallback[0] : undefined);
  if (!itemArb) return minItems === 0 ? fc.constant([]) : undefined;
  const maxLength = Math.min(maxItems ?? minItems + EXTRA_ITEMS, minItems + EXTRA_ITEMS);
  if (facts.uniqueItems) {
    // As many distinct items as the item schema allows.
    const values = distinctValues(factsOf(items))?.length ?? Infinity;
    if (values < minItems) return undefined;
    return fc.uniqueArray(itemArb, { minLength: minItems, maxLength: Math.min(maxLength, values), selector: (v) => JSON.stringify(v, bigintText) });
  }
  return fc.array(itemArb, { minLength: minItems, maxLength });
}

function objectArbitrary(schema: Record<string, unknown>, ctx: Ctx, fallback: unknown): Arb | undefined {
  const facts = factsOf(schema);
  const required = new Set(facts.required);
  const known = isRecord(fallback) ? fallback : {};
  const inner = { ...ctx, depth: ctx.depth + 1, nesting: 0 };
  const model: Record<string, Arb> = {};
  const requiredKeys: string[] = [];
  const props = facts.properties;
  for (const [name, prop] of Object.entries(props)) {
    if (isOmitted(prop)) continue;
    const isRequired = required.has(name);
    // Past the depth bound only what is required is built, so recursive schemas end.
    if (ctx.depth >= ctx.maxDepth && !isRequired) continue;
    const drawn = namedArbitrary(name, prop) ?? withFallback(prop, namesRecord(name) ? { ...inner, small: undefined } : inner, known[name]);
    const arb = drawn && distinctArbitrary(name, prop, drawn);
    if (!arb) {
      if (isRequired) return undefined;
      continue;
    }
    model[name] = arb;
    if (isRequired || ctx.small) requiredKeys.push(name);
  }
  // A required property the schema does not describe keeps the positive request's value.
  for (const name of required) {
    if (name in props || !(name in known)) continue;
    model[name] = fc.constant(known[name]);
    requiredKeys.push(name);
  }
  return fc.record(model, { requiredKeys, noNullPrototype: true });
}


function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON.stringify replacer for int64 values drawn as BigInt. */
export function bigintText(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

// ---------------------------------------------------------------------------------------------------------
// Requests


/** One generated request: what replaces the positive request's parameters and body. */
export interface FuzzRequest {
  pathParams: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  body?: unknown;
  /** The media type of the body, when the operation declares several. */
  contentType?: string;
}

/** The positive request the generated ones replace (its values are the fallbacks). */
export interface PositiveRequest {
  pathParams: Record<string, string>;
  query: Record<string, unknown>;
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  body?: unknown;
}

/**
 * Requests of an operation: every declared parameter (required always, optional sometimes left out) and the
 * body in each media type it declares. Path parameters keep the positive request's values (records the run
 * created, or example values) except those named in `varyPath`, which are drawn as non-empty path segments.
 */
export function requestArbitrary(op: Operation, positive: PositiveRequest, random: Random, varyPath: ReadonlySet<string> = new Set(), small?: SmallSweep): fc.Arbitrary<FuzzRequest> {
  const location = (where: 'query' | 'header' | 'cookie' | 'path', known: Record<string, unknown>, text: TextRoom) => {
    const model: Record<string, Arb> = {};
    const requiredKeys: string[] = [];
    const declared = new Set<string>();
    for (const param of op.parameters) {
      if (param.in !== where) continue;
      declared.add(param.name);
      if (where === 'header' && RESERVED_HEADERS.has(param.name.toLowerCase())) continue;
      if (where === 'path' && !varyPath.has(param.name)) continue;
      let arb = schemaArbitrary(param.schema, { random, text, int64Digits: true, ...(namesRecord(param.name) ? {} : { small }) }, known[param.name]);
      if (!arb) continue;
      // Never an empty value the server may read as the parameter left out (plan/empty-values.ts).
      if (emptyIsAmbiguous(param) && hasNonEmptyValues(param.schema, param)) arb = arb.filter((v) => !sendsEmpty(v, param));
      model[param.name] = where === 'query' ? arb : arb.map(asText);
      if (param.required || where === 'path' || small) requiredKeys.push(param.name);
    }
    // Path values not drawn (records the run created, examples) and values the positive request sends that the
    // operation does not declare stay as they are.
    for (const [name, value] of Object.entries(known)) {
      if (name in model || (declared.has(name) && where !== 'path')) continue;
      model[name] = fc.constant(value);
      requiredKeys.push(name);
    }
    return fc.record(model, { requiredKeys, noNullPrototype: true });
  };
  const bodies = op.requestBodies && op.requestBodies.length > 0 ? op.requestBodies : op.requestBody ? [op.requestBody] : [];
  const bodyArbs: Array<fc.Arbitrary<{ body?: unknown; contentType?: string }>> = [];
  bodies.forEach((media, i) => {
    const arb = schemaArbitrary(media.schema, { random, small }, i === 0 ? positive.body : undefined);
    if (!arb) return;
    bodyArbs.push(arb.map((body) => (i === 0 ? { body } : { body, contentType: media.contentType })));
  });
  if (bodyArbs.length === 0) bodyArbs.push(fc.constant(positive.body !== undefined ? { body: positive.body } : {}));
  return fc
    .record({
      pathParams: location('path', positive.pathParams, 'segment'),
      query: location('query', positive.query, 'query'),
      headers: location('header', positive.headers ?? {}, 'header'),
      cookies: location('cookie', positive.cookies ?? {}, 'header'),
      media: bodyArbs.length === 1 ? bodyArbs[0]! : fc.oneof(...bodyArbs),
    })
    .map(({ media, ...rest }) => ({
      ...rest,
      pathParams: rest.pathParams as Record<string, string>,
      headers: rest.headers as Record<string, string>,
      cookies: rest.cookies as Record<string, string>,
      ...media,
    }));
}

/** What a generated request holds, e.g. "body.count = 1001, body.name = \"é\", query.limit = 4". */
export function describeRequest(request: FuzzRequest, positive: PositiveRequest): string {
  const parts: string[] = [];
  const show = (value: unknown) => {
    const text = JSON.stringify(value, bigintText) ?? String(value);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  };
  const list = (prefix: string, values: Record<string, unknown>, before: Record<string, unknown> = {}) => {
    for (const [k, v] of Object.entries(values)) if (prefix !== 'path' || v !== before[k]) parts.push(`${prefix}.${k} = ${show(v)}`);
  };
  list('path', request.pathParams, positive.pathParams);
  list('query', request.query);
  list('header', request.headers);
  list('cookie', request.cookies);
  if (request.contentType) parts.push(`body as ${request.contentType}`);
  if (isRecord(request.body)) {
    if (Object.keys(request.body).length === 0) parts.push('body = {}');
    list('body', request.body);
  } else if (request.body !== undefined) parts.push(`body = ${show(request.body)}`);
  const text = parts.length > 0 ? parts.join(', ') : 'no parameters and no body';
  return text.length > 600 ? `${text.slice(0, 597)}...` : text;
}
