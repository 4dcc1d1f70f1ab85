/**
 * A collection asked empty: the list of a collection whose records a DELETE by id removes, asked again once the
 * run has deleted its records (execute/phases/empty-collection.ts). Which lists get the case, the create and the
 * DELETE of their records, and when the case may not run. Derived from the contract only; pure.
 */
import type { Contract, Operation, SkipKind } from '../model.ts';
import { isIrreversible, sideEffectOf, type Profile } from '../description/profile.ts';
import { createOf, listSchema } from './relations.ts';
import { undoOf } from './undo.ts';

/** The case name (a lifecycle case of the list). */
export const EMPTY_COLLECTION_CASE = 'lifecycle: empty collection';

/** At most this many records the run did not make are deleted to empty a collection (with --allow-irreversible). */
export const EMPTYING_BUDGET = 50;

/** The operations that make and remove the records a list serves. */
export interface CollectionOperations {
  create: Operation;
  delete: Operation;
  /** The DELETE's path parameter that takes a record's id. */
  idParam: string;
}

/**
 * The create and the DELETE of a list's records: a GET of a collection path that answers records, whose create
 * (the POST of the same path) makes records a DELETE by id removes. Undefined for any other operation.
 */
export function collectionOperations(contract: Contract, profile: Profile, list: Operation): CollectionOperations | undefined {
  if (list.method !== 'GET' || /\}\/*$/.test(list.path) || listSchema(list) === undefined) return undefined;
  const create = createOf(contract, list);
  const undo = create ? undoOf(contract, profile, create) : undefined;
  if (!create || !undo?.delete || !undo.idParam) return undefined;
  return { create, delete: undo.delete, idParam: undo.idParam };
}

/** Why the case may not run under these options: it deletes records, and makes one of the collection first. */
export function emptyCollectionSkip(profile: Profile, ops: CollectionOperations, options: { readOnly: boolean; allowIrreversible: boolean }): { skip: string; skipKind: SkipKind } | undefined {
  if (options.readOnly) return { skip: `sends ${ops.delete.method} ${ops.delete.path} (--read-only)`, skipKind: 'read-only' };
  if (options.allowIrreversible) return undefined;
  for (const op of [ops.create, ops.delete]) {
    if (isIrreversible(profile, op.operationId)) return { skip: `${op.operationId} is irreversible (${sideEffectOf(profile, op.operationId)?.effect}); pass --allow-irreversible`, skipKind: 'irreversible' };
  }
  return undefined;
}
