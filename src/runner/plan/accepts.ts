import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isBase64 } from '../checks/base64.ts';
import type { JsonSchema } from '../model.ts';

/**
 * Whether a JSON Schema 2020-12 schema accepts a value, judged the way ajv (with ajv-formats) judges it, without
 * compiling anything: the coverage phase asks this of every request it plans (thousands per contract), and a
 * compile per schema would cost more than the whole plan. Integers may be BigInt: they are compared on their
 * exact digits (int32/int64 formats, bounds, multipleOf, enum). Three answers: true, false, and undefined when
 * a keyword it does not evaluate (if/then/else is evaluated; unevaluated*, $ref, $dynamicRef are not) decides;
 * a caller then does not claim either. Keywords outside the vocabulary are ignored, as ajv's non-strict mode does.
 * Formats are judged as the engine's validator (checks/schema.ts) judges them. Two judgements differ from ajv on
 * purpose, since they are about the request on the wire: `required` needs an own property ("constructor" is not
 * inherited from JSON), and a bound, const or enum number beyond 2^53 was rounded when the description was
 * parsed, so a value that rounds to the same double is neither inside nor outside it (undefined).
 */
export function accepts(schema: JsonSchema, value: unknown): boolean | undefined {
  return check(schema, value, 0);
}

type Verdict = boolean | undefined;

const MAX_DEPTH = 64;
const UNKNOWN_KEYWORDS = ['unevaluatedProperties', 'unevaluatedItems', '$ref', '$dynamicRef', '$recursiveRef'];
const INT32 = { min: -(2n ** 31n), max: 2n ** 31n - 1n };
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/** All of the verdicts: false wins, then unknown. */
function all(verdicts: Iterable<Verdict>): Verdict {
  let unknown = false;
  for (const v of verdicts) {
    if (v === false) return false;
    if (v === undefined) unknown = true;
  }
  return unknown ? undefined : true;
}

function check(schema: JsonSchema, value: unknown, depth: number): Verdict {
  if (schema === true) return true;
  if (schema === false) return false;
  if (typeof schema !== 'object' || schema === null) return true;
  if (depth > MAX_DEPTH) return undefined;
  const s = schema;
  const results: Verdict[] = [];
  for (const k of UNKNOWN_KEYWORDS) if (k in s) results.push(undefined);
  if ('type' in s) results.push(typeOk(s['type'], value));
  if ('const' in s) results.push(member([s['const']], value));
  if (Array.isArray(s['enum'])) results.push(member(s['enum'] as unknown[], value));
  if (isNumber(value)) results.push(numberOk(s, value));
  if (typeof value === 'string') results.push(stringOk(s, value));
  if (typeof s['format'] === 'string') results.push(formatOk(s['format'], value));
  if (Array.isArray(value)) results.push(arrayOk(s, value, depth));
  if (isRecord(value)) results.push(objectOk(s, value, depth));
  if (Array.isArray(s['allOf'])) results.push(all((s['allOf'] as JsonSchema[]).map((b) => check(b, value, depth + 1))));
  if (Array.isArray(s['anyOf'])) results.push(anyOf(s['anyOf'] as JsonSchema[], value, depth));
  if (Array.isArray(s['oneOf'])) results.push(oneOf(s['oneOf'] as JsonSchema[], value, depth));
  if ('not' in s) {
    const inner = check(s['not'] as JsonSchema, value, depth + 1);
    results.push(inner === undefined ? undefined : !inner);
  }
  if ('if' in s) results.push(conditional(s, value, depth));
  return all(results);
}

/** Whether the value is one of the allowed values (undefined when it only rounds to a rounded one). */
function member(allowed: unknown[], value: unknown): Verdict {
  if (allowed.some((e) => !rounded(e) && equal(e, value))) return true;
  return isNumber(value) && allowed.some((e) => rounded(e) && nearRounded(value, e)) ? undefined : false;
}

function anyOf(branches: JsonSchema[], value: unknown, depth: number): Verdict {
  let unknown = false;
  for (const b of branches) {
    const v = check(b, value, depth + 1);
    if (v === true) return true;
    if (v === undefined) unknown = true;
  }
  return unknown ? undefined : false;
}

function oneOf(branches: JsonSchema[], value: unknown, depth: number): Verdict {
  let passed = 0;
  let unknown = false;
  for (const b of branches) {
    const v = check(b, value, depth + 1);
    if (v === true) passed++;
    if (v === undefined) unknown = true;
  }
  if (passed > 1) return false;
  return unknown ? undefined : passed === 1;
}

function conditional(s: Record<string, unknown>, value: unknown, depth: number): Verdict {
  const condition = check(s['if'] as JsonSchema, value, depth + 1);
  if (condition === undefined) return undefined;
  const branch = condition ? s['then'] : s['else'];
  return branch === undefined ? true : check(branch as JsonSchema, value, depth + 1);
}

function isNumber(value: unknown): value is number | bigint {
  return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint';
}

function isInteger(value: unknown): boolean {
  return typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeOk(type: unknown, value: unknown): Verdict {
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    switch (t) {
      case 'null':
        return value === null;
      case 'boolean':
        return typeof value === 'boolean';
      case 'string':
        return typeof value === 'string';
      case 'integer':
        return isInteger(value);
      case 'number':
        return isNumber(value);
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isRecord(value);
      default:
        return false;
    }
  });
}

/** a < b (-1), a = b (0), a > b (1), exact when either is a BigInt and the other an integer. */
function compare(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    if (typeof a === 'number' && !Number.isInteger(a)) return compareFraction(a, b as bigint);
    if (typeof b === 'number' && !Number.isInteger(b)) return -compareFraction(b, a as bigint);
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareFraction(fraction: number, big: bigint): number {
  return BigInt(Math.floor(fraction)) < big ? -1 : 1;
}

/** An integer the description's parser may have rounded (beyond 2^53): its written digits are not known. */
function rounded(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && !Number.isSafeInteger(n);
}

/** A value that rounds to a rounded bound may lie on either side of the bound as written. */
function nearRounded(value: number | bigint, bound: number): boolean {
  return rounded(bound) && Number(value) === bound;
}

function numberOk(s: Record<string, unknown>, value: number | bigint): Verdict {
  const num = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  const min = num('minimum');
  const max = num('maximum');
  const xmin = num('exclusiveMinimum');
  const xmax = num('exclusiveMaximum');
  if (min !== undefined && compare(value, min) < 0 && !nearRounded(value, min)) return false;
  if (max !== undefined && compare(value, max) > 0 && !nearRounded(value, max)) return false;
  if (xmin !== undefined && compare(value, xmin) <= 0 && !nearRounded(value, xmin)) return false;
  if (xmax !== undefined && compare(value, xmax) >= 0 && !nearRounded(value, xmax)) return false;
  const doubt = [min, max, xmin, xmax].some((b) => b !== undefined && nearRounded(value, b));
  const m = num('multipleOf');
  if (m !== undefined && m > 0) {
    if (typeof value === 'bigint' && Number.isInteger(m)) {
      if (value % BigInt(m) !== 0n) return false;
    } else {
      // As ajv computes it (no multipleOfPrecision): the quotient must be what parseInt makes of it.
      const d = Number(value) / m;
      if (d !== Number.parseInt(String(d))) return false;
    }
  }
  return doubt ? undefined : true;
}

function length(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function regExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

const patterns = new Map<string, RegExp | undefined>();

function patternTest(pattern: string, value: string): Verdict {
  let re = patterns.get(pattern);
  if (!patterns.has(pattern)) {
    re = regExp(pattern);
    if (patterns.size > 1000) patterns.clear();
    patterns.set(pattern, re);
  }
  return re === undefined ? undefined : re.test(value);
}

function stringOk(s: Record<string, unknown>, value: string): Verdict {
  const n = typeof s['minLength'] === 'number' || typeof s['maxLength'] === 'number' ? length(value) : 0;
  if (typeof s['minLength'] === 'number' && n < s['minLength']) return false;
  if (typeof s['maxLength'] === 'number' && n > s['maxLength']) return false;
  if (typeof s['pattern'] === 'string') return patternTest(s['pattern'], value);
  return true;
}

type FormatDef = true | RegExp | ((s: string) => boolean) | { type?: string; validate: RegExp | ((v: never) => boolean) };
/** ajv-formats' full formats with the engine's own: base64 of either alphabet, padded or not (checks/schema.ts). */
const FORMATS = { ...(fullFormats as unknown as Record<string, FormatDef>), byte: isBase64 } as Record<string, FormatDef>;

/** Integer formats and their ranges: OpenAPI's int32 and int64, and the sized ones generators write (Rust, Go, C#). */
const INTEGER_FORMATS: Record<string, { min: bigint; max: bigint }> = {
  int8: { min: -(2n ** 7n), max: 2n ** 7n - 1n },
  int16: { min: -(2n ** 15n), max: 2n ** 15n - 1n },
  int32: INT32,
  int64: INT64,
  uint8: { min: 0n, max: 2n ** 8n - 1n },
  uint16: { min: 0n, max: 2n ** 16n - 1n },
  uint32: { min: 0n, max: 2n ** 32n - 1n },
  uint64: { min: 0n, max: 2n ** 64n - 1n },
};

function formatOk(format: string, value: unknown): Verdict {
  const range = INTEGER_FORMATS[format];
  if (range) {
    if (!isNumber(value)) return true;
    if (!isInteger(value)) return false;
    const big = BigInt(value);
    return big >= range.min && big <= range.max;
  }
  const def = FORMATS[format];
  // A format ajv does not know is ignored (non-strict mode), as is one of another type than the value's.
  if (def === undefined || def === true) return true;
  if (def instanceof RegExp || typeof def === 'function') return typeof value !== 'string' || run(def, value);
  const type = def.type ?? 'string';
  if (type === 'number') return isNumber(value) ? run(def.validate, Number(value)) : true;
  return typeof value !== 'string' || run(def.validate, value);
}

function run(validate: RegExp | ((v: never) => boolean), value: string | number): boolean {
  if (validate instanceof RegExp) {
    validate.lastIndex = 0;
    return validate.test(String(value));
  }
  return (validate as (v: string | number) => boolean)(value);
}

function arrayOk(s: Record<string, unknown>, value: unknown[], depth: number): Verdict {
  const results: Verdict[] = [];
  if (typeof s['minItems'] === 'number' && value.length < s['minItems']) return false;
  if (typeof s['maxItems'] === 'number' && value.length > s['maxItems']) return false;
  if (s['uniqueItems'] === true) {
    for (let i = 0; i < value.length; i++) for (let j = i + 1; j < value.length; j++) if (equal(value[i], value[j])) return false;
  }
  const prefix = Array.isArray(s['prefixItems']) ? (s['prefixItems'] as JsonSchema[]) : [];
  prefix.forEach((p, i) => {
    if (i < value.length) results.push(check(p, value[i], depth + 1));
  });
  if (Array.isArray(s['items'])) results.push(undefined);
  else if (s['items'] !== undefined) for (const item of value.slice(prefix.length)) results.push(check(s['items'] as JsonSchema, item, depth + 1));
  if (s['contains'] !== undefined) {
    const verdicts = value.map((item) => check(s['contains'] as JsonSchema, item, depth + 1));
    if (verdicts.includes(undefined)) results.push(undefined);
    else {
      const n = verdicts.filter(Boolean).length;
      const min = typeof s['minContains'] === 'number' ? s['minContains'] : 1;
      const max = typeof s['maxContains'] === 'number' ? s['maxContains'] : Infinity;
      results.push(n >= min && n <= max);
    }
  }
  return all(results);
}

function objectOk(s: Record<string, unknown>, value: Record<string, unknown>, depth: number): Verdict {
  const keys = Object.keys(value);
  if (typeof s['minProperties'] === 'number' && keys.length < s['minProperties']) return false;
  if (typeof s['maxProperties'] === 'number' && keys.length > s['maxProperties']) return false;
  if (Array.isArray(s['required']) && (s['required'] as unknown[]).some((r) => typeof r === 'string' && !Object.hasOwn(value, r))) return false;
  const results: Verdict[] = [];
  const dependent = s['dependentRequired'];
  if (isRecord(dependent)) {
    for (const [k, list] of Object.entries(dependent)) {
      if (Object.hasOwn(value, k) && Array.isArray(list) && list.some((r) => typeof r === 'string' && !Object.hasOwn(value, r))) return false;
    }
  }
  const dependentSchemas = s['dependentSchemas'];
  if (isRecord(dependentSchemas)) {
    for (const [k, sub] of Object.entries(dependentSchemas)) if (Object.hasOwn(value, k)) results.push(check(sub as JsonSchema, value, depth + 1));
  }
  const props = isRecord(s['properties']) ? (s['properties'] as Record<string, JsonSchema>) : {};
  const patternProps = isRecord(s['patternProperties']) ? (s['patternProperties'] as Record<string, JsonSchema>) : {};
  for (const key of keys) {
    let described = false;
    if (Object.prototype.hasOwnProperty.call(props, key)) {
      described = true;
      results.push(check(props[key] as JsonSchema, value[key], depth + 1));
    }
    for (const [pattern, sub] of Object.entries(patternProps)) {
      const matched = patternTest(pattern, key);
      if (matched === undefined) results.push(undefined);
      else if (matched) {
        described = true;
        results.push(check(sub, value[key], depth + 1));
      }
    }
    if (!described && s['additionalProperties'] !== undefined) results.push(check(s['additionalProperties'] as JsonSchema, value[key], depth + 1));
    if (s['propertyNames'] !== undefined) results.push(check(s['propertyNames'] as JsonSchema, key, depth + 1));
  }
  return all(results);
}

/** Deep equality as ajv's (fast-deep-equal), with a BigInt equal to the number of the same integer. */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return (typeof a === 'bigint' || typeof b === 'bigint') && isInteger(a) && isInteger(b) && BigInt(a) === BigInt(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
  }
  return false;
}
