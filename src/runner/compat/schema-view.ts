/**
 * Schemas read by meaning: `$ref`s followed (keeping the pointer of where each definition lives), `allOf`
 * members merged into one view (a reshuffled or re-split composition reads the same), 3.0's `nullable` and
 * boolean exclusive bounds read as 3.1 writes them. Recursive schemas are finite here: a view names its members'
 * nodes and is made one level at a time; `canonical` stops at a cycle with a marker of its depth.
 */
import { pointerToken } from '../description/load.ts';

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema (or `true`/`false`) and the pointer of where it is written. */
export interface Node {
  s: unknown;
  ptr: string;
}

export function child(node: Node, ...keys: Array<string | number>): Node | undefined {
  let s = node.s;
  let ptr = node.ptr;
  for (const k of keys) {
    if (!isObj(s) && !Array.isArray(s)) return undefined;
    s = (s as Record<string, unknown>)[k as string];
    if (s === undefined) return undefined;
    ptr = `${ptr}/${pointerToken(String(k))}`;
  }
  return { s, ptr };
}

/** Follows a local `$ref` chain; the node of the definition, or the node itself. */
export function deref(root: Obj, node: Node, depth = 0): Node {
  if (!isObj(node.s) || typeof node.s['$ref'] !== 'string' || depth > 64) return node;
  const ref = node.s['$ref'];
  if (!ref.startsWith('#')) return node;
  let s: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObj(s) && !Array.isArray(s)) return node;
    s = (s as Record<string, unknown>)[token];
  }
  if (s === undefined) return node;
  const target = deref(root, { s, ptr: ref.slice(1) }, depth + 1);
  // 3.1: keywords beside a $ref apply too (read as an allOf of the two).
  const siblings = Object.keys(node.s).filter((k) => k !== '$ref' && !NOT_MEANING.has(k));
  if (siblings.length === 0) return target;
  const rest = Object.fromEntries(siblings.map((k) => [k, (node.s as Obj)[k]]));
  return { s: { allOf: [target.s, rest] }, ptr: node.ptr, ...{ members: [target, { s: rest, ptr: node.ptr }] } } as Node;
}

/** Keywords that do not change what a schema accepts. */
const NOT_MEANING = new Set(['description', 'title', 'example', 'examples', '$comment', 'externalDocs', 'xml', '$id', '$schema', '$anchor', '$defs', 'definitions']);

/** The nodes of a schema with its `allOf` members taken apart (recursively), each dereferenced. */
export function members(root: Obj, nodes: readonly Node[]): Node[] {
  const out: Node[] = [];
  const seen = new Set<string>();
  const visit = (raw: Node) => {
    const node = deref(root, raw);
    const split = (node as Node & { members?: Node[] }).members;
    if (split) {
      split.forEach((m) => visit(m));
      return;
    }
    if (seen.has(node.ptr)) return;
    seen.add(node.ptr);
    out.push(node);
    if (isObj(node.s) && Array.isArray(node.s['allOf'])) node.s['allOf'].forEach((_, i) => visit(child(node, 'allOf', i)!));
  };
  nodes.forEach(visit);
  return out;
}

/** One schema as merged from its members: what the comparison reads. */
export interface View {
  /** Where it is written (its first member with content). */
  ptr: string;
  members: Node[];
  /** Types without null; undefined = any type. Empty: no value (a contradiction or `false`). */
  types?: string[];
  nullable: boolean;
  required: Set<string>;
  /** Property name -> the nodes that describe it (several where allOf members each say something). */
  properties: Map<string, Node[]>;
  /** The first member's value and pointer for each other keyword (bounds: the tightest). */
  keywords: Map<string, { value: unknown; ptr: string }>;
  /** Items, additionalProperties, not: the nodes (merged when several). */
  items: Node[];
  additional: Node[];
  /** false when additionalProperties is false in some member. */
  closed: boolean;
}

const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxContains', 'maxProperties']);
const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minContains', 'minProperties']);

export function view(root: Obj, nodes: readonly Node[]): View {
  const all = members(root, nodes);
  const v: View = {
    ptr: (all.find((n) => isObj(n.s) && Object.keys(n.s).length > 0) ?? all[0] ?? nodes[0] ?? { ptr: '' }).ptr,
    members: all,
    nullable: false,
    required: new Set(),
    properties: new Map(),
    keywords: new Map(),
    items: [],
    additional: [],
    closed: false,
  };
  let nullableSaid: boolean | undefined;
  for (const node of all) {
    if (node.s === false) v.types = [];
    if (!isObj(node.s)) continue;
    const s = node.s;
    const types = typesOf(s) ?? typeAlternatives(s);
    if (types) {
      const nonNull = types.filter((t) => t !== 'null');
      const hasNull = types.includes('null') || s['nullable'] === true;
      v.types = v.types ? intersect(v.types, nonNull) : nonNull;
      nullableSaid = nullableSaid === undefined ? hasNull : nullableSaid && hasNull;
    } else if (s['nullable'] === true) nullableSaid ??= true;
    if (Array.isArray(s['required'])) for (const r of s['required']) if (typeof r === 'string') v.required.add(r);
    const props = child(node, 'properties');
    if (props && isObj(props.s)) {
      for (const name of Object.keys(props.s)) {
        const list = v.properties.get(name) ?? [];
        list.push(child(props, name)!);
        v.properties.set(name, list);
      }
    }
    const items = child(node, 'items');
    if (items && !Array.isArray(items.s)) v.items.push(items);
    const additional = child(node, 'additionalProperties');
    if (additional?.s === false) v.closed = true;
    else if (additional && isObj(additional.s)) v.additional.push(additional);
    for (const [k, value] of Object.entries(s)) {
      if (SKIP.has(k) || NOT_MEANING.has(k)) continue;
      if ((k === 'oneOf' || k === 'anyOf') && !typesOf(s) && typeAlternatives(s)) continue;
      let [key, val] = [k, value];
      // 3.0: exclusiveMaximum: true beside maximum is 3.1's exclusiveMaximum: <maximum>.
      if ((k === 'exclusiveMaximum' || k === 'exclusiveMinimum') && typeof value === 'boolean') continue;
      if ((k === 'maximum' || k === 'minimum') && s[k === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum'] === true) {
        key = k === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum';
      }
      const had = v.keywords.get(key);
      const ptr = `${node.ptr}/${pointerToken(k)}`;
      if (!had) v.keywords.set(key, { value: val, ptr });
      else if (typeof val === 'number' && typeof had.value === 'number') {
        if ((UPPER.has(key) && val < had.value) || (LOWER.has(key) && val > had.value)) v.keywords.set(key, { value: val, ptr });
      } else if (key === 'enum' && Array.isArray(val) && Array.isArray(had.value)) {
        const keep = new Set(val.map((x) => JSON.stringify(x)));
        v.keywords.set(key, { value: had.value.filter((x) => keep.has(JSON.stringify(x))), ptr: had.ptr });
      }
    }
  }
  v.nullable = nullableSaid ?? false;
  v.types?.sort();
  const en = v.keywords.get('enum');
  if (en && Array.isArray(en.value) && en.value.includes(null)) v.nullable = true;
  return v;
}

const SKIP = new Set(['type', 'nullable', 'required', 'properties', 'items', 'additionalProperties', 'allOf', '$ref']);

function typesOf(s: Obj): string[] | undefined {
  const t = s['type'];
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return undefined;
}

/** `oneOf`/`anyOf` whose alternatives are each a bare `{ type }` (distinct types): the list of types 3.1 writes. */
function typeAlternatives(s: Obj): string[] | undefined {
  const list = Array.isArray(s['oneOf']) ? s['oneOf'] : Array.isArray(s['anyOf']) ? s['anyOf'] : undefined;
  if (!list || list.length < 2) return undefined;
  const types = list.map((b) => (isObj(b) && Object.keys(b).every((k) => k === 'type' || NOT_MEANING.has(k)) && typeof b['type'] === 'string' ? b['type'] : undefined));
  return types.every((t): t is string => t !== undefined) && new Set(types).size === types.length ? types : undefined;
}

function intersect(a: string[], b: string[]): string[] {
  const out = new Set<string>();
  for (const x of a) for (const y of b) {
    if (x === y) out.add(x);
    else if ((x === 'integer' && y === 'number') || (x === 'number' && y === 'integer')) out.add('integer');
  }
  return [...out];
}

/**
 * A canonical text of what a schema means (members merged, keys sorted, descriptions left out); a cycle is written
 * as how many levels up it returns, so the same recursive schema under another component name reads the same.
 */
export function canonical(root: Obj, nodes: readonly Node[], stack: string[] = []): string {
  const v = view(root, nodes);
  const key = v.members.map((m) => m.ptr).join('|');
  const at = stack.indexOf(key);
  if (at >= 0) return `{"cycle":${stack.length - at}}`;
  if (stack.length > 24) return '"deep"';
  const inner = [...stack, key];
  const parts: string[] = [];
  parts.push(`t:${v.types ? [...v.types].sort().join(',') : '*'}`, `n:${v.nullable}`, `c:${v.closed}`);
  parts.push(`r:${[...v.required].sort().join(',')}`);
  for (const name of [...v.properties.keys()].sort()) parts.push(`p:${JSON.stringify(name)}=${canonical(root, v.properties.get(name)!, inner)}`);
  if (v.items.length > 0) parts.push(`i:${canonical(root, v.items, inner)}`);
  if (v.additional.length > 0) parts.push(`a:${canonical(root, v.additional, inner)}`);
  for (const k of [...v.keywords.keys()].sort()) {
    const { value, ptr } = v.keywords.get(k)!;
    if (k.startsWith('x-') || k === 'deprecated') continue;
    if ((k === 'oneOf' || k === 'anyOf') && Array.isArray(value)) {
      const branches = value.map((_, i) => canonical(root, [{ s: value[i], ptr: `${ptr}/${i}` }], inner)).sort();
      parts.push(`${k}:[${branches.join(',')}]`);
    } else if (k === 'not' || k === 'contains' || k === 'if' || k === 'then' || k === 'else' || k === 'propertyNames') {
      parts.push(`${k}:${canonical(root, [{ s: value, ptr }], inner)}`);
    } else if (k === 'enum' && Array.isArray(value)) {
      parts.push(`enum:${value.map((x) => JSON.stringify(x)).sort().join(',')}`);
    } else parts.push(`${k}:${JSON.stringify(value)}`);
  }
  return `{${parts.join(';')}}`;
}
