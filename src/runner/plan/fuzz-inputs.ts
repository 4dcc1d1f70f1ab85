import type { Operation } from '../model.ts';

/** Header names the tool sets itself; a parameter of that name is left to the tool (see parameters.ts). */
export const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization', 'content-length', 'host', 'cookie']);

/** Methods a drawn path value cannot act through (RFC 9110 §9.2.1; QUERY, safe by its definition). */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'QUERY']);

/** True when an operation takes anything the fuzzing phase can vary: a body or a query, header or cookie parameter. */
export function hasInputs(op: Operation): boolean {
  if (op.requestBody) return true;
  return op.parameters.some((p) => p.in === 'query' || p.in === 'cookie' || (p.in === 'header' && !RESERVED_HEADERS.has(p.name.toLowerCase())));
}

/**
 * The path parameters the fuzzing phase draws: every one of a safe operation that takes nothing else (a read by
 * id), none otherwise. Elsewhere the path names the record the other inputs are about, and a drawn path value of
 * an unsafe method may name a record someone else keeps.
 */
export function fuzzedPath(op: Operation): string[] {
  if (!SAFE.has(op.method) || hasInputs(op)) return [];
  return op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
}
