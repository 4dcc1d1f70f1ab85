/**
 * Values a request is sent with where it needs no particular record: path values drawn from each parameter's
 * example or schema, ones no record has (a DELETE's), pool values that fit their type, and the required query,
 * header and cookie parameters of a call made as a setup step. Plain functions of the operation and the seed.
 */
import type { JsonSchema, Operation } from '../../model.ts';
import { isSafe, pathParamNames } from '../../plan/cases.ts';
import { parameterValue, stringValues } from '../../plan/parameters.ts';
import { Random } from '../../plan/random.ts';
import { absentValue } from '../../plan/values.ts';
import type { ValuePool } from './value-pool.ts';

/** The schema of an operation's path parameter. */
export function pathSchema(op: Operation, name: string): JsonSchema | undefined {
  return op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
}

/** A path parameter's schema that any string satisfies, but for its length: no format, pattern or listed values. */
export function freeString(schema: JsonSchema | undefined): boolean {
  if (schema === undefined || typeof schema === 'boolean') return false;
  const s = schema as Record<string, unknown>;
  return s['type'] === 'string' && s['format'] === undefined && s['pattern'] === undefined && s['enum'] === undefined && s['const'] === undefined;
}

/**
 * Path values for a case that needs no particular record: values no record has for a DELETE; for a read,
 * a record seen in an answer of the run where the pool has one; else values of each parameter's type.
 */
export function pathValues(op: Operation, purpose: string, seed: string | number, pool: ValuePool): Record<string, string> {
  const absent = absentIds(op, seed);
  if (absent) return absent;
  const generated = idValues(op, new Random(`${seed}:${op.operationId}:${purpose}`));
  return isSafe(op) ? { ...generated, ...fitting(op, pool.pathValues(op, pathParamNames(op))) } : generated;
}

/** Pool values that fit their parameter's type (an integer id takes no "abc"). */
function fitting(op: Operation, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter(([name, value]) => {
      const param = op.parameters.find((p) => p.in === 'path' && p.name === name);
      const schema = param?.schema;
      const type = typeof schema === 'object' ? schema['type'] : undefined;
      const types = Array.isArray(type) ? type : [type];
      if (types.includes('integer') || types.includes('number')) return /^-?\d+(\.\d+)?$/.test(value);
      if (typeof schema === 'object' && schema['format'] === 'uuid') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
      return true;
    }),
  );
}

/**
 * A DELETE that is not part of a lifecycle (presence probe, auth and negative cases) names no record that may
 * exist (an example or random integer id might): its path values are ones no record has, so even a deployment
 * that wrongly lets the call through removes nothing it did not create.
 */
export function absentIds(op: Operation, seed: string | number): Record<string, string> | undefined {
  if (op.method !== 'DELETE') return undefined;
  const random = new Random(`${seed}:${op.operationId}:absent`);
  // Valid for the parameter (a uuid, an integer in range, a pattern's match): twin routes of one path (GET and
  // DELETE /pets/{id}) are asked alike, and a router's 400 for a malformed id is not taken for the answer.
  return Object.fromEntries(
    pathParamNames(op).map((p) => {
      const param = op.parameters.find((x) => x.in === 'path' && x.name === p);
      return [p, (param ? absentValue(param.schema, random) : undefined) ?? `conformance-absent-${random.uuid().slice(0, 8)}`];
    }),
  );
}

/** Path values built from each path parameter's example or schema (uuid, integer, string ...). */
export function idValues(op: Operation, random: Random): Record<string, string> {
  return Object.fromEntries(pathParamNames(op).map((p) => [p, idValue(op, p, random)]));
}

export function idValue(op: Operation, name: string, random: Random): string {
  const param = op.parameters.find((p) => p.in === 'path' && p.name === name);
  if (!param) return random.uuid();
  const value = parameterValue({ ...param, example: undefined }, random);
  return value === undefined ? random.uuid() : String(value);
}

/** Required query, header and cookie parameters of an operation called as a setup step. */
export function declaredParams(op: Operation, random: Random): { query: Record<string, unknown>; headers: Record<string, string>; cookies: Record<string, string> } {
  const pick = (where: 'query' | 'header' | 'cookie') =>
    Object.fromEntries(op.parameters.filter((p) => p.in === where && p.required).map((p) => [p.name, parameterValue(p, random)]).filter(([, v]) => v !== undefined));
  return { query: pick('query'), headers: stringValues(pick('header')), cookies: stringValues(pick('cookie')) };
}
