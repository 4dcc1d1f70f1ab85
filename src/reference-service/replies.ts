/** Reply builders: the platform error envelope, gateway-style answers, and the create shapes. */
import type { CreateShape, Reply } from './types.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface ErrorDetail {
  field: string;
  message: string;
}

export function ok(body: unknown): Reply {
  return { status: 200, body };
}

/** The platform error envelope (seed §7): the code is read from error.code. */
export function envelope(status: number, code: string, message: string, details?: ErrorDetail[]): Reply {
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error['details'] = details;
  return { status, body: { error } };
}

export function validationError(details: ErrorDetail[]): Reply {
  const message = details.map((d) => (d.field === '' ? d.message : `${d.field}: ${d.message}`)).join('; ');
  return envelope(400, 'VALIDATION_ERROR', message || 'invalid request', details);
}

/** A record that does not exist: 400 with ERR_PLAT_4 (never 404, which is what a missing operation looks like). */
export function recordNotFound(what: string, id: string): Reply {
  return envelope(400, 'ERR_PLAT_4', `${what} ${id} was not found`);
}

export function serverError(message: string): Reply {
  return envelope(500, 'ERROR', message);
}

/** What a gateway answers for a route it does not know: no platform envelope. */
export function gatewayNotFound(): Reply {
  return { status: 404, body: { message: 'no Route matched with those values' } };
}

export function gatewayMethodNotAllowed(allow: string[]): Reply {
  return { status: 405, headers: { allow: allow.join(', ') }, body: { message: 'method not allowed' } };
}

export function unauthorized(reason: string): Reply {
  return {
    status: 401,
    headers: { 'www-authenticate': 'Bearer' },
    body: { error: { code: 'UNAUTHORIZED', message: reason } },
  };
}

/** Seed §4.1: a create answers a single record, a bare array of records, or a page { total, data }. */
export function created(record: unknown, shape: CreateShape): Reply {
  switch (shape) {
    case 'array':
      return ok([record]);
    case 'page':
      return ok({ total: 1, data: [record] });
    case 'record':
      return ok(record);
  }
}
