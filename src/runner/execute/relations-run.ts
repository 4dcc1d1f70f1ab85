/**
 * The calls behind the relation cases: read-your-writes after a create (reported on the create) and
 * ownership across two parents (reported on the reader). Which operations relate comes from plan/relations.
 */
import type { RelatedRead } from '../checks/types.ts';
import type { Exchange, Operation, RecordedResponse } from '../model.ts';
import { createOf, ownerField, readersOfCreated, recordSchema } from '../plan/relations.ts';
import { createdIds } from './records/in-answer.ts';
import { createdId } from '../plan/resources.ts';
import { isDeepStrictEqual } from 'node:util';
import { differences, isRecordOf } from '../checks/created-resource-readable.ts';
import { factsOf, mergedShape } from '../plan/keywords.ts';

type Answered = Exchange & { response: RecordedResponse };

export interface RelationsHost {
  contract: import('../model.ts').Contract;
  /** A call of the chain, judged as an answer of its operation; `refusalUnjudged`: a 4xx is not (the run may have caused it). */
  call(op: Operation, request: { pathParams?: Record<string, string>; body?: unknown }, options?: { refusalUnjudged?: boolean }): Promise<Exchange>;
  /** Records for the path ids of an operation, new ones each time. */
  freshIds(op: Operation, trail: Exchange[]): Promise<Record<string, string>>;
  /** The positive body of an operation, templates resolved. */
  positiveBody(op: Operation): Promise<unknown>;
  /** Whether the operation is proven served (its presence: a record known to exist answered), so its 4xx is about the record. */
  present?(op: Operation): Promise<boolean>;
}

export class RelationUnmet extends Error {}

function answered(e: Exchange): e is Answered {
  return e.response !== undefined;
}

function ok(e: Exchange): e is Answered {
  return answered(e) && e.response.status >= 200 && e.response.status < 300;
}

/** After the create was answered: read the created record back through every reader. */
export async function readCreated(
  host: RelationsHost,
  create: Operation,
  parentIds: Record<string, string>,
  sent: unknown,
  action: Exchange,
  trail: Exchange[],
): Promise<RelatedRead[]> {
  if (!ok(action)) throw new RelationUnmet(`${create.operationId} answered ${action.response?.status ?? action.error?.message} (see its positive case)`);
  const json = action.response.json;
  const first = createdIds(json)[0];
  const readers = readersOfCreated(host.contract, create);
  // The id under the reader's own name for it (pet_id, petId), else the record's id.
  const idFor = (param: string | undefined) => (param ? createdId(json, param) : undefined) ?? first;
  if (!readers.some((r) => idFor(r.param))) throw new RelationUnmet(`${create.operationId} answered no record id (see its positive case)`);
  const reads: RelatedRead[] = [];
  for (const reader of readers) {
    const id = idFor(reader.param);
    if (!id) continue;
    const pathParams = reader.param ? { ...parentIds, [reader.param]: id } : { ...parentIds };
    const exchange = await host.call(reader.operation, { pathParams });
    trail.push(exchange);
    if (!answered(exchange)) continue;
    // A refusal by a reader proven served is about the record, however like an unknown route's it looks.
    const present = reader.role === 'item' && exchange.response.status >= 400 && exchange.response.status < 500 && (await host.present?.(reader.operation)) === true;
    reads.push({ operation: reader.operation, role: reader.role, exchange, id, parentIds, sent, ...(present ? { readerPresent: true } : {}) });
  }
  const item = reads.find((r) => r.role === 'item' && Object.keys(differing(r)).length > 0);
  const param = item ? readers.find((r) => r.operation === item.operation)?.param : undefined;
  if (item && param) {
    const derived = await derivedFields(host, create, parentIds, sent, item, param, trail);
    if (derived.length > 0) for (const read of reads) read.derived = derived;
  }
  return reads;
}

/** The fields a read shows different from what was sent, as differences() has them. */
function differing(read: RelatedRead): Record<string, [unknown, unknown]> {
  const json = read.exchange.response.json;
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? differences(read.sent, json as Record<string, unknown>, read) : {};
}

/**
 * Fields of a created record that read back different from what was sent beside optional fields: sent again in a
 * create with only the fields it requires, a field that now reads back as sent is one the service derives from
 * the others it was sent (an address geocoded into coordinates), not one it stores wrongly. One more create and
 * read, only where a field read back different; the record goes into the clean-up like every create.
 */
async function derivedFields(host: RelationsHost, create: Operation, parentIds: Record<string, string>, sent: unknown, item: RelatedRead, param: string, trail: Exchange[]): Promise<string[]> {
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) return [];
  const fields = Object.keys(differing(item));
  const schema = create.requestBody?.schema;
  const required = new Set(schema !== undefined && typeof schema === 'object' ? factsOf(mergedShape(schema) as Record<string, unknown>).required : []);
  const alone = Object.fromEntries(Object.entries(sent).filter(([k]) => required.has(k) || fields.includes(k)));
  if (Object.keys(alone).length === Object.keys(sent).length) return [];
  // The same values again: a refusal (a unique field taken by the first create) is the run's doing, not judged.
  const again = await host.call(create, { pathParams: parentIds, body: alone }, { refusalUnjudged: true });
  trail.push(again);
  const id = ok(again) ? (createdId(again.response.json, param) ?? createdIds(again.response.json)[0]) : undefined;
  if (!id) return [];
  const read = await host.call(item.operation, { pathParams: { ...parentIds, [param]: id } });
  trail.push(read);
  const record = ok(read) && typeof read.response.json === 'object' && read.response.json !== null && !Array.isArray(read.response.json) ? (read.response.json as Record<string, unknown>) : undefined;
  if (!record || ('id' in record && !isRecordOf(record, id))) return [];
  // Derived: read back, this time, exactly as sent (a field the read leaves out shows nothing).
  return fields.filter((f) => f in record && isDeepStrictEqual(record[f], alone[f]));
}

/** Two parents, two children under the first and one under the second; then the reader's reads of them. */
export async function readOwnership(host: RelationsHost, reader: Operation, trail: Exchange[]): Promise<RelatedRead[]> {
  const create = createOf(host.contract, reader);
  if (!create) throw new RelationUnmet(`no described operation creates the records ${reader.operationId} reads`);
  const param = reader.path.endsWith('}') ? reader.path.match(/\{([^}]+)\}$/)?.[1] : undefined;
  const owner = ownerField(create, recordSchema(reader));
  const makeChild = async (parentIds: Record<string, string>): Promise<string> => {
    const exchange = await host.call(create, { pathParams: parentIds, body: await host.positiveBody(create) });
    trail.push(exchange);
    const id = ok(exchange) ? createdIds(exchange.response.json)[0] : undefined;
    if (!id) throw new RelationUnmet(`setup: ${create.operationId} answered ${exchange.response?.status ?? exchange.error?.message} without a record id`);
    return id;
  };
  const parentA = await host.freshIds(create, trail);
  const parentB = await host.freshIds(create, trail);
  const a1 = await makeChild(parentA);
  const a2 = await makeChild(parentA);
  const b1 = await makeChild(parentB);
  const ownerOf = (parentIds: Record<string, string>) =>
    owner && parentIds[owner.parentParam] ? { owner: { field: owner.field, value: parentIds[owner.parentParam]! } } : {};
  const reads: RelatedRead[] = [];
  const read = async (pathParams: Record<string, string>, extra: Partial<RelatedRead> & Pick<RelatedRead, 'id' | 'role'>) => {
    const exchange = await host.call(reader, { pathParams });
    trail.push(exchange);
    if (answered(exchange)) reads.push({ operation: reader, exchange, parentIds: pathParams, ...extra });
  };
  if (param) {
    await read({ ...parentA, [param]: a1 }, { id: a1, role: 'item', ...ownerOf(parentA) });
    await read({ ...parentA, [param]: a2 }, { id: a2, role: 'item', ...ownerOf(parentA) });
    await read({ ...parentB, [param]: b1 }, { id: b1, role: 'item', ...ownerOf(parentB) });
    await read({ ...parentB, [param]: a1 }, { id: a1, role: 'item', crossParent: true });
  } else {
    await read(parentA, { id: a1, role: 'list', members: [a1, a2], foreign: [b1], ...ownerOf(parentA) });
    await read(parentB, { id: b1, role: 'list', members: [b1], foreign: [a1, a2], ...ownerOf(parentB) });
  }
  return reads;
}
