/**
 * Look-ups of a contract's operations by service, method and path (exact, or parameter-name-insensitive
 * shape), and by path prefix: what the resource model and the relations ask of every operation, answered
 * without scanning the whole contract each time (planning stays linear in the number of operations).
 * Built on first use per operations list and rebuilt when the list changes length; every list keeps the
 * contract's order, so "the first operation that ..." is the same one a scan would find.
 */
import type { Contract, Operation } from '../model.ts';

export interface OperationIndex {
  /** Position of each operation in the contract (for merging lists back into contract order). */
  position: Map<Operation, number>;
  /** `${service} ${METHOD} ${shape}` -> operations, in contract order. */
  byShape: Map<string, Operation[]>;
  /** `${service} ${path}` -> operations on exactly that path, in contract order. */
  byPath: Map<string, Operation[]>;
  /** `${service} ${prefix}` -> the GETs whose path continues the prefix with "/", in contract order. */
  getsUnder: Map<string, Operation[]>;
  /** `${service} ${collection}` -> the parameter name of the first operation on a `<collection>/{x}...` path. */
  itemParam: Map<string, string>;
  /** Operations that declare links, in contract order. */
  linking: Operation[];
}

/** The parameter-name-insensitive shape of a path, trailing slashes removed: `/heroes/{}` for `/heroes/{hero_id}/`. */
export function pathShape(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return (trimmed === '' ? '/' : trimmed).replace(/\{[^}]+\}/g, '{}');
}

const cache = new WeakMap<readonly Operation[], { size: number; index: OperationIndex }>();

function push<K>(map: Map<K, Operation[]>, key: K, op: Operation): void {
  const list = map.get(key);
  if (list) list.push(op);
  else map.set(key, [op]);
}

export function operationIndex(contract: Pick<Contract, 'operations'>): OperationIndex {
  const operations = contract.operations;
  const cached = cache.get(operations);
  if (cached && cached.size === operations.length) return cached.index;
  const index: OperationIndex = { position: new Map(), byShape: new Map(), byPath: new Map(), getsUnder: new Map(), itemParam: new Map(), linking: [] };
  operations.forEach((op, i) => {
    index.position.set(op, i);
    push(index.byShape, `${op.service} ${op.method} ${pathShape(op.path)}`, op);
    push(index.byPath, `${op.service} ${op.path}`, op);
    if ((op.links ?? []).length > 0) index.linking.push(op);
    for (let at = op.path.indexOf('/'); at !== -1; at = op.path.indexOf('/', at + 1)) {
      const prefix = op.path.slice(0, at);
      if (op.method === 'GET' && at > 0) push(index.getsUnder, `${op.service} ${prefix}`, op);
      if (op.path.startsWith('/{', at)) {
        const name = op.path.slice(at + 2).split('}')[0];
        const key = `${op.service} ${prefix}`;
        if (name && !index.itemParam.has(key)) index.itemParam.set(key, name);
      }
    }
  });
  cache.set(operations, { size: operations.length, index });
  return index;
}

/** The operations of a service with this method whose path has this shape, in contract order. */
export function withShape(contract: Pick<Contract, 'operations'>, service: string, method: string, shape: string): readonly Operation[] {
  return operationIndex(contract).byShape.get(`${service} ${method} ${shape}`) ?? [];
}

/** The operations of a service on exactly this path, in contract order. */
export function onPath(contract: Pick<Contract, 'operations'>, service: string, path: string): readonly Operation[] {
  return operationIndex(contract).byPath.get(`${service} ${path}`) ?? [];
}
