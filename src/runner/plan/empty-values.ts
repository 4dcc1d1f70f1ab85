/**
 * Empty values in a query string, a header or a cookie. `?name=` is read as the parameter left out by many servers
 * (ASP.NET Core's model binding, Huma, most typed query parsers) and as the empty string by others, and OpenAPI
 * allows an empty value only where a query parameter says `allowEmptyValue: true`. An empty array sends nothing
 * at all (`?ids=` for none is one more such reading). So, without `allowEmptyValue`, the tool counts on neither
 * reading:
 * - a request it generates as valid never sends an empty value (nor an empty array for a required parameter);
 * - an empty value is a probe that must be refused only where both readings are invalid: a required parameter
 *   whose schema refuses the empty string.
 * Path parameters never take one (a path segment is never empty); JSON-valued parameters send `""`, not nothing.
 */
import type { JsonSchema, ParameterSpec } from '../model.ts';
import { factsOf } from './keywords.ts';

/** True when an empty value of this parameter is ambiguous (see above). */
export function emptyIsAmbiguous(param: Pick<ParameterSpec, 'in' | 'allowEmptyValue' | 'contentType'>): boolean {
  const jsonText = param.in === 'query' && param.contentType !== undefined && /json/i.test(param.contentType);
  return param.in !== 'path' && !param.allowEmptyValue && !jsonText;
}

/**
 * True when the value would go out empty: the empty string, an array holding one, or an empty array (in a header or
 * cookie the empty text; in the query no value at all, which matters for a required parameter only).
 */
export function sendsEmpty(value: unknown, param: Pick<ParameterSpec, 'in' | 'required'>): boolean {
  if (value === '') return true;
  if (!Array.isArray(value)) return false;
  return value.length === 0 ? param.in !== 'query' || param.required : value.some((item) => item === '');
}

/** True when the parameter's schema has values that do not go out empty (so a generator may leave the empty ones out). */
export function hasNonEmptyValues(schema: JsonSchema, param: Pick<ParameterSpec, 'in' | 'required'>): boolean {
  if (typeof schema !== 'object' || schema === null) return true;
  const facts = factsOf(schema);
  if (facts.allowed) return facts.allowed.some((v) => !sendsEmpty(v, param));
  if (facts.types.length === 0 || facts.types.some((t) => t !== 'string' && t !== 'array')) return true;
  if (facts.types.includes('string') && (facts.maxLength === undefined || facts.maxLength > 0)) return true;
  if (!facts.types.includes('array')) return false;
  const maxItems = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : undefined;
  return maxItems !== 0 && (!facts.hasItems || hasNonEmptyValues(facts.items, { in: 'query', required: false }));
}
