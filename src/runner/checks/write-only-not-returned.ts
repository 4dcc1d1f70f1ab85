import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * A property the response schema marks `writeOnly` (a password, say) SHOULD NOT be sent in a response
 * (OpenAPI 3.0 and 3.1 alike): one that is present is a warning, never a failure. The schema is read from the
 * description's validation document, so each version's own `$ref` rules hold (3.0: a `writeOnly` beside a
 * `$ref` is ignored; 3.1: it applies). Under `oneOf`/`anyOf` a property counts as writeOnly only when every
 * alternative that declares it marks it so.
 */
export const writeOnlyNotReturned: Check = {
  id: 'write-only-not-returned',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    if (!spec?.schema || response.json === undefined || response.truncated || response.jsonError) return [];
    const ref = spec.schemaRef;
    const docId = ref?.split('#')[0];
    const doc = docId ? ctx.validator.documentOf(docId) : undefined;
    // Most schemas say nothing of writeOnly: known before the reference is resolved again for each answer.
    if (mentionedBefore(ref ?? spec.schema, doc) === false) return [];
    const root = ref && doc ? resolve(doc, `#${ref.slice(ref.indexOf('#') + 1)}`) : spec.schema;
    if (!mentionsWriteOnly(ref ?? spec.schema, root, doc)) return [];
    const found: string[] = [];
    walk(root, response.json, '', doc, found, 0);
    if (found.length === 0) return [];
    return [
      finding(
        ctx,
        'write-only-not-returned',
        'warning',
        `Response ${response.status} returns ${found.slice(0, 5).join(', ')}${found.length > 5 ? ` (+${found.length - 5} more)` : ''}, marked writeOnly: OpenAPI says it SHOULD NOT be sent in a response.`,
        { expected: 'writeOnly properties absent', actual: found.slice(0, 20), specLocation: `${ctx.operation.specFile}#${spec.pointer}` },
      ),
    ];
  },
};

type Obj = Record<string, unknown>;

/** Per validation document, by reference; per schema object otherwise. */
const known = new WeakMap<object, Map<string, boolean>>();
const knownSchemas = new WeakMap<object, boolean>();

/** What `mentionsWriteOnly` found for this schema before (undefined: not asked yet). */
function mentionedBefore(key: unknown, doc: Obj | undefined): boolean | undefined {
  if (typeof key === 'string') return doc ? known.get(doc)?.get(key) : undefined;
  return isObj(key) ? knownSchemas.get(key) : undefined;
}

/** True when the schema or anything it references says writeOnly (computed once per schema): else nothing to walk. */
function mentionsWriteOnly(key: unknown, root: unknown, doc: Obj | undefined): boolean {
  const byRef = typeof key === 'string' && doc ? (known.get(doc) ?? known.set(doc, new Map()).get(doc)!) : undefined;
  const cached = typeof key === 'string' ? byRef?.get(key) : isObj(key) ? knownSchemas.get(key) : undefined;
  if (cached !== undefined) return cached;
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  let found = false;
  while (stack.length > 0 && !found) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node)) {
      const o = node as Obj;
      if (o['writeOnly'] === true) found = true;
      if (typeof o['$ref'] === 'string') stack.push(resolve(doc, o['$ref']));
    }
    for (const v of Array.isArray(node) ? node : Object.values(node)) if (typeof v === 'object' && v !== null) stack.push(v);
  }
  if (typeof key === 'string') byRef?.set(key, found);
  else if (isObj(key)) knownSchemas.set(key, found);
  return found;
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A local reference ("#/a/b", percent- and ~-escaped) in the document; undefined when it does not resolve. */
function resolve(doc: Obj | undefined, ref: string): unknown {
  if (!doc) return undefined;
  const hash = ref.indexOf('#');
  if (hash < 0) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(hash + 1).split('/').slice(1)) {
    let key = raw;
    try {
      key = decodeURIComponent(raw);
    } catch {
      /* as is */
    }
    key = key.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObj(node) && !Array.isArray(node)) return undefined;
    node = (node as Obj)[key];
  }
  return node;
}

/** The schema behind a `$ref` chain (bounded), or the schema itself. */
function deref(schema: unknown, doc: Obj | undefined): unknown {
  let current = schema;
  for (let hops = 0; hops < 16 && isObj(current) && typeof current['$ref'] === 'string'; hops++) {
    const target = resolve(doc, current['$ref']);
    if (target === undefined) return current;
    current = target;
  }
  return current;
}

interface PropInfo {
  writeOnly: boolean;
  schemas: unknown[];
}

const propertiesOf = new WeakMap<object, Map<string, PropInfo>>();

/**
 * What a schema says about an object's properties: through $ref, allOf and (conservatively) oneOf/anyOf.
 * Computed once per schema object (a schema reached along many paths is not walked again); a cycle ends empty.
 */
function properties(schema: unknown, doc: Obj | undefined, seen: Set<unknown>): Map<string, PropInfo> {
  if (!isObj(schema)) return new Map();
  const cached = propertiesOf.get(schema);
  if (cached) return cached;
  if (seen.has(schema)) return new Map();
  seen.add(schema);
  const out = computeProperties(schema, doc, seen);
  seen.delete(schema);
  propertiesOf.set(schema, out);
  return out;
}

function computeProperties(schema: Obj, doc: Obj | undefined, seen: Set<unknown>): Map<string, PropInfo> {
  const out = new Map<string, PropInfo>();
  const all = (more: Map<string, PropInfo>) => {
    for (const [name, info] of more) {
      const had = out.get(name);
      out.set(name, had ? { writeOnly: had.writeOnly || info.writeOnly, schemas: [...had.schemas, ...info.schemas] } : info);
    }
  };
  // 3.1: keywords beside a $ref apply too (a 3.0 document keeps none beside it).
  if (typeof schema['$ref'] === 'string') all(properties(resolve(doc, schema['$ref']), doc, seen));
  if (isObj(schema['properties'])) {
    for (const [name, prop] of Object.entries(schema['properties'])) {
      const writeOnly = (isObj(prop) && prop['writeOnly'] === true) || (isObj(deref(prop, doc)) && (deref(prop, doc) as Obj)['writeOnly'] === true);
      all(new Map([[name, { writeOnly, schemas: [prop] }]]));
    }
  }
  for (const part of Array.isArray(schema['allOf']) ? schema['allOf'] : []) all(properties(part, doc, seen));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alternatives = Array.isArray(schema[key]) ? (schema[key] as unknown[]).map((s) => properties(s, doc, seen)) : [];
    const names = new Set(alternatives.flatMap((m) => [...m.keys()]));
    const merged = new Map<string, PropInfo>();
    for (const name of names) {
      const declaring = alternatives.flatMap((m) => (m.has(name) ? [m.get(name)!] : []));
      merged.set(name, { writeOnly: declaring.every((d) => d.writeOnly), schemas: declaring.flatMap((d) => d.schemas) });
    }
    all(merged);
  }
  return out;
}

/** The item schemas of an array schema (through $ref and allOf). */
function itemSchemas(schema: unknown, doc: Obj | undefined, depth = 0): unknown[] {
  const s = deref(schema, doc);
  if (!isObj(s) || depth > 8) return [];
  const own = s['items'] !== undefined && typeof s['items'] !== 'boolean' ? [s['items']] : [];
  return [...own, ...(Array.isArray(s['allOf']) ? s['allOf'].flatMap((p) => itemSchemas(p, doc, depth + 1)) : [])];
}

function walk(schema: unknown, value: unknown, path: string, doc: Obj | undefined, found: string[], depth: number): void {
  if (depth > 64 || found.length > 50 || schema === undefined) return;
  if (Array.isArray(value)) {
    const items = itemSchemas(schema, doc);
    value.forEach((v, i) => items.forEach((s) => walk(s, v, `${path}/${i}`, doc, found, depth + 1)));
    return;
  }
  if (!isObj(value)) return;
  const props = properties(schema, doc, new Set());
  for (const [key, v] of Object.entries(value)) {
    const info = props.get(key);
    if (!info) continue;
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (info.writeOnly) found.push(at);
    else for (const s of info.schemas) walk(s, v, at, doc, found, depth + 1);
  }
}
