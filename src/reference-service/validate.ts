/** Request validation: JSON bodies against the seed's field lists, uuid path ids, int32 query parameters. */
import { validationError, type ErrorDetail } from './replies.ts';
import type { HandlerRequest, Reply } from './types.ts';

/** `untyped`: the seed does not show the type, so the value is not checked. */
export type FieldType = 'string' | 'boolean' | 'int32' | 'untyped';

export interface FieldRule {
  name: string;
  type: FieldType;
  required?: boolean;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; reply: Reply };

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function isInt32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when the request carried a body that is not valid JSON. */
export function isMalformedJson(req: HandlerRequest): boolean {
  return req.body === undefined && req.rawBody.trim() !== '';
}

function typeProblem(value: unknown, type: FieldType): string | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'int32':
      if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be an integer';
      return isInt32(value) ? undefined : `must be an int32 (${INT32_MIN}..${INT32_MAX})`;
    case 'untyped':
      return undefined;
  }
}

/**
 * Reads a JSON object body and checks it against `rules`. An empty body counts as absent: it is rejected
 * when a field is required and read as `{}` otherwise. Fields not in `rules` are ignored. `null` is a wrong
 * type for every typed field (nullability is not shown). All problems are reported at once.
 *
 * A lenient deployment (`req.lenient`, the variant of the tests) binds as many frameworks do by default: a `null`
 * body or a `null` optional field reads as not given, and scalars are coerced to the field's type (a number or a
 * boolean to a string, "true"/"false"/0/1 to a boolean, integer text or a boolean to an int32).
 */
export function checkObjectBody(req: HandlerRequest, rules: readonly FieldRule[]): Checked<Record<string, unknown>> {
  if (isMalformedJson(req)) return fail([{ field: '', message: 'request body is not valid JSON' }]);
  let body: Record<string, unknown>;
  if (req.body === undefined || (req.lenient && req.body === null)) {
    body = {};
  } else if (isPlainObject(req.body)) {
    body = req.lenient ? { ...req.body } : req.body;
  } else {
    return fail([{ field: '', message: 'request body must be a JSON object' }]);
  }
  const details: ErrorDetail[] = [];
  for (const rule of rules) {
    if (req.lenient && body[rule.name] === null && rule.required !== true) delete body[rule.name];
    const present = Object.hasOwn(body, rule.name);
    if (!present) {
      if (rule.required === true) details.push({ field: rule.name, message: 'is required' });
      continue;
    }
    if (req.lenient) body[rule.name] = coerced(body[rule.name], rule.type);
    const problem = typeProblem(body[rule.name], rule.type);
    if (problem !== undefined) details.push({ field: rule.name, message: problem });
  }
  return details.length > 0 ? fail(details) : { ok: true, value: body };
}

/** A scalar as a lenient binder reads it for the field's type; anything else as it is. */
function coerced(value: unknown, type: FieldType): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
    case 'boolean':
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      return value === 0 || value === 1 ? value === 1 : value;
    case 'int32':
      if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
      return typeof value === 'boolean' ? Number(value) : value;
    case 'untyped':
      return value;
  }
}

/** Checks that each named path parameter is a uuid (any version, any case); returns them lower-cased. */
export function checkUuidParams(params: Record<string, string>, names: readonly string[]): Checked<Record<string, string>> {
  const details: ErrorDetail[] = [];
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = params[name] ?? '';
    if (isUuid(value)) out[name] = value.toLowerCase();
    else details.push({ field: name, message: 'must be a uuid' });
  }
  return details.length > 0 ? fail(details) : { ok: true, value: out };
}

export interface ListQuery {
  pageIndex?: number;
  pageSize?: number;
  orderBy?: string;
  orderSort: 'asc' | 'desc';
}

/**
 * Reads orderBy, orderSort, pageIndex and pageSize; pageIndex and pageSize must be int32 (every occurrence). A
 * lenient deployment reads an empty value as the parameter left out.
 */
export function checkListQuery(query: URLSearchParams, lenient = false): Checked<ListQuery> {
  const details: ErrorDetail[] = [];
  const ints: Partial<Record<'pageIndex' | 'pageSize', number>> = {};
  for (const name of ['pageIndex', 'pageSize'] as const) {
    const values = query.getAll(name).filter((v) => !lenient || v !== '');
    for (const raw of values) {
      const n = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
      if (!isInt32(n)) details.push({ field: name, message: `must be an int32 (${INT32_MIN}..${INT32_MAX})` });
    }
    const first = values[0];
    if (first !== undefined) ints[name] = Number(first);
  }
  if (details.length > 0) return fail(details);
  const orderBy = query.get('orderBy') ?? undefined;
  const orderSort = query.get('orderSort')?.toLowerCase() === 'desc' ? 'desc' : 'asc';
  const value: ListQuery = { orderSort };
  if (ints.pageIndex !== undefined) value.pageIndex = ints.pageIndex;
  if (ints.pageSize !== undefined) value.pageSize = ints.pageSize;
  if (orderBy !== undefined && orderBy !== '') value.orderBy = orderBy;
  return { ok: true, value };
}

function fail<T>(details: ErrorDetail[]): Checked<T> {
  return { ok: false, reply: validationError(details) };
}
