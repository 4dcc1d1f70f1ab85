/** The request body and response checkers: bodies, media types, statuses, response headers. */
import { compareSchemas, type SchemaContext } from './schema-diff.ts';
import { child, deref, isObj, type Node, type Obj } from './schema-view.ts';

const entries = (root: Obj, node: Node | undefined): Map<string, Node> => {
  const out = new Map<string, Node>();
  const n = node ? deref(root, node) : undefined;
  if (n && isObj(n.s)) for (const k of Object.keys(n.s)) out.set(k, deref(root, child(n, k)!));
  return out;
};

export function compareRequestBodies(ctx: SchemaContext, baseOp: Node, revOp: Node): void {
  const b = child(baseOp, 'requestBody');
  const r = child(revOp, 'requestBody');
  const bb = b ? deref(ctx.base, b) : undefined;
  const rb = r ? deref(ctx.revision, r) : undefined;
  const required = (n: Node | undefined) => isObj(n?.s) && n.s['required'] === true;
  if (!bb && !rb) return;
  if (!bb) return ctx.emit(required(rb) ? 'request-body-added-required' : 'request-body-added-optional', { s: 'the request body', revision: rb!.ptr });
  if (!rb) return ctx.emit('request-body-removed', { s: 'the request body', base: bb.ptr });
  const at = { s: 'the request body', base: bb.ptr, revision: rb.ptr };
  if (!required(bb) && required(rb)) ctx.emit('request-body-became-required', at);
  if (required(bb) && !required(rb)) ctx.emit('request-body-became-optional', at);
  const bc = entries(ctx.base, child(bb, 'content'));
  const rc = entries(ctx.revision, child(rb, 'content'));
  for (const [type, node] of bc) if (!rc.has(type)) ctx.emit('request-body-media-type-removed', { s: 'the request body', from: `\`${type}\``, base: node.ptr, revision: rb.ptr });
  for (const [type, node] of rc) if (!bc.has(type)) ctx.emit('request-body-media-type-added', { s: 'the request body', to: `\`${type}\``, base: bb.ptr, revision: node.ptr });
  for (const [type, bm] of bc) {
    const rm = rc.get(type);
    if (!rm) continue;
    const [bs, rs] = [child(bm, 'schema'), child(rm, 'schema')];
    const s = `the request body (${type})`;
    if (!bs && rs) ctx.emit('request-body-media-type-schema-added', { s: `\`${type}\``, base: bm.ptr, revision: rs.ptr });
    else if (bs && !rs) ctx.emit('request-body-media-type-schema-removed', { s: `\`${type}\``, base: bs.ptr, revision: rm.ptr });
    else if (bs && rs) compareSchemas(ctx, { top: 'request-body', nested: 'request-property', text: !/json/i.test(type) }, s, [bs], [rs]);
  }
}

const isSuccess = (status: string) => /^2/.test(status);

/** A media type the revision writes instead of the base's, more general (`application/json` for `application/problem+json`). */
function generalizes(general: string, specific: string): boolean {
  const [gt, gs] = general.split('/');
  const [st, ss] = specific.split('/');
  if (!gt || !gs || !st || !ss || general === specific) return false;
  if (gt === '*') return true;
  if (gt !== st) return false;
  return gs === '*' || (ss.includes('+') && ss.slice(ss.lastIndexOf('+') + 1) === gs);
}

export function compareResponses(ctx: SchemaContext, baseOp: Node, revOp: Node): void {
  const br = entries(ctx.base, child(baseOp, 'responses'));
  const rr = entries(ctx.revision, child(revOp, 'responses'));
  for (const [status, node] of br) {
    if (rr.has(status)) continue;
    ctx.emit(isSuccess(status) ? 'response-success-status-removed' : 'response-non-success-status-removed', { s: status, from: `\`${status}\``, base: node.ptr });
  }
  for (const [status, node] of rr) {
    if (br.has(status)) continue;
    ctx.emit(isSuccess(status) ? 'response-success-status-added' : 'response-non-success-status-added', { s: status, to: `\`${status}\``, revision: node.ptr });
  }
  for (const [status, b] of br) {
    const r = rr.get(status);
    if (r) compareResponse(ctx, status, b, r);
  }
}

function compareResponse(ctx: SchemaContext, status: string, b: Node, r: Node): void {
  const what = `the ${status} response`;
  const bc = entries(ctx.base, child(b, 'content'));
  const rc = entries(ctx.revision, child(r, 'content'));
  const addedTypes = [...rc.keys()].filter((t) => !bc.has(t));
  for (const [type, node] of bc) {
    if (rc.has(type)) continue;
    const general = addedTypes.find((t) => generalizes(t, type));
    const specific = addedTypes.find((t) => generalizes(type, t));
    if (general) ctx.emit('response-media-type-name-generalized', { s: what, from: `\`${type}\``, to: `\`${general}\``, base: node.ptr, revision: rc.get(general)!.ptr });
    else if (specific) ctx.emit('response-media-type-name-specialized', { s: what, from: `\`${type}\``, to: `\`${specific}\``, base: node.ptr, revision: rc.get(specific)!.ptr });
    else ctx.emit('response-media-type-removed', { s: what, from: `\`${type}\``, base: node.ptr, revision: r.ptr });
  }
  for (const type of addedTypes) {
    if ([...bc.keys()].some((t) => !rc.has(t) && (generalizes(type, t) || generalizes(t, type)))) continue;
    ctx.emit('response-media-type-added', { s: what, to: `\`${type}\``, base: b.ptr, revision: rc.get(type)!.ptr });
  }
  for (const [type, bm] of bc) {
    const rm = rc.get(type);
    if (!rm) continue;
    const [bs, rs] = [child(bm, 'schema'), child(rm, 'schema')];
    if (!bs && rs) ctx.emit('response-body-media-type-schema-added', { s: `${what} \`${type}\``, base: bm.ptr, revision: rs.ptr });
    else if (bs && !rs) ctx.emit('response-body-media-type-schema-removed', { s: `${what} \`${type}\``, base: bs.ptr, revision: rm.ptr });
    else if (bs && rs) compareSchemas(ctx, { top: 'response-body', nested: 'response-property', text: !/json/i.test(type) }, `${what} body (${type})`, [bs], [rs]);
  }
  compareHeaders(ctx, what, b, r);
}

function compareHeaders(ctx: SchemaContext, what: string, b: Node, r: Node): void {
  const lower = (m: Map<string, Node>) => new Map([...m].map(([k, v]) => [k.toLowerCase(), { name: k, node: v }]));
  const bh = lower(entries(ctx.base, child(b, 'headers')));
  const rh = lower(entries(ctx.revision, child(r, 'headers')));
  const required = (n: Node | undefined) => isObj(n?.s) && n.s['required'] === true;
  for (const [key, { name, node }] of bh) {
    const other = rh.get(key);
    const s = `\`${name}\` of ${what}`;
    if (!other) {
      ctx.emit(required(node) ? 'required-response-header-removed' : 'optional-response-header-removed', { s, base: node.ptr, revision: r.ptr });
      continue;
    }
    if (required(node) && !required(other.node)) ctx.emit('response-header-became-optional', { s, base: node.ptr, revision: other.node.ptr });
    const [bs, rs] = [child(node, 'schema'), child(other.node, 'schema')];
    if (bs && rs) compareSchemas(ctx, { top: 'response-header', nested: 'response-property' }, `response header ${s}`, [bs], [rs]);
  }
  for (const [key, { name, node }] of rh) if (!bh.has(key)) ctx.emit('response-header-added', { s: `\`${name}\` of ${what}`, base: b.ptr, revision: node.ptr });
}
