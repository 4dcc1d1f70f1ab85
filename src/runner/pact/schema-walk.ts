/**
 * Walks a consumer's expected body along the contract's schema to find properties the contract does not
 * declare. JSON Schema lets such properties through when additional properties are allowed, which the
 * contract does for response records; but a consumer that relies on a property the contract does not
 * document is relying on something the provider never promised, so each one is reported.
 *
 * Rules:
 *  - an object schema with `properties` documents its shape: any other key is undeclared, unless
 *    `patternProperties` matches it or `additionalProperties` is a schema (a documented map);
 *  - a schema that declares no `properties` (an unconstrained `{}` or a bare `type: object`: "not shown")
 *    documents nothing, so nothing under it is reported;
 *  - `allOf` members combine (a property declared by any member is declared); for `anyOf`/`oneOf` the
 *    branch that explains the value best (fewest undeclared properties) is taken.
 * Types, formats, enums and the like are ajv's job (SchemaValidator); this walk only looks at property names.
 */
import type { JsonSchema } from '../model.ts';

export interface UndeclaredProperty {
  /** JSON pointer of the property in the body, e.g. "/data/0/fieldKey". */
  instancePath: string;
  property: string;
  /** Path in the (dereferenced) schema of the object that does not declare it, e.g. "/anyOf/0". */
  schemaPath: string;
}

type Obj = Record<string, unknown>;
interface Conjunct {
  schema: Obj;
  path: string;
}

const MAX_ALTERNATIVES = 64;
const MAX_DEPTH = 64;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function admits(schema: Obj, type: string): boolean {
  const declared = schema['type'];
  const types = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : undefined;
  if (!types) return true;
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** Disjunctive normal form: each alternative is a list of schemas that all apply. */
function alternatives(schema: JsonSchema, path: string, depth = 0): Conjunct[][] {
  if (!isObj(schema) || depth > MAX_DEPTH) return [[]];
  let result: Conjunct[][] = [[{ schema, path }]];
  const allOf = schema['allOf'];
  if (Array.isArray(allOf)) {
    allOf.forEach((member, i) => {
      result = cross(result, alternatives(member as JsonSchema, `${path}/allOf/${i}`, depth + 1));
    });
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const union = branches.flatMap((b, i) => alternatives(b as JsonSchema, `${path}/${keyword}/${i}`, depth + 1));
    result = cross(result, union);
  }
  return result;
}

function cross(a: Conjunct[][], b: Conjunct[][]): Conjunct[][] {
  const out: Conjunct[][] = [];
  for (const x of a) for (const y of b) if (out.length < MAX_ALTERNATIVES) out.push([...x, ...y]);
  return out;
}

/** Every property the contract does not declare, in the best-fitting reading of the schema. */
export function undeclaredProperties(value: unknown, schema: JsonSchema): UndeclaredProperty[] {
  return walk(value, [{ schema: isObj(schema) ? schema : {}, path: '' }], '', 0);
}

function walk(value: unknown, conjuncts: Conjunct[], instancePath: string, depth: number): UndeclaredProperty[] {
  if (depth > MAX_DEPTH || (!isObj(value) && !Array.isArray(value))) return [];
  let alts: Conjunct[][] = [[]];
  for (const c of conjuncts) alts = cross(alts, alternatives(c.schema, c.path));
  const type = jsonType(value);
  const fitting = alts.filter((alt) => alt.every((c) => admits(c.schema, type)));
  if (fitting.length === 0) return []; // a type mismatch: ajv reports it
  let best: UndeclaredProperty[] | undefined;
  for (const alt of fitting) {
    const issues = isObj(value) ? walkObject(value, alt, instancePath, depth) : walkArray(value as unknown[], alt, instancePath, depth);
    if (!best || issues.length < best.length) best = issues;
    if (best.length === 0) break;
  }
  return best ?? [];
}

function walkObject(value: Obj, alt: Conjunct[], instancePath: string, depth: number): UndeclaredProperty[] {
  const documenting = alt.filter((c) => isObj(c.schema['properties']));
  const issues: UndeclaredProperty[] = [];
  for (const [key, child] of Object.entries(value)) {
    const childPath = `${instancePath}/${escape(key)}`;
    const sub: Conjunct[] = [];
    let declared = documenting.length === 0;
    for (const c of alt) {
      const props = c.schema['properties'];
      if (isObj(props) && key in props) {
        declared = true;
        sub.push({ schema: isObj(props[key]) ? (props[key] as Obj) : {}, path: `${c.path}/properties/${escape(key)}` });
      }
      const patterns = c.schema['patternProperties'];
      if (isObj(patterns)) {
        for (const [pattern, s] of Object.entries(patterns)) {
          if (safeTest(pattern, key)) {
            declared = true;
            sub.push({ schema: isObj(s) ? s : {}, path: `${c.path}/patternProperties/${escape(pattern)}` });
          }
        }
      }
      const additional = c.schema['additionalProperties'];
      if (isObj(additional) && !(isObj(props) && key in props)) {
        declared = true;
        sub.push({ schema: additional, path: `${c.path}/additionalProperties` });
      }
    }
    if (!declared) {
      issues.push({ instancePath: childPath, property: key, schemaPath: documenting[0]?.path ?? '' });
      continue;
    }
    issues.push(...walk(child, sub, childPath, depth + 1));
  }
  return issues;
}

function walkArray(value: unknown[], alt: Conjunct[], instancePath: string, depth: number): UndeclaredProperty[] {
  const issues: UndeclaredProperty[] = [];
  value.forEach((item, i) => {
    const sub: Conjunct[] = [];
    for (const c of alt) {
      const prefix = c.schema['prefixItems'];
      if (Array.isArray(prefix) && i < prefix.length) {
        const s: unknown = prefix[i];
        sub.push({ schema: isObj(s) ? s : {}, path: `${c.path}/prefixItems/${i}` });
        continue;
      }
      const items = c.schema['items'];
      if (isObj(items)) sub.push({ schema: items, path: `${c.path}/items` });
    }
    issues.push(...walk(item, sub, `${instancePath}/${i}`, depth + 1));
  });
  return issues;
}

function safeTest(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(key);
  } catch {
    return false;
  }
}

/**
 * The schema with every `required` removed: a consumer may expect fewer properties than a response
 * carries (pact matches a subset), so a property the consumer leaves out is never an incompatibility.
 */
export function withoutRequired(schema: JsonSchema, seen = new Map<object, JsonSchema>()): JsonSchema {
  if (!isObj(schema)) return schema;
  const done = seen.get(schema);
  if (done !== undefined) return done;
  const out: Obj = {};
  seen.set(schema, out);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required' && Array.isArray(value)) continue;
    if (['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'].includes(key) && isObj(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutRequired(v as JsonSchema, seen)]));
    } else if (['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key) && Array.isArray(value)) {
      out[key] = value.map((v) => withoutRequired(v as JsonSchema, seen));
    } else if (
      ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'].includes(key) &&
      (isObj(value) || typeof value === 'boolean')
    ) {
      out[key] = withoutRequired(value as JsonSchema, seen);
    } else {
      out[key] = value;
    }
  }
  return out;
}
