/**
 * A create sent twice, and a second record beside the first: what one request cannot show about the values a
 * deployment keeps unique (a unique index behind an ORM answers a repeated create, or an update to another
 * record's value, with a server error; a list serialised for one record breaks for two). The case of a create
 * (execute/phases/repeated-create.ts):
 *  1. a valid body, created;
 *  2. the same body again: a documented refusal or a second record, as the contract lets it; every answer is judged;
 *  3. where the repeat was refused, a second record, its body drawn anew;
 *  4. each update of the first record, sent the second record's values (a documented refusal or a success);
 *  5. the collection's list, which now holds two records, asked for in each media type its successes declare.
 * Derived from the contract only; pure.
 */
import type { Contract, Operation } from '../model.ts';
import { objectBody } from './edge-writes.ts';
import { onPath } from './operation-index.ts';
import { isCreate, itemParam, listSchema } from './relations.ts';

/** The case name (a lifecycle case of each create with a JSON object body). */
export const REPEATED_CREATE_CASE = 'lifecycle: repeated create';

/** The operations about the records of one create: the read by id, the list, the updates of a record. */
export interface RepeatTargets {
  /** The path parameter of a record's id. */
  param: string;
  item?: Operation;
  list?: Operation;
  updates: Operation[];
}

/**
 * The reads and updates of a create's records (a POST on a collection path with a JSON object body); undefined for
 * any other operation. `allowed` leaves out updates the run may not send.
 */
export function repeatTargets(contract: Contract, op: Operation, allowed: (write: Operation) => boolean = () => true): RepeatTargets | undefined {
  if (!isCreate(contract, op) || objectBody(op) === undefined) return undefined;
  const param = itemParam(contract, op)!;
  const onItem = onPath(contract, op.service, `${op.path}/{${param}}`);
  const item = onItem.find((o) => o.method === 'GET');
  const list = onPath(contract, op.service, op.path).find((o) => o.method === 'GET' && listSchema(o) !== undefined);
  const updates = onItem.filter((o) => (o.method === 'PUT' || o.method === 'PATCH') && objectBody(o) !== undefined && allowed(o));
  return { param, ...(item ? { item } : {}), ...(list ? { list } : {}), updates };
}
