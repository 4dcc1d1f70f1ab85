/**
 * The schema checker: two schemas (base and revision) compared by meaning, in one direction. A request schema
 * that accepts less breaks old clients; a response schema that may carry more (or less of what was promised)
 * breaks them too. Properties, items, alternatives and the JSON Schema 2020-12 keywords are walked; a pair of
 * schemas already being compared (recursion) is not walked again.
 */
import { BOUNDS, SUBSCHEMA_KEYWORDS, type Scope } from './rules.ts';
import { canonical, child, isObj, view, type Node, type Obj, type View } from './schema-view.ts';

export interface Emit {
  (id: string, at: { s: string; from?: string; to?: string; base?: string; revision?: string; negated?: boolean }): void;
}

export interface SchemaContext {
  base: Obj;
  revision: Obj;
  emit: Emit;
  seen: Set<string>;
  /**
   * Pairs of schemas compared (in one place and direction) to no change, with no recursion cut below them: under
   * another operation they are not walked again (a large contract shares its component schemas between hundreds).
   * `stats` counts the changes and the cuts, to know.
   */
  clean?: Set<string>;
  stats?: { emits: number; cuts: number };
}

/** Where a schema is: its scope at the top and below, and whether it is a header parameter. */
export interface Place {
  top: Scope;
  nested: Scope;
  header?: boolean;
  /** A body in a media type that is not JSON (XML): its top-level type is read from text. */
  text?: boolean;
}

interface Walk {
  ctx: SchemaContext;
  place: Place;
  isTop: boolean;
  /** What the top schema is, e.g. "the request body (application/json)". */
  root: string;
  /** Below the top: the property path, e.g. "address/lines[]". */
  path: string;
  negated: boolean;
}

/** The subject of a sentence: the top schema, or a property of it. */
function subjectOf(w: Walk): string {
  if (!w.path) return w.root;
  const kind = w.place.top.startsWith('request-parameter') ? `property of ${w.root}:` : w.place.top.startsWith('request') ? 'request property' : 'response property';
  return `${kind} \`${w.path}\``;
}

const show = (v: unknown): string => (typeof v === 'string' ? `\`${v}\`` : `\`${JSON.stringify(v)}\``);
const showTypes = (t: string[] | undefined) => (t ? t.join('|') || 'nothing' : 'any');

export function compareSchemas(ctx: SchemaContext, place: Place, root: string, base: Node[], revision: Node[]): void {
  // The seen-set stops recursion within one schema: the same pair under another operation is compared again.
  compare({ ctx: { ...ctx, seen: new Set() }, place, isTop: true, root, path: '', negated: false }, base, revision);
}

const below = (w: Walk, step: string): Walk => ({ ...w, isTop: false, path: w.path ? `${w.path}${step.startsWith('[') || step.startsWith(' ') ? '' : '/'}${step}` : step.replace(/^\//, '') });

function compare(w: Walk, baseNodes: Node[], revNodes: Node[]): void {
  const { ctx } = w;
  const b = view(ctx.base, baseNodes);
  const r = view(ctx.revision, revNodes);
  const key = `${w.place.top}|${w.negated}|${b.members.map((m) => m.ptr).join(',')}|${r.members.map((m) => m.ptr).join(',')}`;
  const cleanKey = `${key}|${w.isTop}|${w.place.header ?? ''}|${w.place.text ?? ''}`;
  if (ctx.clean?.has(cleanKey)) return;
  if (ctx.seen.has(key)) {
    if (ctx.stats) ctx.stats.cuts++;
    return;
  }
  ctx.seen.add(key);
  const before = ctx.stats ? { ...ctx.stats } : undefined;
  walk(w, b, r);
  if (before && ctx.stats && ctx.stats.emits === before.emits && ctx.stats.cuts === before.cuts) ctx.clean?.add(cleanKey);
}

function walk(w: Walk, b: View, r: View): void {
  const { ctx } = w;
  const scope = w.isTop ? w.place.top : w.place.nested;
  const emit = (suffix: string, at: { from?: string; to?: string; base?: string; revision?: string; s?: string }) =>
    ctx.emit(`${scope}-${suffix}`, { s: subjectOf(w), base: b.ptr, revision: r.ptr, ...at, negated: w.negated });
  // A schema wrapped in alternatives (or taken out of them): the alternatives are the comparison.
  const alts = (v: View) => v.keywords.has('oneOf') || v.keywords.has('anyOf');
  const bare = (v: View) => !v.types && v.properties.size === 0;
  if (alts(b) !== alts(r) && bare(alts(b) ? b : r)) {
    alternatives(w, b, r, emit, 'oneOf', 'one-of');
    alternatives(w, b, r, emit, 'anyOf', 'any-of');
    return;
  }
  types(w, b, r, emit);
  enums(w, b, r, emit, scope);
  for (const [keyword, stem, upper] of BOUNDS) bound(b, r, keyword, stem, upper, emit);
  strings(b, r, emit, w.place);
  properties(w, b, r);
  if (b.items.length > 0 && r.items.length > 0) compare(below(w, '[]'), b.items, r.items);
  additional(w, b, r, emit);
  alternatives(w, b, r, emit, 'oneOf', 'one-of');
  alternatives(w, b, r, emit, 'anyOf', 'any-of');
  const bn = b.keywords.get('not');
  const rn = r.keywords.get('not');
  if (bn && rn) compare({ ...w, negated: !w.negated }, [{ s: bn.value, ptr: bn.ptr }], [{ s: rn.value, ptr: rn.ptr }]);
  subschemas(w, b, r, emit);
  annotations(b, r, emit);
}

type Emitter = (suffix: string, at: { from?: string; to?: string; base?: string; revision?: string; s?: string }) => void;

function types(w: Walk, b: View, r: View, emit: Emitter): void {
  const request = w.place.top.startsWith('request');
  if (b.nullable !== r.nullable) emit(r.nullable ? 'became-nullable' : 'became-not-nullable', {});
  const bt = b.types ? new Set(b.types.map(widen)) : undefined;
  const rt = r.types ? new Set(r.types.map(widen)) : undefined;
  if (!bt && !rt) return;
  const from = showTypes(b.types);
  const to = showTypes(r.types);
  if (from === to) return;
  const [bl, rl] = [b.types ?? [], r.types ?? []];
  if (!rt) return emit('type-generalized', { from, to });
  // A query or header value is text: a scalar sent alone is also a one-item array (form style), and an XML
  // element's text reads as an object or a string alike.
  if (w.isTop && w.place.top === 'request-parameter' && rl.length === 1 && rl[0] === 'array' && bl.every((t) => t !== 'object' && t !== 'array')) {
    emit('type-generalized', { from, to });
    // The old value is now one item: held to the items' schema.
    if (r.items.length > 0 && view(w.ctx.revision, r.items).keywords.size > 0) compare(below(w, '[]'), b.members, r.items);
    return;
  }
  if (w.isTop && w.place.text && bl.length === 1 && rl.length === 1 && [bl[0], rl[0]].every((t) => t === 'object' || t === 'string')) {
    return emit('type-compatible', { from, to });
  }
  if (!bt) return emit(request ? 'type-changed' : 'type-specialized', { from, to });
  if (bl.length === 1 && rl.length === 1) {
    const [x, y] = [bl[0], rl[0]];
    if (x === 'integer' && y === 'number') return emit('type-generalized', { from, to });
    if (x === 'number' && y === 'integer') return emit('type-specialized', { from, to });
    if (w.place.top === 'request-parameter' && x === 'string' && (y === 'number' || y === 'integer')) return emit('type-specialized', { from, to });
    return emit('type-changed', { from, to });
  }
  const widened = bl.every((t) => covers(rl, t));
  const narrowed = rl.every((t) => covers(bl, t));
  if (widened && !narrowed) return emit('list-of-types-widened', { from, to });
  if (narrowed && !widened) return emit('list-of-types-narrowed', { from, to });
  emit('type-changed', { from, to });
}

const widen = (t: string) => (t === 'integer' ? 'number' : t);
const covers = (list: string[], t: string) => list.includes(t) || (t === 'integer' && list.includes('number'));

function enums(w: Walk, b: View, r: View, emit: Emitter, scope: Scope): void {
  const be = b.keywords.get('enum');
  const re = r.keywords.get('enum');
  const values = (e: { value: unknown } | undefined) => (e && Array.isArray(e.value) ? e.value.filter((x) => x !== null) : undefined);
  const [bv, rv] = [values(be), values(re)];
  if (!bv && rv) {
    const to = rv.map(show).join(', ');
    if (scope === 'request-parameter-property' && w.place.header) w.ctx.emit('request-header-property-became-enum', { s: subjectOf(w), to, base: b.ptr, revision: re!.ptr, negated: w.negated });
    else emit('became-enum', { to, revision: re!.ptr });
  } else if (bv && rv) {
    const bs = new Set(bv.map((x) => JSON.stringify(x)));
    const rs = new Set(rv.map((x) => JSON.stringify(x)));
    for (const x of bv) {
      if (rs.has(JSON.stringify(x))) continue;
      // oasdiff's name for a response body's own enum.
      if (scope === 'response-body') w.ctx.emit('response-mediatype-enum-value-removed', { s: subjectOf(w), from: show(x), base: be!.ptr, revision: re!.ptr, negated: w.negated });
      else emit('enum-value-removed', { from: show(x), base: be!.ptr, revision: re!.ptr });
    }
    for (const x of rv) if (!bs.has(JSON.stringify(x))) emit('enum-value-added', { to: show(x), base: be!.ptr, revision: re!.ptr });
  } else if (bv && !rv) emit('enum-value-added', { to: 'any value (the enum was removed)', base: be!.ptr });
  const bx = b.keywords.get('x-extensible-enum');
  const rx = r.keywords.get('x-extensible-enum');
  if (bx && rx && Array.isArray(bx.value) && Array.isArray(rx.value) && w.place.top.startsWith('request')) {
    const rs = new Set(rx.value.map((x) => JSON.stringify(x)));
    const id = w.place.top === 'request-parameter' ? 'request-parameter-x-extensible-enum-value-removed' : 'request-property-x-extensible-enum-value-removed';
    for (const x of bx.value) if (!rs.has(JSON.stringify(x))) w.ctx.emit(id, { s: subjectOf(w), from: show(x), base: bx.ptr, revision: rx.ptr, negated: w.negated });
  }
  const bc = b.keywords.get('const');
  const rc = r.keywords.get('const');
  if (bc && !rc) emit('const-removed', { from: show(bc.value), base: bc.ptr });
  else if (!bc && rc) emit('const-added', { to: show(rc.value), revision: rc.ptr });
  else if (bc && rc && JSON.stringify(bc.value) !== JSON.stringify(rc.value)) emit('const-changed', { from: show(bc.value), to: show(rc.value), base: bc.ptr, revision: rc.ptr });
}

function bound(b: View, r: View, keyword: string, stem: string, upper: boolean, emit: Emitter): void {
  const bk = b.keywords.get(keyword);
  const rk = r.keywords.get(keyword);
  const bv = typeof bk?.value === 'number' ? bk.value : undefined;
  const rv = typeof rk?.value === 'number' ? rk.value : undefined;
  if (bv === rv) return;
  const at = { from: bv === undefined ? undefined : String(bv), to: rv === undefined ? undefined : String(rv), base: bk?.ptr ?? b.ptr, revision: rk?.ptr ?? r.ptr };
  if (bv === undefined) return emit(`${stem}-set`, at);
  if (rv === undefined) return emit(`${stem}-unset`, at);
  emit(`${stem}-${(upper ? rv < bv : rv > bv) ? (upper ? 'decreased' : 'increased') : upper ? 'increased' : 'decreased'}`, at);
}

function strings(b: View, r: View, emit: Emitter, place: Place): void {
  for (const [keyword, stem] of [
    ['pattern', 'pattern'],
    ['format', 'format'],
    ['default', 'default-value'],
    ['contentMediaType', 'content-media-type'],
    ['contentEncoding', 'content-encoding'],
  ] as const) {
    // An empty pattern matches everything: it is no pattern.
    const said = (k: { value: unknown; ptr: string } | undefined) => (keyword === 'pattern' && k?.value === '' ? undefined : k);
    const bk = said(b.keywords.get(keyword));
    const rk = said(r.keywords.get(keyword));
    if (JSON.stringify(bk?.value) === JSON.stringify(rk?.value)) continue;
    const at = { from: bk ? show(bk.value) : undefined, to: rk ? show(rk.value) : undefined, base: bk?.ptr ?? b.ptr, revision: rk?.ptr ?? r.ptr };
    if (stem === 'content-media-type' || stem === 'content-encoding') {
      emit(`${stem}-changed`, at);
      continue;
    }
    if (stem === 'default-value' && place.top !== 'request-parameter' && !place.top.startsWith('request')) continue;
    emit(`${stem}-${!bk ? 'added' : !rk ? 'removed' : 'changed'}`, at);
  }
}

function properties(w: Walk, b: View, r: View): void {
  const request = w.place.top.startsWith('request');
  const names = new Set([...b.properties.keys(), ...r.properties.keys()]);
  if (names.size === 0 && b.required.size === 0 && r.required.size === 0) return;
  for (const name of [...b.required, ...r.required]) names.add(name);
  for (const name of names) {
    const bp = b.properties.get(name);
    const rp = r.properties.get(name);
    const inner = below(w, name);
    const subject = subjectOf(inner);
    const bView = bp ? view(w.ctx.base, bp) : undefined;
    const rView = rp ? view(w.ctx.revision, rp) : undefined;
    const flag = (v: View | undefined, k: string) => v?.keywords.get(k)?.value === true;
    const bReq = b.required.has(name);
    const rReq = r.required.has(name);
    const at = { s: subject, base: bView?.ptr ?? b.ptr, revision: rView?.ptr ?? r.ptr, negated: w.negated };
    const header = w.place.header && w.place.top === 'request-parameter';
    if (!bp && !rp) continue;
    if (request) {
      // Read-only properties are not sent by clients: their presence rules bind the server only.
      if (bp && !rp) {
        // Inside a `not`, a required property dropped widens the negated schema: the outer one accepts less.
        if (w.negated && bReq && !rReq) w.ctx.emit('request-property-became-optional', at);
        else if (!flag(bView, 'readOnly')) w.ctx.emit('request-property-removed', at);
      } else if (!bp && rp) {
        if (rReq && !flag(rView, 'readOnly')) {
          const id = header ? 'new-required-request-header-property' : rView?.keywords.has('default') ? 'new-required-request-property-with-default' : 'new-required-request-property';
          w.ctx.emit(id, at);
        } else w.ctx.emit('new-optional-request-property', at);
      } else {
        if (!bReq && rReq && !flag(rView, 'readOnly')) w.ctx.emit(header ? 'request-header-property-became-required' : 'request-property-became-required', at);
        else if (bReq && !rReq) w.ctx.emit('request-property-became-optional', at);
        for (const k of ['readOnly', 'writeOnly'] as const) {
          if (flag(bView, k) !== flag(rView, k) && flag(rView, k)) {
            w.ctx.emit(`request-${rReq ? 'required' : 'optional'}-property-became-${k === 'readOnly' ? 'read-only' : 'write-only'}`, at);
          }
        }
      }
    } else {
      const writeOnly = flag(bView, 'writeOnly') || flag(rView, 'writeOnly');
      if (bp && !rp) {
        w.ctx.emit(writeOnly ? `response-${bReq ? 'required' : 'optional'}-write-only-property-removed` : bReq ? 'response-required-property-removed' : 'response-optional-property-removed', at);
      } else if (!bp && rp) {
        if (!writeOnly) w.ctx.emit(rReq ? 'response-required-property-added' : 'response-optional-property-added', at);
      } else if (bReq && !rReq) {
        w.ctx.emit(writeOnly ? 'response-write-only-property-became-optional' : 'response-property-became-optional', at);
      } else if (!bReq && rReq && !writeOnly) w.ctx.emit('response-property-became-required', at);
    }
    if (bp && rp) compare(inner, bp, rp);
  }
}

function additional(w: Walk, b: View, r: View, emit: Emitter): void {
  if (!b.closed && r.closed) emit('additional-properties-closed', {});
  else if (b.closed && !r.closed) emit('additional-properties-opened', {});
  if (b.additional.length > 0 && r.additional.length > 0) compare(below(w, '{*}'), b.additional, r.additional);
}

function alternatives(w: Walk, b: View, r: View, emit: Emitter, keyword: 'oneOf' | 'anyOf', stem: string): void {
  const bk = b.keywords.get(keyword);
  const rk = r.keywords.get(keyword);
  const branches = (k: { value: unknown; ptr: string } | undefined): Node[] => (k && Array.isArray(k.value) ? k.value.map((s, i) => ({ s, ptr: `${k.ptr}/${i}` })) : []);
  const bb = branches(bk);
  const rb = branches(rk);
  if (bb.length === 0 && rb.length === 0) return;
  const name = (n: Node, _root: Obj) => {
    const ref = isObj(n.s) && typeof n.s['$ref'] === 'string' ? n.s['$ref'].split('/').pop()! : undefined;
    return ref ?? `#${n.ptr.split('/').pop()}`;
  };
  if (bb.length === 0) {
    // Wrapped: the old schema is one of the new alternatives.
    const old = canonical(w.ctx.base, b.members.map((m) => stripped(m, keyword)));
    const isOld = (n: Node) => canonical(w.ctx.revision, [n]) === old;
    const isNull = (n: Node) => canonical(w.ctx.revision, [n]) === canonical(w.ctx.revision, [{ s: { type: 'null' }, ptr: '' }]);
    if (rb.some(isOld) && rb.every((n) => isOld(n) || isNull(n))) return emit('became-nullable', { revision: rk!.ptr });
    if (keyword === 'oneOf' && rb.some(isOld)) return emit('wrapped-in-one-of', { revision: rk!.ptr });
    for (const n of rb) emit(`${stem}-added`, { to: name(n, w.ctx.revision), revision: n.ptr });
    return;
  }
  if (rb.length === 0) {
    // Taken out of its alternatives: the ones other than the schema kept are gone.
    const kept = canonical(w.ctx.revision, r.members.map((m) => stripped(m, keyword)));
    for (const n of bb) if (canonical(w.ctx.base, [n]) !== kept) emit(`${stem}-removed`, { from: name(n, w.ctx.base), base: n.ptr });
    return;
  }
  const bc = bb.map((n) => canonical(w.ctx.base, [n]));
  const rc = rb.map((n) => canonical(w.ctx.revision, [n]));
  const usedR = new Set<number>();
  const leftB: number[] = [];
  bc.forEach((c, i) => {
    const j = rc.findIndex((x, k) => x === c && !usedR.has(k));
    if (j >= 0) usedR.add(j);
    else leftB.push(i);
  });
  const leftR = rb.map((_, i) => i).filter((i) => !usedR.has(i));
  // Alternatives that changed inside: paired by their reference name, then by position when as many are left.
  const pairs: Array<[number, number]> = [];
  for (const i of [...leftB]) {
    const j = leftR.find((k) => name(rb[k]!, w.ctx.revision) === name(bb[i]!, w.ctx.base));
    if (j !== undefined && !name(bb[i]!, w.ctx.base).startsWith('#')) {
      pairs.push([i, j]);
      leftB.splice(leftB.indexOf(i), 1);
      leftR.splice(leftR.indexOf(j), 1);
    }
  }
  if (leftB.length === leftR.length) leftB.forEach((i, k) => pairs.push([i, leftR[k]!]));
  else {
    for (const i of leftB) emit(`${stem}-removed`, { from: name(bb[i]!, w.ctx.base), base: bb[i]!.ptr });
    for (const j of leftR) emit(`${stem}-added`, { to: name(rb[j]!, w.ctx.revision), revision: rb[j]!.ptr });
  }
  for (const [i, j] of pairs) compare(w, [bb[i]!], [rb[j]!]);
}

function stripped(node: Node, keyword: string): Node {
  if (!isObj(node.s)) return node;
  const { [keyword]: _, ...rest } = node.s;
  return { s: rest, ptr: node.ptr };
}

function subschemas(w: Walk, b: View, r: View, emit: Emitter): void {
  for (const [keyword, stem] of SUBSCHEMA_KEYWORDS) {
    const bk = b.keywords.get(keyword);
    const rk = r.keywords.get(keyword);
    if (!bk && !rk) continue;
    // unevaluatedProperties: false beside additionalProperties: false adds nothing.
    // (and beside any additionalProperties, which evaluates every property).
    const saysAdditional = (v: View) => v.members.some((m) => isObj(m.s) && 'additionalProperties' in m.s);
    if (keyword === 'unevaluatedProperties' && saysAdditional(b) && saysAdditional(r)) continue;
    if (!bk) {
      emit(`${stem}-added`, { to: `\`${keyword}\``, revision: rk!.ptr });
      continue;
    }
    if (!rk) {
      emit(`${stem}-removed`, { from: `\`${keyword}\``, base: bk.ptr });
      continue;
    }
    if (keyword === 'dependentRequired' || keyword === 'patternProperties' || keyword === 'dependentSchemas') {
      keyed(w, bk, rk, stem, emit);
    } else if (isObj(bk.value) || typeof bk.value === 'boolean') {
      compare(below(w, ` (${keyword})`), [{ s: bk.value, ptr: bk.ptr }], [{ s: rk.value, ptr: rk.ptr }]);
    }
  }
  const bp = b.keywords.get('prefixItems');
  const rp = r.keywords.get('prefixItems');
  const bl = Array.isArray(bp?.value) ? bp.value.length : 0;
  const rl = Array.isArray(rp?.value) ? rp.value.length : 0;
  if (rl > bl) emit('prefix-items-added', { to: `${rl - bl} position(s)`, revision: rp?.ptr });
  if (bl > rl) emit('prefix-items-removed', { from: `${bl - rl} position(s)`, base: bp?.ptr });
  for (let i = 0; i < Math.min(bl, rl); i++) {
    compare(below(w, `[${i}]`), [child({ s: bp!.value, ptr: bp!.ptr }, i)!], [child({ s: rp!.value, ptr: rp!.ptr }, i)!]);
  }
}

function keyed(w: Walk, bk: { value: unknown; ptr: string }, rk: { value: unknown; ptr: string }, stem: string, emit: Emitter): void {
  if (!isObj(bk.value) || !isObj(rk.value)) return;
  for (const k of new Set([...Object.keys(bk.value), ...Object.keys(rk.value)])) {
    const bv = bk.value[k];
    const rv = rk.value[k];
    if (bv === undefined) emit(`${stem}-added`, { to: show(k), revision: rk.ptr });
    else if (rv === undefined) emit(`${stem}-removed`, { from: show(k), base: bk.ptr });
    else if (stem === 'dependent-required') {
      if (JSON.stringify(bv) !== JSON.stringify(rv)) emit(`${stem}-changed`, { from: show(bv), to: show(rv), base: bk.ptr, revision: rk.ptr });
    } else compare(below(w, ` (${k})`), [child({ s: bk.value, ptr: bk.ptr }, k)!], [child({ s: rk.value, ptr: rk.ptr }, k)!]);
  }
}

function annotations(b: View, r: View, emit: Emitter): void {
  const bd = b.keywords.get('discriminator')?.value;
  const rd = r.keywords.get('discriminator')?.value;
  if (isObj(bd) !== isObj(rd)) emit(isObj(rd) ? 'discriminator-added' : 'discriminator-removed', {});
  else if (isObj(bd) && isObj(rd)) {
    if (bd['propertyName'] !== rd['propertyName']) emit('discriminator-property-name-changed', { from: show(bd['propertyName']), to: show(rd['propertyName']) });
    const bm = isObj(bd['mapping']) ? bd['mapping'] : {};
    const rm = isObj(rd['mapping']) ? rd['mapping'] : {};
    for (const k of new Set([...Object.keys(bm), ...Object.keys(rm)])) {
      if (!(k in bm)) emit('discriminator-mapping-added', { to: show(k) });
      else if (!(k in rm)) emit('discriminator-mapping-deleted', { from: show(k) });
      else if (bm[k] !== rm[k]) emit('discriminator-mapping-changed', { from: show(k) });
    }
  }
  const bdep = b.keywords.get('deprecated')?.value === true;
  const rdep = r.keywords.get('deprecated')?.value === true;
  if (bdep !== rdep) emit(rdep ? 'deprecated' : 'reactivated', {});
}
