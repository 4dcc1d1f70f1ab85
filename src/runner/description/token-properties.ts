/**
 * Where a contract's answers hold a credential the API issues: the string properties named token, access_token,
 * jwt, id_token ... of an operation's 2xx JSON schemas (`user.token` of a `{"user": {...}}` envelope). A login's
 * answer is read there for the run's token (--auth-from), a write's for a renewed one, and an answer that holds the
 * caller's token where its operation documents one is not exposing it.
 */
import type { JsonSchema, Operation } from '../model.ts';
import { schemaProperties, schemaTypes } from './json-schema.ts';

/** Property names that hold a credential the API issues. */
export const TOKEN_NAME = /^(access[_-]?token|token|jwt|id[_-]?token|auth[_-]?token|bearer[_-]?token|session[_-]?token|api[_-]?key)$/i;

/** JSON paths of the string properties named like a token in the operation's 2xx JSON answers (at most 4 deep). */
export function tokenPaths(op: Operation): string[][] {
  const out: string[][] = [];
  const walk = (schema: JsonSchema | undefined, path: string[], seen: Set<unknown>) => {
    if (schema === undefined || typeof schema !== 'object' || seen.has(schema) || path.length > 4) return;
    seen.add(schema);
    for (const [name, property] of Object.entries(schemaProperties(schema))) {
      if (TOKEN_NAME.test(name) && schemaTypes(property).includes('string')) out.push([...path, name]);
      else walk(property, [...path, name], seen);
    }
  };
  for (const r of op.responses) if (/^2/.test(r.status)) walk(r.schema, [], new Set());
  return out;
}

/** The value at a JSON path (undefined: not there). */
export function at(json: unknown, path: readonly string[]): unknown {
  let value = json;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

