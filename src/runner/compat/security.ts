/** The security checker: which credentials an operation needs, in each version. */
import type { SchemaContext } from './schema-diff.ts';
import { child, deref, isObj, type Node, type Obj } from './schema-view.ts';

/** One way to be let in: every scheme named, with its scopes. */
type Requirement = Map<string, Set<string>>;

function requirements(root: Obj, op: Node): { list: Requirement[]; own: boolean; ptr: string } {
  const own = child(op, 'security');
  const node = own ?? child({ s: root, ptr: '' }, 'security');
  const list: Requirement[] = [];
  if (node && Array.isArray(node.s)) {
    for (const r of node.s) {
      if (!isObj(r)) continue;
      list.push(new Map(Object.entries(r).map(([k, v]) => [k, new Set(Array.isArray(v) ? v.map(String) : [])])));
    }
  }
  return { list, own: own !== undefined, ptr: node?.ptr ?? '' };
}

const open = (list: Requirement[]) => list.length === 0 || list.some((r) => r.size === 0);
const show = (r: Requirement) => [...r].map(([k, v]) => (v.size > 0 ? `${k}: [${[...v].join(', ')}]` : k)).join(' and ');
const schemes = (r: Requirement) => [...r.keys()].sort().join('&');

export function compareSecurity(ctx: SchemaContext, baseOp: Node, revOp: Node): void {
  const b = requirements(ctx.base, baseOp);
  const r = requirements(ctx.revision, revOp);
  const global = !r.own && !b.own;
  const id = (what: string) => (global ? `api-global-security-${what}` : `api-security-${what}`);
  const at = { base: b.ptr || undefined, revision: r.ptr || undefined };
  if (open(b.list) && !open(r.list)) return ctx.emit(id('added'), { ...at, s: 'the operation', to: `\`${r.list.map(show).join(' or ')}\`` });
  if (!open(b.list) && open(r.list)) return ctx.emit(id('removed'), { ...at, s: 'the operation', from: `\`${b.list.map(show).join(' or ')}\`` });
  for (const req of b.list) {
    const match = r.list.find((x) => schemes(x) === schemes(req));
    if (!match) {
      if (req.size > 0) ctx.emit('api-security-alternative-removed', { ...at, s: 'the operation', from: `\`${show(req)}\`` });
      continue;
    }
    for (const [scheme, scopes] of req) {
      const now = match.get(scheme)!;
      for (const s of now) if (!scopes.has(s)) ctx.emit(id('scope-added'), { ...at, s: `\`${scheme}\``, to: `\`${s}\`` });
      for (const s of scopes) if (!now.has(s)) ctx.emit(id('scope-removed'), { ...at, s: `\`${scheme}\``, from: `\`${s}\`` });
    }
  }
  for (const req of r.list) {
    if (!b.list.some((x) => schemes(x) === schemes(req)) && req.size > 0) ctx.emit('api-security-alternative-added', { ...at, s: 'the operation', to: `\`${show(req)}\`` });
  }
}

/** Security schemes of the components (no operation). */
export function compareSecuritySchemes(ctx: SchemaContext): void {
  const of = (root: Obj) => {
    const c = child({ s: root, ptr: '' }, 'components', 'securitySchemes');
    return c && isObj(c.s) ? new Map(Object.keys(c.s).map((k) => [k, deref(root, child(c, k)!)])) : new Map<string, Node>();
  };
  const [b, r] = [of(ctx.base), of(ctx.revision)];
  for (const [k, n] of b) {
    const other = r.get(k);
    if (!other) ctx.emit('api-security-component-removed', { s: `\`${k}\``, base: n.ptr });
    else if (isObj(n.s) && isObj(other.s) && n.s['type'] !== other.s['type']) {
      ctx.emit('api-security-component-type-changed', { s: `\`${k}\``, from: String(n.s['type']), to: String(other.s['type']), base: n.ptr, revision: other.ptr });
    }
  }
  for (const [k, n] of r) if (!b.has(k)) ctx.emit('api-security-component-added', { s: `\`${k}\``, revision: n.ptr });
}
