import type { JsonSchema, Operation } from '../model.ts';
import { schemaFormat, schemaProperties, schemaRequired, schemaTypes } from '../description/json-schema.ts';
import { patternValue, integerRange, isOmitted, numericBounds, generate, UNKNOWN } from './values.ts';
import type { Random } from './random.ts';

/**
 * The coverage phase: schema-valid variations of an operation's positive request, enumerated in a fixed order
 * (so the same seed sends the same requests) and cut at --max-examples. For each body property and each query
 * parameter: the boundaries of its numeric and length constraints (exclusive bounds honoured), each enum value,
 * null where nullable, true and false, the empty and a non-ASCII string, huge and negative numbers where no
 * bound forbids them, and the optional property left out; then every field at its low and at its high end
 * together. Every value stays inside the schema: a server error on any of them is the server's fault.
 */

export const DEFAULT_MAX_EXAMPLES = 10;

export interface Variation {
  /** What was varied, e.g. "body.price = 1.7976931348623157e+308". */
  label: string;
  body?: unknown;
  query?: Record<string, unknown>;
}

const UNICODE = 'Ünïcødé ✓ 𝔘 中文';
const HUGE_NUMBER = 1.7976931348623157e308;

/** Schema-valid values at the edges of a schema, in a fixed order; [] when the schema shows no type. */
export function boundaryValues(schema: JsonSchema, random: Random): unknown[] {
  if (typeof schema !== 'object') return [];
  if ('const' in schema) return [schema['const']];
  const out: unknown[] = [];
  const types = schemaTypes(schema);
  if (Array.isArray(schema['enum'])) return [...schema['enum']];
  const branches = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) {
    if (branches.some((b) => schemaTypes(b).length === 1 && schemaTypes(b)[0] === 'null')) out.push(null);
    if (schema['discriminator'] === undefined) {
      for (const b of branches) if (schemaTypes(b)[0] !== 'null') out.push(...boundaryValues(b, random).slice(0, 3));
    }
    return out;
  }
  if (types.includes('null')) out.push(null);
  const type = types.find((t) => t !== 'null');
  if (type === 'integer') {
    const range = integerRange(schema);
    if (range) {
      out.push(range.lo, range.hi);
      if (range.lo <= 0 && range.hi >= 0) out.push(0);
      if (range.lo <= -1 && range.hi >= -1) out.push(-1);
    }
  } else if (type === 'number') {
    const b = numericBounds(schema);
    const lo = b.min === undefined ? -HUGE_NUMBER : b.exclusiveMin ? nextUp(b.min) : b.min;
    const hi = b.max === undefined ? HUGE_NUMBER : b.exclusiveMax ? nextDown(b.max) : b.max;
    if (lo <= hi) {
      if (lo <= 0 && hi >= 0) out.push(0);
      if (lo <= -1 && hi >= -1) out.push(-1);
      out.push(hi, lo);
    }
  } else if (type === 'string') {
    const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
    const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : undefined;
    const constrained = schemaFormat(schema) !== undefined || typeof schema['pattern'] === 'string';
    if (typeof schema['pattern'] === 'string') {
      const matched = patternValue(schema['pattern'], random, min, max);
      if (matched !== undefined) out.push(matched);
    } else if (!constrained) {
      if (min === 0) out.push('');
      const unicode = [...UNICODE];
      const fit = (n: number) => Array.from({ length: n }, (_, i) => unicode[i % unicode.length]).join('');
      out.push(fit(Math.max(min, Math.min(max ?? unicode.length, unicode.length))));
      if (min > 0) out.push('x'.repeat(min));
      if (max !== undefined && max <= 10_000) out.push('x'.repeat(max));
    }
  } else if (type === 'boolean') {
    out.push(true, false);
  } else if (type === 'array') {
    const minItems = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
    if (minItems === 0) out.push([]);
  }
  return out;
}

function nextUp(x: number): number {
  return x + Math.max(Math.abs(x) * Number.EPSILON, Number.MIN_VALUE) * 2;
}

function nextDown(x: number): number {
  return x - Math.max(Math.abs(x) * Number.EPSILON, Number.MIN_VALUE) * 2;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Smaller requests that may still fail the same way, in the order to try them (Hypothesis-style greedy
 * shrinking over the request): optional body fields and query parameters left out one at a time, then each
 * varied value put back to the plain positive value.
 */
export function shrinkSteps(op: Operation, failing: Variation, positive: { body?: unknown; query: Record<string, unknown> }): Variation[] {
  const steps: Variation[] = [];
  const schema = op.requestBody?.schema;
  const required = new Set(schema ? schemaRequired(schema) : []);
  if (isRecord(failing.body)) {
    for (const name of Object.keys(failing.body)) {
      if (required.has(name)) continue;
      const { [name]: _left, ...rest } = failing.body;
      steps.push({ label: `${failing.label}, without body.${name}`, body: rest, ...(failing.query ? { query: failing.query } : {}) });
    }
    if (isRecord(positive.body)) {
      for (const [name, value] of Object.entries(failing.body)) {
        const plain = positive.body[name];
        if (plain === undefined || JSON.stringify(plain) === JSON.stringify(value)) continue;
        steps.push({ label: `${failing.label}, body.${name} back to ${show(plain)}`, body: { ...failing.body, [name]: plain }, ...(failing.query ? { query: failing.query } : {}) });
      }
    }
  }
  if (failing.query) {
    for (const param of op.parameters) {
      if (param.in !== 'query' || param.required || !(param.name in failing.query)) continue;
      const { [param.name]: _left, ...rest } = failing.query;
      steps.push({ label: `${failing.label}, without query.${param.name}`, query: rest, ...(failing.body !== undefined ? { body: failing.body } : {}) });
    }
  }
  return steps;
}

/** What a request varies from the positive one, e.g. "body.a = 1.79e+308, body.b = 1.79e+308, without body.tax". */
export function describeVariation(v: Variation, positive: { body?: unknown; query: Record<string, unknown> }): string {
  const parts: string[] = [];
  const diff = (prefix: string, now: unknown, before: unknown) => {
    if (!isRecord(now) || !isRecord(before)) {
      if (JSON.stringify(now) !== JSON.stringify(before)) parts.push(`${prefix} = ${show(now)}`);
      return;
    }
    for (const [k, value] of Object.entries(now)) if (JSON.stringify(value) !== JSON.stringify(before[k])) parts.push(`${prefix}.${k} = ${show(value)}`);
    for (const k of Object.keys(before)) if (!(k in now)) parts.push(`without ${prefix}.${k}`);
  };
  if (v.body !== undefined) diff('body', v.body, positive.body);
  if (v.query) diff('query', v.query, positive.query);
  return parts.length > 0 ? parts.join(', ') : 'the positive request itself';
}
