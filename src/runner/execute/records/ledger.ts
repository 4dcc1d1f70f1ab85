/**
 * The clean-up ledger: every record a call of the run created (whichever case sent it: a fixture, a positive,
 * coverage or negative case a deployment wrongly accepted), and the DELETE that removes it again (see
 * plan/undo.ts). A successful DELETE of the same record during the run ticks it off. At the end the session
 * works the ledger off newest first, several deletes at a time, but never a record before those that name it
 * (children before their parents); what cannot be deleted, or whose delete fails, is reported as left behind: a
 * note for the people running the suite, never a finding against an operation. A create whose answer names no id leaves a record nothing can find again: such records are only
 * counted, per operation and reason, with the first call as the example (a server that names no ids would
 * otherwise fill the ledger with one entry per create, tens of thousands at 2,770 operations).
 */
import type { Contract, Exchange, LeftBehindRecord, Operation } from '../../model.ts';
import { normalisePath } from '../../plan/resources.ts';
import { createdIdsFor, idFromLocation, putCreated, undoOf, undoPathParams, type Undo } from '../../plan/undo.ts';
import type { Profile } from '../../description/profile.ts';
import { ownString } from '../../report/text.ts';

export interface LedgerRecord {
  /** The create and the call that made the record. */
  create: Operation;
  createUrl: string;
  id?: string;
  /** The DELETE and its path values, when the contract describes one. */
  undo?: { operation: Operation; pathParams: Record<string, string> };
  /** Why the record cannot be deleted (no DELETE described, no id in the answer). */
  reason?: string;
  /** Deleted by a case of the run, or worked off by the cleanup. */
  done: boolean;
  /**
   * Older records of the ledger that this one's create named (their id a segment of its URL, or a value of its
   * body): each is deleted only after this one, as a child goes before its parent.
   */
  names?: LedgerRecord[];
}

/** Records no id names (nothing can delete them): how many one operation's creates left, for one reason. */
export interface UnnamedRecords {
  create: Operation;
  /** The URL of the first create that left one (the example the report shows). */
  createUrl: string;
  reason: string;
  count: number;
}

/**
 * The path of a URL without query, trailing slashes and percent-encoding differences; a uuid in any of its
 * spellings (upper-case, without hyphens, in braces, as a urn) as one: a delete sent with another spelling of the
 * record's id (the coverage phase's format-respelling class) that a service takes removes the same record.
 */
function pathKey(url: string): string {
  try {
    const path = new URL(url).pathname;
    return normalisePath(path.split('/').map((s) => canonicalUuid(safeDecode(s))).join('/'));
  } catch {
    return url;
  }
}

function canonicalUuid(segment: string): string {
  const hex = segment.replace(/^urn:uuid:/i, '').replace(/^\{(.*)\}$/, '$1').replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return segment;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class CleanupLedger {
  /** The records still to delete or report, in the order they were noted (a record the run deleted leaves it). */
  private readonly records = new Set<LedgerRecord>();
  /** How many records were noted in all. */
  private noted = 0;
  /** The records no id names, counted by operation and reason (in the order they were first noted). */
  private readonly unnamedRecords = new Map<string, UnnamedRecords>();
  private readonly undos = new Map<string, Undo | undefined>();
  /** The records with a DELETE, by the path that DELETE is sent to (each record's path is worked out once). */
  private readonly byPath = new Map<string, LedgerRecord[]>();
  private readonly urls = new Map<string, string>();
  /** The records with a DELETE still to work off, by their id: what a later create may name. */
  private readonly byId = new Map<string, LedgerRecord[]>();
  constructor(
    private readonly contract: Contract,
    private readonly profileOf: (op: Operation) => Profile,
    /** The URL of an operation with these path values (the session's). */
    private readonly urlOf: (op: Operation, pathParams: Record<string, string>) => string,
    /** The path values with the keys a write of the run renamed replaced by their newest; undefined while none was. */
    private readonly follow?: (op: Operation, pathParams: Record<string, string>) => Record<string, string> | undefined,
  ) {}

  private undoOf(op: Operation): Undo | undefined {
    if (!this.undos.has(op.operationId)) this.undos.set(op.operationId, undoOf(this.contract, this.profileOf(op), op));
    return this.undos.get(op.operationId);
  }

  /** The call that deletes a record this create answered with `id` (for reproduction scripts). */
  undoCall(op: Operation, pathParams: Record<string, string>, id: string): { method: Operation['method']; url: string } | undefined {
    const undo = this.undoOf(op);
    if (!undo?.delete || !undo.idParam) return undefined;
    return { method: undo.delete.method, url: this.urlOf(undo.delete, undoPathParams(op, undo.delete, undo.idParam, pathParams, id)) };
  }

  /** Notes what a call created (a 2xx of a create), and ticks off what a 2xx DELETE removed. */
  note(op: Operation, exchange: Exchange, pathParams: Record<string, string>): void {
    const status = exchange.response?.status;
    if (status === undefined || status < 200 || status >= 300) return;
    if (op.method === 'DELETE') {
      this.deleted(exchange.request.url);
      return;
    }
    if (op.method !== 'POST' && op.method !== 'PUT') return;
    const undo = this.undoOf(op);
    if (!undo) return;
    if (op.method === 'PUT' && !putCreated(this.contract, op, status)) return;
    if (!undo.delete || !undo.idParam) {
      const reason = undo.reason ?? 'the contract describes no DELETE for it';
      const ids = undo.itemParam ? createdIdsFor(exchange.response?.json, undo.itemParam, undo.pointer) : [];
      if (ids.length === 0) {
        this.noteUnnamed(op, exchange.request.url, reason);
        return;
      }
      const base = { create: op, createUrl: this.url(exchange.request.url), done: false };
      for (const id of ids) this.add({ ...base, id, reason });
      return;
    }
    const del = undo.delete;
    const idParam = undo.idParam;
    let ids: string[];
    if (op.method === 'PUT') {
      // The client named the record: its id is the value sent in the path (the item's last parameter).
      const own = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '').at(-1);
      ids = own && pathParams[own] !== undefined ? [pathParams[own]!] : [];
    } else {
      ids = createdIdsFor(exchange.response?.json, idParam, undo.pointer);
      if (ids.length === 0) {
        const located = idFromLocation(exchange.response?.headers['location'], del);
        if (located) ids = [located];
      }
    }
    if (ids.length === 0) {
      this.noteUnnamed(op, exchange.request.url, `the answer (${status}) named no id for {${idParam}} of ${del.method} ${del.path}`);
      return;
    }
    this.addDeletable(op, exchange, pathParams, ids, del, idParam);
  }

  /**
   * Notes records a refused create stored all the same (a read after it showed them, by these ids; none: it
   * showed one without an id): they are deleted like the run's own, or reported as left behind.
   */
  noteStored(op: Operation, exchange: Exchange, pathParams: Record<string, string>, ids: string[]): void {
    const undo = this.undoOf(op);
    const stored = `stored by a refused ${op.method} ${op.path}`;
    if (ids.length === 0) return this.noteUnnamed(op, exchange.request.url, `${stored}; the read that showed it named no id`);
    if (undo?.delete && undo.idParam) return this.addDeletable(op, exchange, pathParams, ids, undo.delete, undo.idParam);
    const reason = `${stored}; ${undo?.reason ?? 'the contract describes no DELETE for it'}`;
    for (const id of ids) this.add({ create: op, createUrl: this.url(exchange.request.url), done: false, id, reason });
  }

  /** Records a create made, each with the DELETE that removes it (a record already noted is noted once). */
  private addDeletable(op: Operation, exchange: Exchange, pathParams: Record<string, string>, ids: string[], del: Operation, idParam: string): void {
    const names = this.named(exchange);
    const base = { create: op, createUrl: this.url(exchange.request.url), done: false, ...(names ? { names } : {}) };
    for (const id of ids) {
      const params = undoPathParams(op, del, idParam, pathParams, id);
      const url = pathKey(this.urlOf(del, params));
      // The same record noted twice (a PUT sent again, a create answered with a record the run has): once.
      if (this.byPath.get(url)?.some((r) => !r.done)) continue;
      const record: LedgerRecord = { ...base, id, undo: { operation: del, pathParams: params } };
      this.add(record);
      const same = this.byPath.get(url);
      if (same) same.push(record);
      else this.byPath.set(url, [record]);
      const withId = this.byId.get(id);
      if (withId) withId.push(record);
      else this.byId.set(id, [record]);
    }
  }

  /**
   * The records still to work off that a create names: their id is a segment or query value of its URL, or a
   * string or number of its body (a parent's path, a foreign key). A value that only looks like an id (a count
   * of 1 where a record's id is 1) orders two deletes that could have run together, nothing more.
   */
  private named(exchange: Exchange): LedgerRecord[] | undefined {
    if (this.byId.size === 0) return undefined;
    const found = new Set<LedgerRecord>();
    const look = (value: string): void => {
      for (const r of this.byId.get(value) ?? []) if (!r.done) found.add(r);
    };
    const { url, body } = exchange.request;
    for (const part of url.replace(/^[a-z]+:\/\/[^/]*/i, '').split(/[/?&=#]/)) if (part) look(safeDecode(part));
    // Strings and numbers of a JSON body as they stand in its text (no parse: creates are many).
    if (body && exchange.request.bodyEncoding === undefined) {
      for (const m of body.matchAll(/"((?:[^"\\]|\\.)*)"|-?\d+(?:\.\d+)?/g)) look(m[1] ?? m[0]);
    }
    return found.size > 0 ? [...found] : undefined;
  }

  /** A create URL held once however many records its creates made (one copy each was 3 MB at 2,770 operations). */
  private url(url: string): string {
    let own = this.urls.get(url);
    if (own === undefined) this.urls.set((own = ownString(url)), own);
    return own;
  }

  private add(record: LedgerRecord): void {
    this.records.add(record);
    this.noted++;
  }

  /** One more record no id names: counted with the others of its operation and reason. */
  private noteUnnamed(op: Operation, url: string, reason: string): void {
    const key = `${op.operationId}\u0000${reason}`;
    const known = this.unnamedRecords.get(key);
    if (known) known.count++;
    else this.unnamedRecords.set(key, { create: op, createUrl: ownString(url), reason: ownString(reason), count: 1 });
  }

  /** A DELETE the run sent succeeded: the record at that path is gone. */
  private deleted(url: string): void {
    const key = pathKey(url);
    // A record a write renamed (a slug that followed its title) is deleted under its new key.
    // Looked for only once the run has renamed a key (follow answers undefined until then: no scan per DELETE).
    const renamed: LedgerRecord[] = [];
    for (const r of this.follow ? this.records : []) {
      if (!r.undo) continue;
      const now = this.follow!(r.undo.operation, r.undo.pathParams);
      if (now === undefined) break;
      if (now !== r.undo.pathParams && pathKey(this.urlOf(r.undo.operation, now)) === key) renamed.push(r);
    }
    for (const r of [...(this.byPath.get(key) ?? []), ...renamed]) {
      r.done = true;
      this.records.delete(r);
      this.forget(r);
    }
    this.byPath.delete(key);
  }

  /** A record deleted: no later create is ordered after it. */
  private forget(record: LedgerRecord): void {
    if (record.id === undefined) return;
    const withId = this.byId.get(record.id)?.filter((r) => r !== record);
    if (withId?.length) this.byId.set(record.id, withId);
    else this.byId.delete(record.id);
  }

  /**
   * The records still to work off that this create made at this URL (a collection's own records, under the same
   * parent), newest first, each with the DELETE that removes it.
   */
  pendingOf(create: Operation, createUrl: string): Array<{ id?: string; undo: NonNullable<LedgerRecord['undo']> }> {
    const key = pathKey(createUrl);
    return this.pending().flatMap((r) => (r.undo && r.create.operationId === create.operationId && pathKey(r.createUrl) === key ? [{ ...(r.id !== undefined ? { id: r.id } : {}), undo: r.undo }] : []));
  }

  /** Records still to delete or report, newest first. */
  pending(): LedgerRecord[] {
    return [...this.records].filter((r) => !r.done).reverse();
  }

  /** The records no id names, counted per operation and reason, in the order they were first noted. */
  unnamed(): UnnamedRecords[] {
    return [...this.unnamedRecords.values()];
  }

  /** How many records the ledger noted (those no id names counted one by one). */
  get size(): number {
    let n = this.noted;
    for (const u of this.unnamedRecords.values()) n += u.count;
    return n;
  }
}

/** The report line of a record left behind (of `count` records no id names, when more than one). */
export function leftBehind(record: Pick<LedgerRecord, 'create' | 'createUrl' | 'id'> & { count?: number }, reason: string): LeftBehindRecord {
  return {
    operationId: record.create.operationId,
    method: record.create.method,
    path: record.create.path,
    createdBy: record.createUrl.split(/[?#]/)[0] ?? record.createUrl,
    ...(record.id !== undefined ? { id: record.id } : {}),
    reason,
    ...(record.count !== undefined && record.count > 1 ? { count: record.count } : {}),
  };
}
