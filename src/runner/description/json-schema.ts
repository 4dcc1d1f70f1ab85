import type { JsonSchema } from '../model.ts';

/**
 * OpenAPI 3.0 Schema Object -> JSON Schema 2020-12 (OpenAPI 3.0.3 §4.7.24; OpenAPI 3.1 §4.8.24 uses 2020-12
 * as is). Handles `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum` and `example`. Returns a new
 * object; the input is not changed. Cycles (recursive schemas after dereferencing) are preserved.
 */
export function openapi30ToJsonSchema(schema: JsonSchema, seen = new Map<object, JsonSchema>()): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return schema;
  const done = seen.get(schema);
  if (done !== undefined) return done;
  const out: Record<string, unknown> = {};
  seen.set(schema, out);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable') continue;
    if (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions') {
      out[key] = mapValues(value, (v) => openapi30ToJsonSchema(v as JsonSchema, seen));
    } else if (['items', 'additionalProperties', 'not', 'contains', 'propertyNames'].includes(key) && isSchema(value)) {
      out[key] = openapi30ToJsonSchema(value, seen);
    } else if (['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key) && Array.isArray(value)) {
      out[key] = value.map((v: JsonSchema) => openapi30ToJsonSchema(v, seen));
    } else if (key === 'exclusiveMinimum' && typeof value === 'boolean') {
      if (value && typeof schema['minimum'] === 'number') out['exclusiveMinimum'] = schema['minimum'];
    } else if (key === 'exclusiveMaximum' && typeof value === 'boolean') {
      if (value && typeof schema['maximum'] === 'number') out['exclusiveMaximum'] = schema['maximum'];
    } else if (key === 'example') {
      out['examples'] = [value];
    } else {
      out[key] = value;
    }
  }
  if (schema['exclusiveMinimum'] === true) delete out['minimum'];
  if (schema['exclusiveMaximum'] === true) delete out['maximum'];
  if (schema['nullable'] === true) {
    const type = out['type'];
    if (typeof type === 'string') out['type'] = [type, 'null'];
    else if (Array.isArray(type)) out['type'] = type.includes('null') ? type : [...type, 'null'];
    else if (out['enum'] === undefined) return wrapNullable(out, seen, schema);
    if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
  }
  return out;
}

function wrapNullable(out: Record<string, unknown>, seen: Map<object, JsonSchema>, key: object): JsonSchema {
  const wrapped = { anyOf: [out, { type: 'null' }] };
  seen.set(key, wrapped);
  return wrapped;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fn(v)]));
}

/** The declared JSON types of a schema ("string", "integer", ...), empty when unconstrained. */
export function schemaTypes(schema: JsonSchema): string[] {
  if (typeof schema !== 'object') return [];
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [];
}

export function schemaProperties(schema: JsonSchema): Record<string, JsonSchema> {
  if (typeof schema !== 'object') return {};
  const props = schema['properties'];
  return typeof props === 'object' && props !== null ? (props as Record<string, JsonSchema>) : {};
}

export function schemaRequired(schema: JsonSchema): string[] {
  if (typeof schema !== 'object') return [];
  const req = schema['required'];
  return Array.isArray(req) ? req.filter((r): r is string => typeof r === 'string') : [];
}

export function schemaFormat(schema: JsonSchema): string | undefined {
  return typeof schema === 'object' && typeof schema['format'] === 'string' ? schema['format'] : undefined;
}
