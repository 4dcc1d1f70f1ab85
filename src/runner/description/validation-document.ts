import { createHash } from 'node:crypto';
import { compactIndexKeys } from './index-keys.ts';

/**
 * The response side of a description, ready for ajv: the bundled document (internal `$ref`s kept, so a
 * recursive schema stays a finite tree) with every Schema Object rewritten to JSON Schema 2020-12 under the
 * semantics of the document's own OpenAPI version. Response schemas are then compiled as
 * `{ $ref: "<document id>#<pointer>" }`, so each component schema compiles once, however often it is used.
 *
 * Rewrites (per Schema Object):
 * - OpenAPI 3.0 (§4.7.24): `$ref` siblings are ignored; `nullable`; boolean `exclusiveMinimum/Maximum`;
 *   `example` is an annotation; `$id`/`$schema` are not keywords there.
 * - OpenAPI 3.1: JSON Schema 2020-12 as is (a nested `$schema` naming another dialect is dropped), except a
 *   3.0 `nullable: true` left in by a generator: read as 3.0 reads it (null allowed too; without a `type` beside
 *   it ajv would refuse to compile the schema, and the answers it describes could not be judged).
 * - both: `discriminator` next to `oneOf`/`anyOf` selects the alternative by the property's value (mapping,
 *   else the schema name), so a valid subtype no longer fails `oneOf` for matching several alternatives and a
 *   wrong subtype no longer passes; writeOnly properties are not required in a response; `format: int64`
 *   gets the exact-digits keyword (INT64_KEYWORD) so values beyond 2^53 are judged on their digits.
 */
export const INT64_KEYWORD = 'x-conformance-int64';

type Obj = Record<string, unknown>;

const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_KEYWORDS = [
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export interface ValidationDocument {
  /** Absolute URI the document is registered under with ajv. */
  id: string;
  document: Obj;
}

/** A stable id for the description at `source`. */
export function documentId(source: string): string {
  return `https://contract.conformance.local/${createHash('sha1').update(source).digest('hex').slice(0, 16)}.json`;
}

function decodeToken(raw: string): string {
  if (!raw.includes('%')) return raw; // nothing to decode (most tokens): no exception frame per token
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Reads the value at a JSON pointer of a document (no `$ref` following). */
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '#') return doc;
  let current: unknown = doc;
  for (const raw of pointer.replace(/^#/, '').split('/').slice(1)) {
    const decoded = decodeToken(raw);
    const token = decoded.includes('~') ? decoded.replace(/~1/g, '/').replace(/~0/g, '~') : decoded;
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObj(current)) current = current[token];
    else return undefined;
  }
  return current;
}

/**
 * Follows internal `$ref`s from `pointer` until it names an object that is not a reference. Returns the final
 * pointer, or undefined when a reference leaves the document or loops.
 */
export function followRefs(doc: unknown, pointer: string): string | undefined {
  let current = pointer;
  for (let i = 0; i < 32; i++) {
    const node = resolvePointer(doc, current);
    if (!isObj(node) || typeof node['$ref'] !== 'string') return current;
    const ref = node['$ref'];
    if (!ref.startsWith('#')) return undefined;
    current = ref.slice(1);
  }
  return undefined;
}

/** Builds the validation document from a bundled (not dereferenced) OpenAPI 3.0/3.1 description. */
export function validationDocument(bundled: Obj, source: string): ValidationDocument {
  const is30 = String(bundled['openapi']).startsWith('3.0.');
  const rewrite = (schema: unknown): unknown => rewriteSchema(schema, { is30, doc: bundled });
  const document = rewriteDocument(bundled, rewrite) as Obj;
  // Kept for the whole run (the response validators refer to it): its responses keyed by status made compact.
  compactIndexKeys(document);
  return { id: documentId(source), document };
}

/** Copies the OpenAPI structure, rewriting every Schema Object it holds (a `schema` field, components.schemas). */
function rewriteDocument(node: unknown, rewrite: (schema: unknown) => unknown, key = ''): unknown {
  if (Array.isArray(node)) return node.map((v) => rewriteDocument(v, rewrite));
  if (!isObj(node)) return node;
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples' || k.startsWith('x-')) continue; // data, not structure
    if (k === 'schema') out[k] = rewrite(v);
    else if (k === 'schemas' && key === 'components' && isObj(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, rewrite(s)]));
    } else out[k] = rewriteDocument(v, rewrite, k);
  }
  return out;
}

interface RewriteContext {
  is30: boolean;
  /** The bundled document, to look through a `$ref` (writeOnly of a referenced property schema). */
  doc: Obj;
}

function rewriteSchema(schema: unknown, ctx: RewriteContext): unknown {
  if (!isObj(schema)) return schema;
  if (typeof schema['$ref'] === 'string') {
    // 3.0: a Reference Object's siblings are ignored. 3.1: siblings apply (2020-12 semantics).
    if (ctx.is30) return { $ref: schema['$ref'] };
  }
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema') continue;
    // `nullable` is 3.0's; a 3.1 description that still writes it (generators do) means the same: null allowed too.
    if (key === 'nullable' || (ctx.is30 && (key === '$id' || key === 'example'))) continue;
    if (MAP_KEYWORDS.includes(key) && isObj(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteSchema(v, ctx)]));
    } else if (SCHEMA_KEYWORDS.includes(key) && (isObj(value) || typeof value === 'boolean')) {
      out[key] = rewriteSchema(value, ctx);
    } else if (ARRAY_KEYWORDS.includes(key) && Array.isArray(value)) {
      out[key] = value.map((v) => rewriteSchema(v, ctx));
    } else if (ctx.is30 && key === 'exclusiveMinimum' && typeof value === 'boolean') {
      if (value && typeof schema['minimum'] === 'number') out['exclusiveMinimum'] = schema['minimum'];
    } else if (ctx.is30 && key === 'exclusiveMaximum' && typeof value === 'boolean') {
      if (value && typeof schema['maximum'] === 'number') out['exclusiveMaximum'] = schema['maximum'];
    } else {
      out[key] = value;
    }
  }
  if (ctx.is30 && schema['exclusiveMinimum'] === true) delete out['minimum'];
  if (ctx.is30 && schema['exclusiveMaximum'] === true) delete out['maximum'];
  if (out['format'] === 'int64') out[INT64_KEYWORD] = true;
  dropWriteOnlyRequired(out, ctx);
  const discriminated = discriminate(out);
  return schema['nullable'] === true ? nullable(discriminated) : discriminated;
}

/** `nullable: true` (3.0; kept in some 3.1 descriptions): null is allowed as well. */
function nullable(out: Obj): Obj {
  const type = out['type'];
  if (typeof type === 'string') out['type'] = [type, 'null'];
  else if (Array.isArray(type)) out['type'] = type.includes('null') ? type : [...type, 'null'];
  else if (out['enum'] === undefined) return { anyOf: [out, { type: 'null' }] };
  if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
  return out;
}

/** "required" of a writeOnly property takes effect on requests only (OpenAPI 3.0 §4.7.24, 3.1 likewise). */
function dropWriteOnlyRequired(out: Obj, ctx: RewriteContext): void {
  const required = out['required'];
  const props = out['properties'];
  if (!Array.isArray(required) || !isObj(props)) return;
  const writeOnly = (name: unknown): boolean => {
    if (typeof name !== 'string') return false;
    let prop = props[name];
    if (isObj(prop) && typeof prop['$ref'] === 'string' && prop['$ref'].startsWith('#')) {
      prop = resolvePointer(ctx.doc, prop['$ref'].slice(1));
    }
    return isObj(prop) && prop['writeOnly'] === true;
  };
  const kept = required.filter((name) => !writeOnly(name));
  if (kept.length !== required.length) out['required'] = kept;
}

/**
 * `discriminator` with `oneOf`/`anyOf` of references: the object's property value picks the alternative
 * (mapping first, else the referenced schema's name). An object without the property is judged by the plain
 * `oneOf`/`anyOf`. Alternatives that are not references cannot be named: then the schema is left as it is.
 */
function discriminate(out: Obj): Obj {
  const d = out['discriminator'];
  const key = Array.isArray(out['oneOf']) ? 'oneOf' : Array.isArray(out['anyOf']) ? 'anyOf' : undefined;
  if (!isObj(d) || typeof d['propertyName'] !== 'string' || !key) return out;
  const prop = d['propertyName'];
  const alternatives = out[key] as unknown[];
  const targets = new Map<string, string>();
  const mapping = isObj(d['mapping']) ? d['mapping'] : {};
  for (const [value, target] of Object.entries(mapping)) {
    if (typeof target !== 'string') continue;
    targets.set(value, target.includes('/') || target.startsWith('#') ? target : `#/components/schemas/${target}`);
  }
  for (const alt of alternatives) {
    if (!isObj(alt) || typeof alt['$ref'] !== 'string') return out;
    const name = decodeToken(alt['$ref'].split('/').pop() ?? '').replace(/~1/g, '/').replace(/~0/g, '~');
    if (name && !targets.has(name)) targets.set(name, alt['$ref']);
  }
  if (targets.size === 0) return out;
  const { [key]: plain, discriminator, ...rest } = out;
  return {
    ...rest,
    discriminator,
    if: { type: 'object', required: [prop] },
    then: {
      properties: { [prop]: { enum: [...targets.keys()] } },
      allOf: [...targets].map(([value, target]) => ({ if: { properties: { [prop]: { const: value } } }, then: { $ref: target } })),
    },
    else: { [key]: plain },
  };
}

/**
 * Number of schema nodes reachable from `pointer` (following `$ref`s into the document, each target once):
 * the size a compile of that schema has to work through.
 */
export function schemaSize(doc: unknown, pointer: string, limit: number): number {
  const seen = new Set<string>();
  let count = 0;
  const stack: unknown[] = [resolvePointer(doc, pointer)];
  while (stack.length > 0 && count <= limit) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (!isObj(node)) continue;
    count++;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#') && !seen.has(v)) {
        seen.add(v);
        stack.push(resolvePointer(doc, v.slice(1)));
      } else if (typeof v === 'object' && v !== null && k !== 'enum' && k !== 'const' && k !== 'examples' && k !== 'default') {
        stack.push(v);
      }
    }
  }
  return count;
}
