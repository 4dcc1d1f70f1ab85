/** The parameter checker: parameters matched by where they go and their name (header names in any case). */
import { lifecycle, removal } from './lifecycle.ts';
import { compareSchemas, type SchemaContext } from './schema-diff.ts';
import { child, deref, isObj, type Node, type Obj } from './schema-view.ts';

export interface ParameterNode extends Node {
  s: Obj;
  /** Declared on the path item (applies to all the path's operations) rather than on the operation. */
  onPath: boolean;
}

/** The key of a parameter: a path parameter by its position in the template (a renamed one is the same), a header by its name in lower case. */
function keyOf(p: Obj, template: string): string {
  const name = String(p['name']);
  if (p['in'] === 'path') {
    const at = (template.match(/\{[^}]+\}/g) ?? ([] as string[])).indexOf(`{${name}}`);
    return `path:#${at >= 0 ? at : name}`;
  }
  return `${String(p['in'])}:${p['in'] === 'header' ? name.toLowerCase() : name}`;
}

/** An operation's parameters (the path item's, overridden by the operation's), by key. */
export function parametersOf(root: Obj, template: string, pathItem: Node, operation: Node): Map<string, ParameterNode> {
  const out = new Map<string, ParameterNode>();
  for (const [owner, onPath] of [
    [pathItem, true],
    [operation, false],
  ] as const) {
    const list = child(owner, 'parameters');
    if (!list || !Array.isArray(list.s)) continue;
    list.s.forEach((_, i) => {
      const p = deref(root, child(list, i)!);
      if (isObj(p.s) && typeof p.s['name'] === 'string') out.set(keyOf(p.s, template), { s: p.s, ptr: p.ptr, onPath });
    });
  }
  return out;
}

/** A parameter's schema nodes (its `schema`, or the schema of its one `content` entry). */
function schemaOf(p: ParameterNode): Node[] {
  const direct = child(p, 'schema');
  if (direct) return [direct];
  const content = child(p, 'content');
  if (content && isObj(content.s)) {
    const first = Object.keys(content.s)[0];
    const schema = first === undefined ? undefined : child(content, first, 'schema');
    if (schema) return [schema];
  }
  return [];
}

export function compareParameters(ctx: SchemaContext, base: Map<string, ParameterNode>, revision: Map<string, ParameterNode>, now: Date): void {
  const label = (p: Obj) => `\`${String(p['in'])}\` parameter \`${String(p['name'])}\``;
  for (const [key, bp] of base) {
    const rp = revision.get(key);
    const s = label(bp.s);
    if (!rp) {
      const { how, sunset } = removal(bp.s, now);
      const id = how === 'with-deprecation' ? 'request-parameter-removed-with-deprecation' : how === 'before-sunset' ? 'request-parameter-removed-before-sunset' : 'request-parameter-removed';
      ctx.emit(id, { s, from: sunset, base: bp.ptr });
      continue;
    }
    const at = { s, base: bp.ptr, revision: rp.ptr };
    if (bp.s['required'] !== true && rp.s['required'] === true) ctx.emit('request-parameter-became-required', at);
    if (bp.s['required'] === true && rp.s['required'] !== true) ctx.emit('request-parameter-became-optional', at);
    lifecycle(bp.s, rp.s, (kind, from, to) => {
      const id = {
        deprecated: 'request-parameter-deprecated',
        'deprecated-with-sunset': 'request-parameter-deprecated',
        reactivated: 'request-parameter-reactivated',
        'sunset-deleted': 'request-parameter-sunset-deleted',
        'sunset-earlier': 'request-parameter-sunset-date-changed-too-small',
      }[kind as string];
      if (id) ctx.emit(id, { ...at, from, to });
    });
    const header = bp.s['in'] === 'header';
    compareSchemas(ctx, { top: 'request-parameter', nested: 'request-parameter-property', header }, s, schemaOf(bp), schemaOf(rp));
  }
  for (const [key, rp] of revision) {
    if (base.has(key)) continue;
    const s = label(rp.s);
    const required = rp.s['required'] === true;
    let id: string;
    if (rp.s['in'] === 'path') id = 'new-request-path-parameter';
    else if (rp.onPath) id = required ? 'new-required-request-default-parameter-to-existing-path' : 'new-optional-request-default-parameter-to-existing-path';
    else id = required ? 'new-required-request-parameter' : 'new-optional-request-parameter';
    ctx.emit(id, { s, revision: rp.ptr });
  }
}
