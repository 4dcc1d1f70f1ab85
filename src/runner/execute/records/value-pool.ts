/**
 * The value pool: ids and id-like fields seen in any successful answer of the run (a record, an array, a page,
 * a `Location` header), documented status or not, reused wherever a request needs a value for a path
 * parameter: by the collection the answer came from (GET /items answered [{id: 7}]: /items/{id} may use 7), or
 * by the field's name (an answer with `ownerId` fills {ownerId}). Derived from the contract's paths and the
 * answers only. Bounded: a few values per key.
 */
import type { Exchange, Operation } from '../../model.ts';
import { lastSegmentName, namedCollections, referenceStem } from '../../plan/relations.ts';

/** Values kept per key. */
const PER_KEY = 8;
/** How deep an answer is searched for records. */
const DEPTH = 3;

/** "/items/{id}" -> "/items"; "/a/{x}/b" -> "/a/{}/b": the collection a path's last id names a member of. */
export function collectionOf(path: string, param: string): string | undefined {
  const at = path.indexOf(`{${param}}`);
  if (at < 0) return undefined;
  return normalise(path.slice(0, at));
}

function normalise(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}').replace(/\/+$/, '') || '/';
}

function isIdName(name: string): boolean {
  return /^(id|uuid|key|code|slug)$/i.test(name) || /(?:[a-z0-9]_?id|Id|ID|_key|Key|_uuid|Uuid)$/.test(name);
}

function idText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '' && value.length <= 200 && !/[\s/?#]/.test(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

export class ValuePool {
  private readonly byKey = new Map<string, string[]>();

  private add(key: string, value: string): void {
    let list = this.byKey.get(key);
    if (!list) this.byKey.set(key, (list = []));
    if (list.includes(value)) return;
    list.push(value);
    if (list.length > PER_KEY) list.shift();
  }

  private forget(key: string, value: string): void {
    const list = this.byKey.get(key);
    const at = list?.indexOf(value) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
  }

  /** Takes what a successful answer of the operation holds; forgets the record a successful DELETE removed. */
  harvest(op: Operation, exchange: Exchange): void {
    const response = exchange.response;
    if (!response || response.status < 200 || response.status >= 300) return;
    // The collection the answer's records belong to: the path itself for a list or a create, its parent for a
    // single record read or written at <collection>/{id}.
    const last = /\/\{([^}]+)\}\/?$/.exec(op.path);
    const collection = last ? normalise(op.path.slice(0, last.index)) : normalise(op.path);
    // A record the run deleted is no value to use any more (a read of it answers 404, as an unknown route may).
    if (op.method === 'DELETE' && last) {
      const tail = new URL(exchange.request.url, 'http://x').pathname.replace(/\/+$/, '').split('/').at(-1);
      const id = tail === undefined ? undefined : decodeURIComponentSafe(tail);
      if (id !== undefined) for (const key of [`c:${collection}`, `n:${last[1]!.toLowerCase()}`]) this.forget(key, id);
      return;
    }
    const location = response.headers['location'];
    if (location) {
      const tail = location.split(/[?#]/)[0]!.replace(/\/+$/, '').split('/').at(-1);
      const id = tail ? idText(decodeURIComponentSafe(tail)) : undefined;
      if (id) this.add(`c:${collection}`, id);
    }
    if (response.json === undefined) return;
    const records: unknown[] = [];
    const collect = (value: unknown, depth: number) => {
      if (depth > DEPTH || value === null || typeof value !== 'object') return;
      if (Array.isArray(value)) {
        for (const item of value.slice(0, PER_KEY)) collect(item, depth + 1);
        return;
      }
      records.push(value);
      for (const [k, v] of Object.entries(value)) if (typeof v === 'object' && v !== null && (Array.isArray(v) || /^(data|items|results|records|content|value|values)$/i.test(k))) collect(v, depth + 1);
    };
    collect(response.json, 0);
    const top = response.json;
    for (const record of records) {
      for (const [name, value] of Object.entries(record as Record<string, unknown>)) {
        if (!isIdName(name)) continue;
        const text = idText(value);
        if (!text) continue;
        this.add(`n:${name.toLowerCase()}`, text);
        // A record's own id belongs to the collection (the answer's top record or its list's items).
        if (/^(id|uuid)$/i.test(name) && (record === top || Array.isArray(top) || isMember(top, record))) this.add(`c:${collection}`, text);
      }
    }
  }

  /** Whether an answer of the run held the value (as an id or id-like field, or a Location). */
  seen(value: string): boolean {
    for (const list of this.byKey.values()) if (list.includes(value)) return true;
    return false;
  }

  /**
   * Values for a body field that refers to another record by name (`user_id`, `orderId`): values seen under
   * that field's name, and ids of the collection it names (`/users` or `/user`, as the path's last segment).
   */
  forReference(name: string): string[] {
    const stem = referenceStem(name);
    return stem ? this.forStem(stem, name) : [];
  }

  /** Values for a field named `name` that names records of the kind `stem`: seen under that name, and ids of its collection. */
  forStem(stem: string, name: string): string[] {
    const out = [...(this.byKey.get(`n:${name.toLowerCase()}`) ?? [])];
    const named = namedCollections(stem);
    for (const [key, list] of this.byKey) {
      if (!key.startsWith('c:')) continue;
      const last = lastSegmentName(key.slice(2));
      if (last !== undefined && named.includes(last)) out.push(...list);
    }
    return [...new Set(out)];
  }

  /** Values for a path parameter of the operation: members of its collection, else fields of its name. */
  values(op: Operation, param: string): string[] {
    const collection = collectionOf(op.path, param);
    const byCollection = collection ? (this.byKey.get(`c:${collection}`) ?? []) : [];
    const byName = this.byKey.get(`n:${param.toLowerCase()}`) ?? [];
    return [...new Set([...byCollection, ...byName])];
  }

  /** One value per path parameter where the pool has one (newest first), e.g. { id: "7" }. */
  pathValues(op: Operation, names: readonly string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of names) {
      const found = this.values(op, name).at(-1);
      if (found !== undefined) out[name] = found;
    }
    return out;
  }
}

function isMember(top: unknown, record: unknown): boolean {
  if (typeof top !== 'object' || top === null) return false;
  return Object.values(top).some((v) => Array.isArray(v) && v.includes(record));
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
