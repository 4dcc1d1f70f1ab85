/**
 * Two versions of a contract compared: the base (what the last release promised) and the revision. Each change
 * is one rule of the table (rules.ts) on one operation, with the pointers in both documents, a sentence and a
 * fingerprint that stays the same from run to run and when the documents are re-laid out ($refs moved).
 */
import { createHash } from 'node:crypto';
import { loadDescription } from '../description/load.ts';
import { compareRequestBodies, compareResponses } from './bodies.ts';
import { lifecycle, removal } from './lifecycle.ts';
import { compareParameters, parametersOf } from './parameters.ts';
import { rule, sentence } from './rules.ts';
import type { Emit, SchemaContext } from './schema-diff.ts';
import { compareSecurity, compareSecuritySchemes } from './security.ts';
import { child, deref, isObj, type Node, type Obj } from './schema-view.ts';
import type { Change, Level } from './types.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A loaded description as compared: the bundled document (its internal $refs kept) and where it came from. */
export interface LoadedDescription {
  bundled: Obj;
  source: string;
  sourcePointer?: (pointer: string) => string;
}

export async function loadForComparison(source: string): Promise<LoadedDescription> {
  return (await loadDescription(source)) as LoadedDescription;
}

/** Every pointer reported goes through here: a pointer of the compared document as the user's file spells it. */
export function userPointer(loaded: LoadedDescription, pointer: string | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  return loaded.sourcePointer ? loaded.sourcePointer(pointer) : pointer;
}

export function fingerprint(rule: string, operation: string | undefined, subject: string, from?: string, to?: string): string {
  return createHash('sha256').update([rule, operation ?? '', subject, from ?? '', to ?? ''].join('\u0000')).digest('hex').slice(0, 16);
}

const FLIP: Record<Level, Level> = { breaking: 'info', info: 'breaking', warning: 'warning' };

/** The changes from `base` to `revision`, in the order of the base's paths, then the revision's new ones. */
export function compareDescriptions(base: LoadedDescription, revision: LoadedDescription, now = new Date()): Change[] {
  const changes: Change[] = [];
  let operation: string | undefined;
  const stats = { emits: 0, cuts: 0 };
  const emit: Emit = (id, at) => {
    stats.emits++;
    const r = rule(id);
    const level = at.negated && r.area !== 'operation' ? FLIP[r.level] : r.level;
    const text = sentence(id, at) + (at.negated ? ' (inside a `not`: what it accepts changes the other way)' : '');
    changes.push({
      rule: id,
      level,
      direction: r.direction,
      area: r.area === 'parameter' && / parameter `/.test(at.s) && at.s.includes('`header`') ? 'header' : r.area,
      ...(operation ? { operation } : {}),
      ...(at.base !== undefined ? { base: userPointer(base, at.base) } : {}),
      ...(at.revision !== undefined ? { revision: userPointer(revision, at.revision) } : {}),
      sentence: operation ? `${operation}: ${text}` : text,
      fingerprint: fingerprint(id, operation, at.s, at.from, at.to),
    });
  };
  const ctx: SchemaContext = { base: base.bundled, revision: revision.bundled, emit, seen: new Set(), clean: new Set(), stats };
  const bPaths = pathItems(base.bundled);
  const rPaths = pathItems(revision.bundled);
  for (const [key, bp] of bPaths) {
    const rp = rPaths.get(key);
    for (const method of METHODS) {
      const bo = child(bp.node, method);
      if (!bo || !isObj(bo.s)) continue;
      const ro = rp ? child(rp.node, method) : undefined;
      if (!ro || !isObj(ro.s)) {
        operation = `${method.toUpperCase()} ${bp.template}`;
        const { how, sunset } = removal(bo.s, now);
        if (bp.template.startsWith('webhook:')) emit('webhook-removed', { s: `\`${bp.template.slice(8)}\``, base: bo.ptr });
        else emit(`${rp ? 'api' : 'api-path'}-removed-${how}`, { s: `\`${bp.template}\``, from: sunset ? `\`${sunset}\`` : undefined, base: bo.ptr, revision: rp?.node.ptr });
        continue;
      }
      operation = `${method.toUpperCase()} ${rp!.template}`;
      compareOperation(ctx, now, { template: bp.template, path: bp.node, op: bo }, { template: rp!.template, path: rp!.node, op: ro });
    }
  }
  for (const [key, rp] of rPaths) {
    for (const method of METHODS) {
      const ro = child(rp.node, method);
      if (!ro || !isObj(ro.s)) continue;
      const bo = bPaths.get(key) && child(bPaths.get(key)!.node, method);
      if (bo) continue;
      operation = `${method.toUpperCase()} ${rp.template}`;
      emit(rp.template.startsWith('webhook:') ? 'webhook-added' : 'endpoint-added', { s: `\`${rp.template.slice(8)}\``, revision: ro.ptr });
    }
  }
  operation = undefined;
  compareNamed(base.bundled, revision.bundled, 'components/schemas', (name, b) => b && emit('api-schema-removed', { s: `\`${name}\``, base: b.ptr }));
  compareSecuritySchemes(ctx);
  return changes;
}

interface Side {
  template: string;
  path: Node;
  op: Node;
}

function compareOperation(ctx: SchemaContext, now: Date, b: Side, r: Side): void {
  const bo = b.op.s as Obj;
  const ro = r.op.s as Obj;
  const at = { s: 'the operation', base: b.op.ptr, revision: r.op.ptr };
  lifecycle(bo, ro, (kind, from, to) => {
    const id = {
      deprecated: 'endpoint-deprecated',
      'deprecated-with-sunset': 'endpoint-deprecated-with-sunset',
      reactivated: 'endpoint-reactivated',
      'sunset-parse': 'api-deprecated-sunset-parse',
      'sunset-deleted': 'sunset-deleted',
      'sunset-earlier': 'api-sunset-date-changed-too-small',
      'stability-decreased': 'api-stability-decreased',
      'stability-invalid': 'api-invalid-stability-level',
    }[kind];
    ctx.emit(id, { ...at, from: from && `\`${from}\``, to: to && `\`${to}\`` });
  });
  const [bid, rid] = [bo['operationId'], ro['operationId']];
  if (typeof bid === 'string' && bid !== rid) ctx.emit('api-operation-id-removed', { ...at, from: `\`${bid}\``, to: typeof rid === 'string' ? `\`${rid}\`` : 'none' });
  else if (bid === undefined && typeof rid === 'string') ctx.emit('api-operation-id-added', { ...at, to: `\`${rid}\`` });
  const tags = (o: Obj) => new Set(Array.isArray(o['tags']) ? o['tags'].map(String) : []);
  const [bt, rt] = [tags(bo), tags(ro)];
  for (const t of bt) if (!rt.has(t)) ctx.emit('api-tag-removed', { ...at, from: `\`${t}\`` });
  for (const t of rt) if (!bt.has(t)) ctx.emit('api-tag-added', { ...at, to: `\`${t}\`` });
  compareParameters(ctx, parametersOf(ctx.base, b.template, b.path, b.op), parametersOf(ctx.revision, r.template, r.path, r.op), now);
  compareRequestBodies(ctx, b.op, r.op);
  compareResponses(ctx, b.op, r.op);
  compareSecurity(ctx, b.op, r.op);
}

/** Path items by their template with parameter names left out (`/pets/{id}` and `/pets/{petId}` are one path). */
function pathItems(root: Obj): Map<string, { template: string; node: Node }> {
  const out = new Map<string, { template: string; node: Node }>();
  const paths = child({ s: root, ptr: '' }, 'paths');
  if (!paths || !isObj(paths.s)) return out;
  for (const template of Object.keys(paths.s)) {
    out.set(template.replace(/\{[^}]*\}/g, '{}'), { template, node: deref(root, child(paths, template)!) });
  }
  // Webhooks: the operations the API calls, compared as operations named `webhook:<name>`.
  const hooks = child({ s: root, ptr: '' }, 'webhooks');
  if (hooks && isObj(hooks.s)) for (const name of Object.keys(hooks.s)) out.set(`webhook:${name}`, { template: `webhook:${name}`, node: deref(root, child(hooks, name)!) });
  return out;
}

function compareNamed(base: Obj, revision: Obj, at: string, emit: (name: string, b?: Node, r?: Node) => void): void {
  const of = (root: Obj) => {
    const n = child({ s: root, ptr: '' }, ...at.split('/'));
    return n && isObj(n.s) ? new Map(Object.keys(n.s).map((k) => [k, child(n, k)!])) : new Map<string, Node>();
  };
  const [b, r] = [of(base), of(revision)];
  for (const [k, n] of b) if (!r.has(k)) emit(k, n, undefined);
  for (const [k, n] of r) if (!b.has(k)) emit(k, undefined, n);
}
