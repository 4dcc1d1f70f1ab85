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
 */
export function checkObjectBody(req: HandlerRequest, rules: readonly FieldRule[]): Checked<Record<string, unknown>> {
  if (isMalformedJson(req)) return fail([{ field: '', message: 'request body is not valid JSON' }]);
  let body: Record<string, unknown>;
  if (req.body === undefined) {
    body = {};
  } else if (isPlainObject(req.body)) {
    body = req.body;
  } else {
    return fail([{ field: '', message: 'request body must be a JSON object' }]);
  }
  const details: ErrorDetail[] = [];
  for (const rule of rules) {
    const present = Object.hasOwn(body, rule.name);
    if (!present) {
      if (rule.required === true) details.push({ field: rule.name, message: 'is required' });
      continue;
    }
    const problem = typeProblem(body[rule.name], rule.type);
    if (problem !== undefined) details.push({ field: rule.name, message: problem });
  }
  return details.length > 0 ? fail(details) : { ok: true, value: body };
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

/** Reads orderBy, orderSort, pageIndex and pageSize; pageIndex and pageSize must be int32 (every occurrence). */
export function checkListQuery(query: URLSearchParams): Checked<ListQuery> {
  const details: ErrorDetail[] = [];
  const ints: Partial<Record<'pageIndex' | 'pageSize', number>> = {};
  for (const name of ['pageIndex', 'pageSize'] as const) {
    const values = query.getAll(name);
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
