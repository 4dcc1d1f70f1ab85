import type { JsonSchema } from '../model.ts';
import { schemaFormat, schemaProperties, schemaRequired, schemaTypes } from '../spec/json-schema.ts';
import type { Random } from './random.ts';

export const INT32_MAX = 2147483647;

/** Marker for "no value can be built without inventing a type" (an unconstrained schema). */
export const UNKNOWN = Symbol('unknown');
export type Generated = unknown | typeof UNKNOWN;

/**
 * Builds a value that honours a schema: examples first, then const/enum/default, then type, format and bounds.
 * Unconstrained schemas ("type not shown") give UNKNOWN: no value is invented for them.
 */
export function generate(schema: JsonSchema, random: Random, depth = 0): Generated {
  if (typeof schema === 'boolean') return schema ? UNKNOWN : undefined;
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0];
  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'].find((v) => v !== null) ?? null;
  if ('default' in schema) return schema['default'];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      for (const branch of branches as JsonSchema[]) {
        const value = generate(branch, random, depth + 1);
        if (value !== UNKNOWN) return value;
      }
      return UNKNOWN;
    }
  }
  if (Array.isArray(schema['allOf'])) {
    const merged = (schema['allOf'] as JsonSchema[]).map((s) => generate(s, random, depth + 1));
    if (merged.every((m) => typeof m === 'object' && m !== null && !Array.isArray(m))) {
      return Object.assign({}, ...(merged as object[]));
    }
    return merged.find((m) => m !== UNKNOWN) ?? UNKNOWN;
  }
  const type = schemaTypes(schema).find((t) => t !== 'null');
  switch (type) {
    case 'string':
      return stringValue(schema, random);
    case 'integer':
    case 'number': {
      const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
      const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : Math.max(min, 1000);
      return random.int(Math.ceil(min), Math.floor(max));
    }
    case 'boolean':
      return true;
    case 'array': {
      if (depth > 6) return [];
      const items = (schema['items'] ?? {}) as JsonSchema;
      const count = Math.max(1, typeof schema['minItems'] === 'number' ? schema['minItems'] : 1);
      const values = Array.from({ length: count }, () => generate(items, random, depth + 1));
      return values.includes(UNKNOWN) ? [] : values;
    }
    case 'object':
      return objectValue(schema, random, depth);
    default:
      if (schema['properties']) return objectValue(schema, random, depth);
      return UNKNOWN;
  }
}

function objectValue(schema: Record<string, unknown>, random: Random, depth: number): Generated {
  if (depth > 6) return {};
  const required = new Set(schemaRequired(schema));
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schemaProperties(schema))) {
    const value = generate(prop, random, depth + 1);
    if (value === UNKNOWN) {
      if (required.has(name)) return UNKNOWN;
      continue;
    }
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function stringValue(schema: Record<string, unknown>, random: Random): string {
  switch (schemaFormat(schema)) {
    case 'uuid':
      return random.uuid();
    case 'date-time':
      return new Date(Date.UTC(2026, 0, 1, 0, 0, random.int(0, 86_399))).toISOString();
    case 'date':
      return `2026-01-${String(random.int(10, 28))}`;
    case 'email':
      return `conformance.${random.word(6)}@example.com`;
    case 'uri':
      return `https://example.com/${random.word(6)}`;
    default: {
      const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
      const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : 24;
      const word = `conf-${random.word(8)}`;
      return word.length > max ? word.slice(0, Math.max(min, max)) : word.padEnd(min, 'x');
    }
  }
}

/** A JSON value of another type than the schema declares, or UNKNOWN when the schema declares no type. */
export function wrongTypeValue(schema: JsonSchema): Generated {
  const types = schemaTypes(schema);
  if (types.length === 0) return UNKNOWN;
  const candidates: Array<[string, unknown]> = [
    ['string', 12345],
    ['integer', 'not-a-number'],
    ['number', 'not-a-number'],
    ['boolean', 'not-a-boolean'],
    ['array', 'not-an-array'],
    ['object', 'not-an-object'],
  ];
  const primary = types.find((t) => t !== 'null');
  const found = candidates.find(([t]) => t === primary);
  if (!found) return UNKNOWN;
  const value = found[1];
  // The wrong value must not be accepted by any declared type (e.g. 12345 for ["string","integer"]).
  const typeOf = typeof value === 'number' ? ['integer', 'number'] : ['string'];
  return typeOf.some((t) => types.includes(t)) ? UNKNOWN : value;
}
