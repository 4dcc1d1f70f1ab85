import type { Operation } from '../model.ts';

/** Header names the tool sets itself; a parameter of that name is left to the tool (see parameters.ts). */
export const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization', 'content-length', 'host', 'cookie']);

/** True when an operation takes anything the fuzzing phase can vary: a body or a query, header or cookie parameter. */
export function hasInputs(op: Operation): boolean {
  if (op.requestBody) return true;
  return op.parameters.some((p) => p.in === 'query' || p.in === 'cookie' || (p.in === 'header' && !RESERVED_HEADERS.has(p.name.toLowerCase())));
}
