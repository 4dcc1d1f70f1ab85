/**
 * The records the run made: every success of a create (a POST to a collection, a create an OpenAPI link or a
 * nested path names, a PUT that creates the record its path names), in any phase and to any body, with the request
 * that made it (its path values and body). A case whose own create for a record failed takes one of them
 * (Fixtures.buildFixture, search.ts): a record no other case consumes, its parents the same, not deleted since.
 * Bounded: the newest few records and bodies per create.
 */
import type { Contract, Exchange, Operation } from '../../model.ts';
import type { Profile } from '../../description/profile.ts';
import { pathParamNames } from '../../plan/cases.ts';
import { readersOfCreated } from '../../plan/relations.ts';
import { createdId, producerFor, type Producer } from '../../plan/resources.ts';
import { idFromLocation, putCreated, undoOf } from '../../plan/undo.ts';

/** Records kept per create. */
const PER_CREATE = 16;
/** Distinct bodies answered with success kept per create. */
const BODIES_PER_CREATE = 4;

export interface MadeRecord {
  producer: string;
  /** The record's id by the path parameter that names it (the operations on its records may name it differently). */
  ids: Record<string, string>;
  /** The path values of the call that made it (its parents). */
  pathParams: Record<string, string>;
  status: number;
  /** A case it was handed to: one that consumes it (fresh), or shares it with others. */
  handedOut?: 'fresh' | 'shared';
  deleted?: boolean;
  /** The case that made it has finished (its own checks on it are done). */
  settled?: boolean;
}

/**
 * What a case asks of the store: the create's own path values (its parents), and whether it consumes the record
 * (a delete: no other case may have it). Either way the case that made the record has finished with it.
 */
export interface Wanted {
  parents: Record<string, string>;
  fresh: boolean;
}

/** The id a create's answer names for a path parameter (the id sent in the path, for a PUT that creates it). */
/**
 * The exchange with the JSON of a successful answer that carries JSON under another media type (`text/plain`): the
 * record it made is the run's to find, read and delete all the same. Only the run's own bookkeeping reads it; the
 * answer is judged as it came (its media type is a finding of its own).
 */
export function withRecordJson(exchange: Exchange): Exchange {
  const response = exchange.response;
  if (!response || response.json !== undefined || response.status < 200 || response.status >= 300) return exchange;
  const text = response.body?.trimStart();
  if (!text || (text[0] !== '{' && text[0] !== '[')) return exchange;
  try {
    return { ...exchange, response: { ...response, json: JSON.parse(text) as unknown } };
  } catch {
    return exchange;
  }
}

export function recordIdOf(contract: Contract, profile: Profile, found: Producer, param: string, exchange: Exchange, pathParams: Record<string, string>): string | undefined {
  if (found.via === 'put') return pathParams[param];
  const json = withRecordJson(exchange).response?.json;
  const undo = undoOf(contract, profile, found.producer);
  const item = readersOfCreated(contract, found.producer).find((r) => r.role !== 'list')?.operation ?? undo?.delete;
  return (
    (found.field !== undefined ? createdId(json, found.field) : undefined) ??
    createdId(json, param, found.pointer) ??
    (found.pointer !== undefined ? createdId(json, param) : undefined) ??
    (item ? idFromLocation(exchange.response?.headers['location'], item) : undefined)
  );
}

export class MadeRecords {
  private readonly records = new Map<string, MadeRecord[]>();
  private readonly bodies = new Map<string, unknown[]>();
  /** The records whose maker is still at work, by the request that made them. */
  private readonly unsettled = new WeakMap<Exchange['request'], MadeRecord>();
  /** Per create: the path parameters it produces, each with how (worked out once). */
  private produced: Map<string, Array<{ param: string; found: Producer }>> | undefined;
  /** The records handed to a case that consumes them, as `<create> <id>`. */
  private readonly consumedIds = new Set<string>();
  /** How many records were noted in all (a fixture that failed may look again once this moved). */
  version = 0;

  constructor(
    private readonly contract: Contract,
    private readonly profileOf: (op: Operation) => Profile,
  ) {}

  private producedBy(op: Operation): Array<{ param: string; found: Producer }> {
    if (!this.produced) {
      const map = new Map<string, Array<{ param: string; found: Producer }>>();
      for (const o of this.contract.operations) {
        for (const param of pathParamNames(o)) {
          const found = producerFor(this.contract, o, param);
          if (!found) continue;
          const list = map.get(found.producer.operationId) ?? map.set(found.producer.operationId, []).get(found.producer.operationId)!;
          if (!list.some((p) => p.param === param && p.found.pointer === found.pointer)) list.push({ param, found });
        }
      }
      this.produced = map;
    }
    return this.produced.get(op.operationId) ?? [];
  }

  /** Notes what a success of an operation made (a create) or removed (a DELETE). */
  note(op: Operation, exchange: Exchange, pathParams: Record<string, string>, body: unknown): void {
    const status = exchange.response?.status;
    if (status === undefined || status < 200 || status >= 300) return;
    if (op.method === 'DELETE') return this.deleted(op, exchange);
    const produced = this.producedBy(op);
    if (produced.length === 0 || (op.method === 'PUT' && !putCreated(this.contract, op, status))) return;
    const ids: Record<string, string> = {};
    for (const { param, found } of produced) {
      const id = recordIdOf(this.contract, this.profileOf(op), found, param, exchange, pathParams);
      if (id !== undefined) ids[param] = id;
    }
    if (Object.keys(ids).length === 0) return;
    const record: MadeRecord = { producer: op.operationId, ids, pathParams, status };
    const list = this.records.get(op.operationId) ?? this.records.set(op.operationId, []).get(op.operationId)!;
    list.push(record);
    if (list.length > PER_CREATE) list.shift();
    this.unsettled.set(exchange.request, record);
    this.version++;
    if (body === undefined) return;
    const bodies = this.bodies.get(op.operationId) ?? this.bodies.set(op.operationId, []).get(op.operationId)!;
    const text = JSON.stringify(body);
    if (bodies.some((b) => JSON.stringify(b) === text)) return;
    bodies.push(body);
    if (bodies.length > BODIES_PER_CREATE) bodies.shift();
  }

  /** A DELETE's success: the record its path's last value names is gone. */
  private deleted(op: Operation, exchange: Exchange): void {
    const last = pathParamNames(op).at(-1);
    const producer = last === undefined ? undefined : producerFor(this.contract, op, last)?.producer;
    if (!producer) return;
    const tail = new URL(exchange.request.url, 'http://x').pathname.replace(/\/+$/, '').split('/').at(-1) ?? '';
    let id = tail;
    try {
      id = decodeURIComponent(tail);
    } catch {
      // kept as sent
    }
    for (const record of this.records.get(producer.operationId) ?? []) if (Object.values(record.ids).includes(id)) record.deleted = true;
  }

  /** The records made by these requests: their makers finished. */
  settle(requests: Iterable<Exchange['request']>): void {
    for (const request of requests) {
      const record = this.unsettled.get(request);
      if (!record) continue;
      record.settled = true;
      this.unsettled.delete(request);
    }
  }

  /** Hands out the newest record of the create that fits the case (see Wanted), marking it; undefined: none. */
  take(producer: Operation, param: string, wanted: Wanted): MadeRecord | undefined {
    const record = this.fitting(producer, param, wanted);
    if (record) this.mark(producer, record, wanted.fresh);
    return record;
  }

  /** Whether the create made a record that fits the case (take would hand one out). */
  has(producer: Operation, param: string, wanted: Wanted): boolean {
    return this.fitting(producer, param, wanted) !== undefined;
  }

  private fitting(producer: Operation, param: string, wanted: Wanted): MadeRecord | undefined {
    const list = this.records.get(producer.operationId) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const record = list[i]!;
      if (record.deleted || record.ids[param] === undefined || record.handedOut === 'fresh') continue;
      if (Object.entries(wanted.parents).some(([name, value]) => name !== param && record.pathParams[name] !== undefined && record.pathParams[name] !== value)) continue;
      if (!record.settled || (wanted.fresh && record.handedOut !== undefined)) continue;
      return record;
    }
    return undefined;
  }

  /** Marks the record a case's own create made as handed out (it is that case's). */
  handOut(producer: Operation, param: string, id: string, fresh: boolean): void {
    const list = this.records.get(producer.operationId) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const record = list[i]!;
      if (record.ids[param] !== id) continue;
      this.mark(producer, record, fresh);
      return;
    }
    if (fresh) this.consumedIds.add(`${producer.operationId} ${id}`);
  }

  private mark(producer: Operation, record: MadeRecord, fresh: boolean): void {
    if (record.handedOut === 'fresh') return;
    record.handedOut = fresh ? 'fresh' : 'shared';
    if (fresh) for (const id of Object.values(record.ids)) this.consumedIds.add(`${producer.operationId} ${id}`);
  }

  /** Whether the record of the create with this id was handed to a case that consumes it. */
  consumed(producer: Operation, id: string): boolean {
    return this.consumedIds.has(`${producer.operationId} ${id}`);
  }

  /** Whether the create made any record since the store's version was `since`. */
  madeSince(producer: Operation, since: number): boolean {
    return since < this.version && (this.records.get(producer.operationId)?.length ?? 0) > 0;
  }

  /** The distinct bodies the create answered with success in this run, newest first. */
  answeredBodies(producer: Operation): unknown[] {
    return [...(this.bodies.get(producer.operationId) ?? [])].reverse();
  }
}
