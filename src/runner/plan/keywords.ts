import type { JsonSchema } from '../model.ts';

/**
 * The JSON Schema keywords the value generators read, one row each, and what a schema says through them
 * (`factsOf`). The three generators (values.ts: the positive requests' seeded values; arbitraries.ts: the
 * fuzzing phase's fast-check arbitraries; coverage.ts and coverage-classes.ts: the coverage phase's edge and
 * class values) read a schema only through the facts, so that a keyword means the same thing to all three:
 * 3.0's boolean exclusive bounds are normalised at load, the tighter of two lower (upper) bounds wins, a
 * multipleOf that is no positive integer steps by 1 for integers, an int32 format bounds an integer, and
 * `edges` gives the declared bounds and their neighbours outside in one order.
 *
 * Integers have two ranges: `integer` holds the JSON numbers a generator may send as such (an unbounded
 * integer, int64 included, stops at ±(2^53 - 1): beyond, a JavaScript number is no longer the integer it
 * prints), `int64` the exact range of a value sent as text or as lossless JSON (2^63 - 1 is exact there).
 */

/** What a keyword constrains; `bound` says which way it narrows, so allOf keeps the tighter of two. */
export interface KeywordRow {
  of: 'any' | 'number' | 'string' | 'array' | 'object' | 'composition';
  bound?: 'lower' | 'upper';
}

export const KEYWORDS = {
  type: { of: 'any' },
  const: { of: 'any' },
  enum: { of: 'any' },
  examples: { of: 'any' },
  default: { of: 'any' },
  readOnly: { of: 'any' },
  writeOnly: { of: 'any' },
  format: { of: 'any' },
  minimum: { of: 'number', bound: 'lower' },
  exclusiveMinimum: { of: 'number', bound: 'lower' },
  maximum: { of: 'number', bound: 'upper' },
  exclusiveMaximum: { of: 'number', bound: 'upper' },
  multipleOf: { of: 'number' },
  minLength: { of: 'string', bound: 'lower' },
  maxLength: { of: 'string', bound: 'upper' },
  pattern: { of: 'string' },
  items: { of: 'array' },
  minItems: { of: 'array', bound: 'lower' },
  maxItems: { of: 'array', bound: 'upper' },
  uniqueItems: { of: 'array' },
  properties: { of: 'object' },
  required: { of: 'object' },
  minProperties: { of: 'object', bound: 'lower' },
  maxProperties: { of: 'object', bound: 'upper' },
  oneOf: { of: 'composition' },
  anyOf: { of: 'composition' },
  allOf: { of: 'composition' },
  discriminator: { of: 'composition' },
} as const satisfies Record<string, KeywordRow>;

export type Keyword = keyof typeof KEYWORDS;

export const INT32 = { min: -2147483648, max: 2147483647 } as const;
export const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n } as const;

export interface NumericBounds {
  min?: number;
  max?: number;
  exclusiveMin: boolean;
  exclusiveMax: boolean;
}

/** The integers a schema allows as JSON numbers (multipleOf honoured): lo and hi are multiples of step. */
export interface IntegerRange {
  lo: number;
  hi: number;
  step: number;
}

/** What one schema says, read once through the keyword table. */
export interface SchemaFacts {
  /** The declared types (a type array in order); empty when the schema declares none. */
  types: string[];
  /** The first declared type that is not null. */
  primary?: string;
  nullable: boolean;
  /** const (one value) or a non-empty enum; undefined when neither is declared. */
  allowed?: unknown[];
  format?: string;
  bounds: NumericBounds;
  /** multipleOf when it is a positive number. */
  multipleOf?: number;
  /** The integers allowed as JSON numbers; undefined when none is. */
  integer?: IntegerRange;
  /** The exact integers allowed (format, bounds; multipleOf not applied); undefined when none is. */
  int64?: { lo: bigint; hi: bigint };
  minLength: number;
  maxLength?: number;
  pattern?: string;
  items: JsonSchema;
  /** Whether items is declared (an array may be inferred from it). */
  hasItems: boolean;
  minItems: number;
  maxItems?: number;
  uniqueItems: boolean;
  properties: Record<string, JsonSchema>;
  /** Whether properties is declared (an object may be inferred from it). */
  hasProperties: boolean;
  required: string[];
}

const cache = new WeakMap<object, SchemaFacts>();

const EMPTY: SchemaFacts = {
  types: [],
  nullable: false,
  bounds: { exclusiveMin: false, exclusiveMax: false },
  minLength: 0,
  items: {},
  hasItems: false,
  minItems: 0,
  uniqueItems: false,
  properties: {},
  hasProperties: false,
  required: [],
};

/** The facts of a schema (read once per schema object). A boolean schema declares nothing. */
export function factsOf(schema: JsonSchema): SchemaFacts {
  if (typeof schema !== 'object' || schema === null) return EMPTY;
  let facts = cache.get(schema);
  if (!facts) cache.set(schema, (facts = read(schema)));
  return facts;
}

function read(s: Record<string, unknown>): SchemaFacts {
  const num = (k: Keyword) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  const type = s['type'];
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
  const primary = types.find((t) => t !== 'null');
  const allowed = 'const' in s ? [s['const']] : Array.isArray(s['enum']) && s['enum'].length > 0 ? (s['enum'] as unknown[]) : undefined;
  const format = typeof s['format'] === 'string' ? s['format'] : undefined;
  const bounds = numericBounds(s);
  const m = num('multipleOf');
  const props = s['properties'];
  const required = s['required'];
  const facts: SchemaFacts = {
    types,
    ...(primary !== undefined ? { primary } : {}),
    nullable: types.includes('null'),
    ...(allowed ? { allowed } : {}),
    ...(format !== undefined ? { format } : {}),
    bounds,
    ...(m !== undefined && m > 0 ? { multipleOf: m } : {}),
    minLength: num('minLength') ?? 0,
    ...(num('maxLength') !== undefined ? { maxLength: num('maxLength') } : {}),
    ...(typeof s['pattern'] === 'string' ? { pattern: s['pattern'] } : {}),
    items: (s['items'] ?? {}) as JsonSchema,
    hasItems: s['items'] !== undefined,
    minItems: num('minItems') ?? 0,
    ...(num('maxItems') !== undefined ? { maxItems: num('maxItems') } : {}),
    uniqueItems: s['uniqueItems'] === true,
    properties: typeof props === 'object' && props !== null ? (props as Record<string, JsonSchema>) : {},
    hasProperties: props !== undefined,
    required: Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : [],
  };
  const range = integerRangeOf(bounds, facts.multipleOf, format);
  if (range) facts.integer = range;
  const exact = int64RangeOf(bounds, format);
  if (exact) facts.int64 = exact;
  return facts;
}

/** Lower and upper bounds of a numeric schema, exclusive bounds included (3.0 booleans are normalised at load). */
export function numericBounds(schema: Record<string, unknown>): NumericBounds {
  const num = (k: Keyword) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  const min = num('minimum');
  const xmin = num('exclusiveMinimum');
  const max = num('maximum');
  const xmax = num('exclusiveMaximum');
  const lower = xmin !== undefined && (min === undefined || xmin >= min) ? { min: xmin, exclusiveMin: true } : { min, exclusiveMin: false };
  const upper = xmax !== undefined && (max === undefined || xmax <= max) ? { max: xmax, exclusiveMax: true } : { max, exclusiveMax: false };
  return { ...lower, ...upper } as NumericBounds;
}

/** The smallest and largest integers a schema allows as JSON numbers (multipleOf honoured), undefined when none fits. */
export function integerRange(schema: JsonSchema): IntegerRange | undefined {
  return factsOf(schema).integer;
}

function integerRangeOf(b: NumericBounds, multipleOf: number | undefined, format: string | undefined): IntegerRange | undefined {
  const step = multipleOf !== undefined && Number.isInteger(multipleOf) ? multipleOf : 1;
  const int32 = format === 'int32';
  let lo = b.min === undefined ? (int32 ? INT32.min : Number.MIN_SAFE_INTEGER) : b.exclusiveMin ? Math.floor(b.min) + 1 : Math.ceil(b.min);
  let hi = b.max === undefined ? (int32 ? INT32.max : Number.MAX_SAFE_INTEGER) : b.exclusiveMax ? Math.ceil(b.max) - 1 : Math.floor(b.max);
  if (int32) {
    lo = Math.max(lo, INT32.min);
    hi = Math.min(hi, INT32.max);
  }
  lo = Math.ceil(lo / step) * step;
  hi = Math.floor(hi / step) * step;
  return lo <= hi ? { lo, hi, step } : undefined;
}

function int64RangeOf(b: NumericBounds, format: string | undefined): { lo: bigint; hi: bigint } | undefined {
  if (format !== 'int64') return undefined;
  const whole = (n: number) => Number.isFinite(n);
  if ((b.min !== undefined && !whole(b.min)) || (b.max !== undefined && !whole(b.max))) return undefined;
  const lo = b.min === undefined ? INT64.min : BigInt(b.exclusiveMin ? Math.floor(b.min) + 1 : Math.ceil(b.min));
  const hi = b.max === undefined ? INT64.max : BigInt(b.exclusiveMax ? Math.ceil(b.max) - 1 : Math.floor(b.max));
  return lo <= hi ? { lo, hi } : undefined;
}

/** A declared bound of a value, a length or an item count: the edge inside it or its neighbour outside. */
export interface Edge {
  of: 'value' | 'length' | 'items';
  value: number | bigint;
  inside: boolean;
  /** e.g. "minimum 3", "below minLength 2", "not a multiple of 5". */
  note: string;
  /** 'multiple-of' for the value between two multiples; else 'bound'. */
  class: 'bound' | 'multiple-of';
}

/**
 * The distinct values to draw unique items from where the item schema allows few: its enum or const values, or
 * the two booleans; undefined where there is no such short list.
 */
export function distinctValues(facts: SchemaFacts): unknown[] | undefined {
  return facts.allowed ?? (facts.types.includes('boolean') ? [true, false] : undefined);
}

/** Lengths and item counts past which no edge value is built. */
export const MAX_BUILT_LENGTH = 10_000;
export const MAX_BUILT_ITEMS = 1_000;

/**
 * Each declared bound of a schema with its neighbour outside, in one order: value bounds (minimum, maximum,
 * exclusive ones honoured; where an integer declares none, its int32 or int64 limits), multipleOf, then
 * lengths (minLength, maxLength; a string with a format has none built) and item counts. Bounds beyond
 * 2^53 are not built as numbers; lengths and counts past MAX_BUILT_LENGTH / MAX_BUILT_ITEMS are not built.
 */
export function edges(facts: SchemaFacts): Edge[] {
  const out: Edge[] = [];
  const inside = (of: Edge['of'], value: number | bigint, note: string) => out.push({ of, value, inside: true, note, class: 'bound' });
  const outside = (of: Edge['of'], value: number | bigint, note: string, cls: Edge['class'] = 'bound') => out.push({ of, value, inside: false, note, class: cls });
  const b = facts.bounds;
  const safe = (n: number | undefined): n is number => n !== undefined && Math.abs(n) <= Number.MAX_SAFE_INTEGER;
  const types = facts.types;
  if (types.includes('integer')) {
    const range = facts.integer;
    if (safe(b.min)) {
      if (range) inside('value', range.lo, b.exclusiveMin ? `lowest above exclusiveMinimum ${b.min}` : range.lo === b.min ? `minimum ${b.min}` : `lowest allowed, minimum ${b.min}`);
      outside('value', b.exclusiveMin ? Math.floor(b.min) : Math.ceil(b.min) - 1, b.exclusiveMin ? `not above exclusiveMinimum ${b.min}` : `below minimum ${b.min}`);
    }
    if (safe(b.max)) {
      if (range) inside('value', range.hi, b.exclusiveMax ? `highest below exclusiveMaximum ${b.max}` : range.hi === b.max ? `maximum ${b.max}` : `highest allowed, maximum ${b.max}`);
      outside('value', b.exclusiveMax ? Math.ceil(b.max) : Math.floor(b.max) + 1, b.exclusiveMax ? `not below exclusiveMaximum ${b.max}` : `above maximum ${b.max}`);
    }
    // Where no bound is declared, the format's limits are the bounds.
    if (facts.format === 'int32') {
      if (b.min === undefined) {
        inside('value', INT32.min, 'int32 minimum');
        outside('value', INT32.min - 1, 'below int32');
      }
      if (b.max === undefined) {
        inside('value', INT32.max, 'int32 maximum');
        outside('value', INT32.max + 1, 'beyond int32');
      }
    } else if (facts.format === 'int64') {
      if (b.min === undefined) inside('value', INT64.min, 'int64 minimum');
      if (b.max === undefined) inside('value', INT64.max, 'int64 maximum');
    }
    if (range && range.step > 1 && range.lo + 1 <= range.hi) outside('value', range.lo + 1, `not a multiple of ${range.step}`, 'multiple-of');
  } else if (types.includes('number')) {
    if (safe(b.min)) {
      if (!b.exclusiveMin) inside('value', b.min, `minimum ${b.min}`);
      outside('value', b.exclusiveMin ? b.min : b.min - 1, b.exclusiveMin ? `not above exclusiveMinimum ${b.min}` : `below minimum ${b.min}`);
    }
    if (safe(b.max)) {
      if (!b.exclusiveMax) inside('value', b.max, `maximum ${b.max}`);
      outside('value', b.exclusiveMax ? b.max : b.max + 1, b.exclusiveMax ? `not below exclusiveMaximum ${b.max}` : `above maximum ${b.max}`);
    }
  }
  // A count (a string's length, an array's items) between its declared bounds, up to what is built.
  const counts = (of: 'length' | 'items', min: number, max: number | undefined, cap: number, noun: 'Length' | 'Items') => {
    const lo = Math.min(min, cap);
    const hi = max !== undefined && max < cap ? max : undefined;
    if (lo > 0) {
      inside(of, lo, `min${noun} ${lo}`);
      outside(of, lo - 1, `below min${noun} ${lo}`);
    }
    if (hi !== undefined) {
      inside(of, hi, `max${noun} ${hi}`);
      outside(of, hi + 1, `above max${noun} ${hi}`);
    }
  };
  if (types.includes('string') && facts.format === undefined) counts('length', facts.minLength, facts.maxLength, MAX_BUILT_LENGTH, 'Length');
  if (types.includes('array')) counts('items', facts.minItems, facts.maxItems, MAX_BUILT_ITEMS, 'Items');
  return out;
}

/**
 * allOf parts that hold no composition, merged into one schema: bounds by the keyword table (the tighter one
 * wins), properties (a name in two parts gets both schemas) and required combined, other keywords first seen.
 */
export function mergeSchemas(parts: Array<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  for (const part of parts) {
    const facts = factsOf(part);
    for (const [k, v] of Object.entries(part)) {
      const row = Object.hasOwn(KEYWORDS, k) ? (KEYWORDS[k as Keyword] as KeywordRow) : undefined;
      if (k === 'properties') {
        for (const [name, prop] of Object.entries(facts.properties)) {
          properties[name] = name in properties ? { allOf: [properties[name], prop] } : prop;
        }
      } else if (k === 'required') facts.required.forEach((r) => required.add(r));
      else if (row?.bound === 'lower' && typeof v === 'number') out[k] = typeof out[k] === 'number' ? Math.max(out[k] as number, v) : v;
      else if (row?.bound === 'upper' && typeof v === 'number') out[k] = typeof out[k] === 'number' ? Math.min(out[k] as number, v) : v;
      else if (!(k in out)) out[k] = v;
    }
  }
  if (Object.keys(properties).length > 0) out['properties'] = properties;
  if (required.size > 0) out['required'] = [...required];
  return out;
}

/**
 * The one object schema a top-level allOf of plain parts makes (nested allOf flattened; the schema's own keywords
 * beside them): what its properties and required list are. A schema without such an allOf is itself.
 */
export function mergedShape(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || schema === null || !Array.isArray(schema['allOf'])) return schema;
  const parts: Array<Record<string, unknown>> = [];
  const flatten = (s: JsonSchema): boolean => {
    if (typeof s !== 'object' || s === null) return s === true;
    const { allOf, ...rest } = s;
    if (rest['oneOf'] !== undefined || rest['anyOf'] !== undefined) return false;
    parts.push(rest);
    return Array.isArray(allOf) ? allOf.every((p) => flatten(p as JsonSchema)) : true;
  };
  return flatten(schema) ? mergeSchemas(parts) : schema;
}
