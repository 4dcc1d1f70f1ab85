/** Helpers for the reference service's own tests: a real server on a free port, called with undici. */
import { request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { startReferenceService, type ReferenceService, type Variant } from '../../src/reference-service/index.ts';

export const TOKEN = 'reference-test-token';
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const UNKNOWN_ID = '0b7e3f5a-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

export interface CallOptions {
  /** JSON-serialised request body. */
  json?: unknown;
  /** Raw request body (sent as is). */
  raw?: string;
  /** Full Authorization header value; null sends none. Default: `Bearer ${TOKEN}`. */
  auth?: string | null;
}

export interface Res {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed body, undefined when it is not JSON. */
  json: unknown;
}

export async function call(url: string, method: string, opts: CallOptions = {}): Promise<Res> {
  const headers: Record<string, string> = {};
  const auth = opts.auth === undefined ? `Bearer ${TOKEN}` : opts.auth;
  if (auth !== null) headers['authorization'] = auth;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.json !== undefined) body = JSON.stringify(opts.json);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url, { method, headers, body });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    json = undefined;
  }
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: res.statusCode, headers: flat, text, json };
}

/** Starts a service for the enclosing describe block (or file) and closes it afterwards. */
export function useService(variant?: Variant): { readonly svc: ReferenceService } {
  const holder: { svc?: ReferenceService } = {};
  beforeAll(async () => {
    holder.svc = await startReferenceService({ token: TOKEN, ...(variant !== undefined ? { variant } : {}) });
  });
  afterAll(async () => {
    await holder.svc?.close();
  });
  return {
    get svc(): ReferenceService {
      if (holder.svc === undefined) throw new Error('service not started');
      return holder.svc;
    },
  };
}

export function obj(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

export function arr(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new Error(`not an array: ${JSON.stringify(value)}`);
  return value;
}

/** error.code of a platform envelope, or undefined. */
export function errorCode(res: Res): unknown {
  const json = res.json;
  if (typeof json !== 'object' || json === null) return undefined;
  const error = (json as Record<string, unknown>)['error'];
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['code'] : undefined;
}

/** Fields named in a VALIDATION_ERROR's details. */
export function detailFields(res: Res): string[] {
  const details = obj(obj(res.json)['error'])['details'];
  return arr(details).map((d) => String(obj(d)['field']));
}

export const validAddressType = { code: 'HOME', name: 'Home address', country: 90 };
export const validAddressTypeUpdate = { name: 'Home', isActive: false, country: 49 };
export const validField = { fieldKey: 'street', isMandatory: true, sequenceNumber: 1, isVisible: false, separatorMark: ',' };
export const validFieldUpdate = { fieldKey: 'street-2', isActive: false, isMandatory: false, sequenceNumber: 7, isVisible: true, separatorMark: ';' };
export const validGenerate = { direction: 'IMPORT', isDomestic: false, transactionType: 'LC' };

export async function createAddressType(svc: ReferenceService, body: unknown = validAddressType): Promise<string> {
  const res = await call(`${svc.customerBaseUrl}/address-types`, 'POST', { json: body });
  if (res.status !== 200) throw new Error(`create-address-type answered ${res.status}: ${res.text}`);
  return String(obj(res.json)['id']);
}

export async function createField(svc: ReferenceService, typeId: string, body: unknown = validField): Promise<string> {
  const res = await call(`${svc.customerBaseUrl}/address-types/${typeId}/fields`, 'POST', { json: body });
  if (res.status !== 200) throw new Error(`create-address-type-field answered ${res.status}: ${res.text}`);
  return String(obj(res.json)['id']);
}
