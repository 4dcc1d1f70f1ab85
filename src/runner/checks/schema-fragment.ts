/**
 * The part of a schema a validation error is about, small enough to show next to the error: the keywords
 * of the (sub)schema that holds the failing keyword, with nested schemas summarised by their type, so a
 * reader sees "expected {type: boolean}" or "{type: object, required: [id, code]}" instead of an empty box.
 */

/** Nested schemas are shown as their type (or "schema") beyond this depth. */
const MAX_DEPTH = 1;
/** Object keywords with more entries than this are cut, with a count of the rest. */
const MAX_ENTRIES = 12;

const NESTED_MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const NESTED_ONE = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems']);
const NESTED_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Words that say nothing about what is expected. */
const NOISE = new Set(['description', 'title', 'examples', 'example', '$comment', '$id', '$schema', '$anchor', 'deprecated', 'readOnly', 'writeOnly', 'xml', 'externalDocs', 'discriminator']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A nested schema as one short value: its type (with format), its enum or const, else "schema". */
function summary(schema: unknown): unknown {
  if (typeof schema === 'boolean') return schema;
  if (!isObject(schema)) return 'schema';
  if ('const' in schema) return { const: schema['const'] };
  if (Array.isArray(schema['enum'])) return { enum: schema['enum'] };
  const type = schema['type'];
  if (typeof type === 'string' || Array.isArray(type)) {
    const format = schema['format'];
    const shown = Array.isArray(type) ? type.join(' | ') : type;
    return typeof format === 'string' ? `${shown} (${format})` : shown;
  }
  for (const k of ['oneOf', 'anyOf', 'allOf']) if (Array.isArray(schema[k])) return `${k} of ${(schema[k] as unknown[]).length}`;
  return 'schema';
}

function fragmentAt(schema: unknown, depth: number): unknown {
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (NOISE.has(key) || key.startsWith('x-')) continue;
    if (NESTED_MAP.has(key) && isObject(value)) {
      const entries = Object.entries(value);
      const shown = entries.slice(0, MAX_ENTRIES).map(([k, v]) => [k, depth < MAX_DEPTH ? fragmentAt(v, depth + 1) : summary(v)] as const);
      const map: Record<string, unknown> = Object.fromEntries(shown);
      if (entries.length > MAX_ENTRIES) map['…'] = `${entries.length - MAX_ENTRIES} more`;
      out[key] = map;
    } else if (NESTED_ONE.has(key) && (isObject(value) || typeof value === 'boolean')) {
      out[key] = depth < MAX_DEPTH ? fragmentAt(value, depth + 1) : summary(value);
    } else if (NESTED_LIST.has(key) && Array.isArray(value)) {
      out[key] = value.map(summary);
    } else if (Array.isArray(value) && value.length > MAX_ENTRIES) {
      out[key] = [...value.slice(0, MAX_ENTRIES), `… ${value.length - MAX_ENTRIES} more`];
    } else if (!isObject(value)) {
      out[key] = value;
    }
  }
  return out;
}

/**
 * The schema a failing keyword belongs to, compacted: own keywords kept, nested schemas one level deep and
 * then summarised. Deterministic and bounded, whatever the size or recursion of the contract's schema.
 */
export function schemaFragment(parentSchema: unknown): unknown {
  if (typeof parentSchema === 'boolean') return parentSchema;
  if (!isObject(parentSchema)) return undefined;
  // Summarise nested schemas of the parent right away: its own keywords are what the error is about. Built once
  // per schema (a schema that fails fails on many answers; the fragment is shared, never changed).
  let known = fragments.get(parentSchema);
  if (known === undefined) fragments.set(parentSchema, (known = fragmentAt(parentSchema, MAX_DEPTH)));
  return known;
}

const fragments = new WeakMap<object, unknown>();
