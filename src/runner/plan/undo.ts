/**
 * Which calls create records, and which DELETE removes each of them again: derived from the contract (the
 * resources model of resources.ts), for any contract. A platform profile may name the undo of an operation
 * itself (its side-effect table); that wins. Otherwise:
 *  - a POST on a collection path creates records served under `<collection>/{id}` (trailing slashes do not
 *    matter), or records a response link hands to another operation (`$response.body#/…`);
 *  - a PUT on an item path creates the record it names when it answers 201, or when no other operation
 *    produces that id (PUT-to-create, see resources.ts);
 *  - the undo is the DELETE on the item path of the same resource; the created id goes into its last path
 *    parameter, the create's own path values into the others (by name, else by position).
 * Pure: no I/O.
 */
import type { Contract, Operation } from '../model.ts';
import { sideEffectOf, type Profile } from '../description/profile.ts';
import { at, createdRecords, createsItself, flatItemOperation, idNames, idText, normalisePath } from './resources.ts';

export interface Undo {
  /** The DELETE that removes the record, when the contract describes one. */
  delete?: Operation;
  /** The DELETE's path parameter that takes the created id. */
  idParam?: string;
  /** The JSON pointer a link names for the id in the create's answer. */
  pointer?: string;
  /** Why nothing can delete the record (when `delete` is absent). */
  reason?: string;
  /** Without a DELETE: the item path parameter the record's id goes by (to name what is left behind). */
  itemParam?: string;
}

function params(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
}

/** Shapes by path: finding a create's DELETE compares its shape with every operation's (N² at 2,770 operations). */
const shapes = new Map<string, string>();

function shape(path: string): string {
  let known = shapes.get(path);
  if (known === undefined) shapes.set(path, (known = normalisePath(path).replace(/\{[^}]+\}/g, '{}')));
  return known;
}

/** True when the path's last segment is a path parameter (an item path). */
function isItemPath(path: string): boolean {
  return /\/\{[^}]+\}$/.test(normalisePath(path));
}

/** The DELETE on an item path of this shape (`/a/{}/b/{}`), in the same service. */
function deleteOn(contract: Contract, service: string, itemShape: string): Operation | undefined {
  return contract.operations.find((o) => o.service === service && o.method === 'DELETE' && shape(o.path) === itemShape);
}

/**
 * The undo of a create, or undefined when the operation creates no record (not a producer in the resources
 * model). A producer without a matching DELETE has an Undo with only a reason.
 */
export function undoOf(contract: Contract, profile: Profile, op: Operation): Undo | undefined {
  // Worked out once per operation (a lookup over every operation; asked for each record a run creates).
  const known = undos.get(op);
  if (known && known.contract === contract && known.profile === profile) return known.undo;
  const undo = findUndo(contract, profile, op);
  undos.set(op, { contract, profile, undo });
  return undo;
}

const undos = new WeakMap<Operation, { contract: Contract; profile: Profile; undo: Undo | undefined }>();

function findUndo(contract: Contract, profile: Profile, op: Operation): Undo | undefined {
  const effect = sideEffectOf(profile, op.operationId);
  if (effect?.class === 'reversible' && effect.undo) {
    const named = contract.operations.find((o) => o.operationId === effect.undo);
    if (named) return { delete: named, ...(params(named.path).at(-1) ? { idParam: params(named.path).at(-1)! } : {}) };
  }
  if (op.method === 'POST' && !isItemPath(op.path)) {
    const collection = shape(op.path);
    const itemShape = `${collection === '/' ? '' : collection}/{}`;
    const servesItems = contract.operations.some((o) => o.service === op.service && shape(o.path).startsWith(itemShape));
    const byPath = servesItems ? deleteOn(contract, op.service, itemShape) : undefined;
    if (byPath) return { delete: byPath, idParam: params(byPath.path).at(-1)! };
    // A create nested under a parent whose records are deleted on their flat path (`DELETE /pets/{petId}`).
    const flat = flatItemOperation(contract, op, 'DELETE');
    if (flat) return { delete: flat, idParam: params(flat.path).at(-1)! };
    const link = linkedItem(contract, op);
    if (!servesItems && !link) return undefined;
    if (link) {
      const byLink = deleteOn(contract, op.service, shape(link.target.path));
      if (byLink && params(byLink.path).at(-1) === link.param) return { delete: byLink, idParam: link.param, pointer: link.pointer };
    }
    const item = servesItems ? contract.operations.find((o) => o.service === op.service && shape(o.path) === itemShape) : link?.target;
    const where = item ? normalisePath(item.path) : `${normalisePath(op.path)}/{…}`;
    const itemParam = item ? params(item.path).at(-1) : undefined;
    return { reason: `the contract describes no DELETE on ${where}`, ...(itemParam ? { itemParam } : {}), ...(link && item === link.target ? { pointer: link.pointer } : {}) };
  }
  if (op.method === 'PUT' && isItemPath(op.path)) {
    const own = deleteOn(contract, op.service, shape(op.path));
    return own ? { delete: own, idParam: params(own.path).at(-1)! } : { reason: `the contract describes no DELETE on ${normalisePath(op.path)}` };
  }
  return undefined;
}

/** True when a PUT answered with this status made a new record (201, or a PUT-to-create's success). */
export function putCreated(contract: Contract, op: Operation, status: number): boolean {
  if (op.method !== 'PUT' || status < 200 || status >= 300) return false;
  if (status === 201) return true;
  const last = params(op.path).at(-1);
  return last !== undefined && createsItself(contract, op, last);
}

/** An OpenAPI link of the create's success response that fills an item path's last parameter from the body. */
function linkedItem(contract: Contract, op: Operation): { target: Operation; param: string; pointer: string } | undefined {
  for (const link of op.links ?? []) {
    if (!/^2/.test(link.status)) continue;
    const target = contract.operations.find((o) =>
      o.service === op.service && (link.operationId !== undefined ? o.operationId === link.operationId : o.method === link.method && o.path === link.path),
    );
    const last = target ? params(target.path).at(-1) : undefined;
    if (!target || !last || !isItemPath(target.path)) continue;
    const pointer = /^\$response\.body#(\/.*)?$/.exec(link.parameters[last] ?? '');
    if (pointer) return { target, param: last, pointer: pointer[1] ?? '' };
  }
  return undefined;
}

/** Every id a create answered for a path parameter, one per record (record, bare array, page), as text. */
export function createdIdsFor(body: unknown, param: string, pointer?: string): string[] {
  if (pointer !== undefined) {
    const one = idText(at(body, pointer));
    return one ? [one] : [];
  }
  const ids: string[] = [];
  for (const record of createdRecords(body)) {
    if (typeof record !== 'object' || record === null) {
      const bare = idText(record);
      if (bare) ids.push(bare);
      continue;
    }
    for (const name of idNames(param)) {
      const found = idText((record as Record<string, unknown>)[name]);
      if (found) {
        ids.push(found);
        break;
      }
    }
  }
  return ids;
}

/** The id at the end of a Location header that names an item of the delete's path shape. */
export function idFromLocation(location: string | undefined, del: Operation): string | undefined {
  if (!location) return undefined;
  let path: string;
  try {
    path = new URL(location, 'http://location.invalid').pathname;
  } catch {
    return undefined;
  }
  const segments = normalisePath(path).split('/');
  const wanted = normalisePath(del.path).split('/').filter((w) => w !== '');
  // The Location's tail must have the delete's static segments where the template has them.
  const tail = segments.slice(-wanted.length);
  if (tail.length !== wanted.length) return undefined;
  const fits = wanted.every((w, i) => w.startsWith('{') || w === tail[i]);
  const last = tail.at(-1);
  if (!fits || !last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The path values of the DELETE: the created id in its id parameter, the create's own path values in the
 * others (the same name first, else the same position among the path parameters).
 */
export function undoPathParams(create: Operation, del: Operation, idParam: string, createParams: Record<string, string>, id: string): Record<string, string> {
  const own = params(create.path);
  const out: Record<string, string> = {};
  params(del.path).forEach((name, index) => {
    if (name === idParam) out[name] = id;
    else if (createParams[name] !== undefined) out[name] = createParams[name]!;
    else if (own[index] !== undefined && createParams[own[index]!] !== undefined) out[name] = createParams[own[index]!]!;
  });
  return out;
}
