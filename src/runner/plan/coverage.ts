import type { JsonSchema, Operation } from '../model.ts';
import { factsOf, mergedShape } from './keywords.ts';
import { patternValue } from './values.ts';
import type { Random } from './random.ts';

/**
 * What the coverage phase shares with the engine's runner of it: the edge values of a schema (its requests are
 * built in coverage-classes.ts), the steps that shrink a failing request, and how a request is described.
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
  const facts = factsOf(schema);
  if (Array.isArray(schema['enum'])) return [...schema['enum']];
  const branches = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) {
    const typesOf = (b: JsonSchema) => factsOf(b).types;
    if (branches.some((b) => typesOf(b).length === 1 && typesOf(b)[0] === 'null')) out.push(null);
    if (schema['discriminator'] === undefined) {
      for (const b of branches) if (typesOf(b)[0] !== 'null') out.push(...boundaryValues(b, random).slice(0, 3));
    }
    return out;
  }
  if (facts.nullable) out.push(null);
  const type = facts.primary;
  if (type === 'integer') {
    const range = facts.integer;
    if (range) {
      out.push(range.lo, range.hi);
      if (range.lo <= 0 && range.hi >= 0) out.push(0);
      if (range.lo <= -1 && range.hi >= -1) out.push(-1);
    }
  } else if (type === 'number') {
    const b = facts.bounds;
    const lo = b.min === undefined ? -HUGE_NUMBER : b.exclusiveMin ? nextUp(b.min) : b.min;
    const hi = b.max === undefined ? HUGE_NUMBER : b.exclusiveMax ? nextDown(b.max) : b.max;
    if (lo <= hi) {
      if (lo <= 0 && hi >= 0) out.push(0);
      if (lo <= -1 && hi >= -1) out.push(-1);
      out.push(hi, lo);
    }
  } else if (type === 'string') {
    const min = facts.minLength;
    const max = facts.maxLength;
    const constrained = facts.format !== undefined || facts.pattern !== undefined;
    if (facts.pattern !== undefined) {
      const matched = patternValue(facts.pattern, random, min, max);
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
    if (facts.minItems === 0) out.push([]);
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
  const required = new Set(schema ? factsOf(mergedShape(schema)).required : []);
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
