/**
 * Credentials from the API itself (--auth-from): an operation that answers a token (a login, a registration) is
 * called once before any case, with the body the user gives (values it leaves out drawn afresh, so a registration
 * can succeed on every run), and the token is read where the answer holds it: the property its 2xx schema names
 * token, access_token, jwt, id_token ... (`user.token` in a `{"user": {...}}` envelope), else such a property of
 * the body, else a token header. The token is the run's own (the profile's header and bearer schemes get `Bearer
 * <token>`, an apiKey scheme that shows a prefix `Token <token>`); another identity may be given the same way. A
 * credential that cannot be obtained is a configuration problem: one line, exit 2, the service never blamed.
 */
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { InputError } from '../description/errors.ts';
import { schemaRequired, schemaTypes, schemaProperties } from '../description/json-schema.ts';
import { at, TOKEN_NAME, tokenPaths } from '../description/token-properties.ts';
import { redactText, type Secret } from '../http/redact.ts';
import { request } from '../http/undici.ts';
import type { JsonSchema, Operation } from '../model.ts';
import { Random } from '../plan/random.ts';
import { generate, UNKNOWN } from '../plan/values.ts';

/** Where a credential comes from: an operation (its operationId or "METHOD /path") and the body to send it. */
export interface CredentialSource {
  operation: string;
  /** The JSON body to send (text); fields the operation requires that it leaves out are drawn afresh. */
  body?: string;
}

/** A token the API answered, where it held it, and the values sent for it that reports must not show. */
export interface ObtainedCredential {
  token: string;
  /** The JSON path of the token in the answer (['user', 'token']); undefined when a header carried it. */
  path?: string[];
  /** The secret values of the body sent (a password): replaced in every report. */
  secrets: string[];
}

/** Headers an API may issue a token in. */
const TOKEN_HEADERS = ['authorization', 'x-auth-token', 'x-access-token', 'access-token', 'token'];
/** Request fields whose values are secrets (a password). */
const SECRET_FIELD = /pass(word|phrase)?|secret|pin$|otp/i;
/** Bytes of the answer read (a login answers a small document). */
const ANSWER_BYTES = 256 * 1024;

/** The operation a source names: its operationId, or its method and path as the contract writes them. */
export function sourceOperation(operations: readonly Operation[], selector: string, option: string): Operation {
  const text = selector.trim();
  const m = /^([A-Za-z]+)\s+(\S+)$/.exec(text);
  const found = m
    ? operations.find((o) => o.method === m[1]!.toUpperCase() && samePath(o.path, m[2]!))
    : operations.find((o) => o.operationId === text);
  if (found) return found;
  const tokenAnswering = operations.filter((o) => tokenPaths(o).length > 0 && !o.path.includes('{')).slice(0, 3);
  const hint = tokenAnswering.length > 0 ? `; operations that answer a token: ${tokenAnswering.map((o) => `"${o.method} ${o.path}"`).join(', ')}` : '';
  throw new InputError(`${option} names no operation of the contract: "${text}" (give an operationId or "METHOD /path")${hint}`);
}

/** The contract's path, or the whole path under the base URL's own (`/api/users/login` for `/users/login`). */
function samePath(template: string, given: string): boolean {
  const t = template.replace(/\/+$/, '') || '/';
  const g = given.replace(/\/+$/, '') || '/';
  return t === g || (t !== '/' && g.endsWith(t));
}

/** The token an answer holds: at a path its schema names, else a token-named string property, else a token header. */
export function tokenIn(json: unknown, headers: Record<string, string | string[] | undefined>, paths: readonly string[][]): { token: string; path?: string[] } | undefined {
  for (const path of paths) {
    const value = at(json, path);
    if (typeof value === 'string' && value.trim() !== '') return { token: value.trim(), path };
  }
  const found = searchToken(json, [], 0);
  if (found) return found;
  for (const name of TOKEN_HEADERS) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value !== 'string' || value.trim() === '') continue;
    const token = value.trim().replace(/^(Bearer|Token|JWT)\s+/i, '');
    if (token !== '') return { token };
  }
  return undefined;
}

function searchToken(json: unknown, path: string[], depth: number): { token: string; path: string[] } | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json) || depth > 4) return undefined;
  for (const [key, value] of Object.entries(json)) {
    if (TOKEN_NAME.test(key) && typeof value === 'string' && value.trim() !== '') return { token: value.trim(), path: [...path, key] };
  }
  for (const [key, value] of Object.entries(json)) {
    const found = searchToken(value, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The body to send: the user's (JSON) with each field the request schema requires and it leaves out drawn, strings
 * named for what they hold (an e-mail address, a user name, a password) fresh on every run; with no body given, a
 * whole one drawn so.
 */
export function sourceBody(op: Operation, given: string | undefined, option: string): unknown {
  let value: unknown = undefined;
  if (given !== undefined && given.trim() !== '') {
    try {
      value = JSON.parse(given);
    } catch {
      throw new InputError(`${option}-body is not JSON: give the body the operation takes, e.g. '{"user":{"email":"me@example.com","password":"..."}}'`);
    }
  }
  const schema = op.requestBody?.schema;
  if (schema === undefined) return value;
  return filled(schema, value, [], new Random(randomBytes(8).toString('hex')));
}

function filled(schema: JsonSchema, given: unknown, path: string[], random: Random): unknown {
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) return given;
  const types = schemaTypes(schema);
  const properties = schemaProperties(schema);
  if (!types.includes('object') && Object.keys(properties).length === 0) {
    const name = path[path.length - 1] ?? '';
    return given ?? freshValue(name) ?? drawn(schema, random);
  }
  const out: Record<string, unknown> = { ...(given as Record<string, unknown> | undefined) };
  for (const name of schemaRequired(schema)) {
    if (name in out) continue;
    const property = properties[name];
    if (property === undefined) continue;
    const value = filled(property, undefined, [...path, name], random);
    if (value !== undefined) out[name] = value;
  }
  for (const [name, value] of Object.entries(out)) {
    const property = properties[name];
    if (property !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value)) out[name] = filled(property, value, [...path, name], random);
  }
  return out;
}

function drawn(schema: JsonSchema, random: Random): unknown {
  const value = generate(schema, random);
  return value === UNKNOWN ? undefined : value;
}

/** A value a backend keeps unique or checks by kind, drawn fresh: by the field's name. */
function freshValue(name: string): string | undefined {
  const tag = randomBytes(5).toString('hex');
  if (/e-?mail/i.test(name)) return `conf${tag}@example.com`;
  if (SECRET_FIELD.test(name)) return `Pw-${randomBytes(9).toString('base64url')}9a`;
  if (/user(name)?$|login$|handle$|nick(name)?$|^name$/i.test(name)) return `conf${tag}`;
  return undefined;
}

/** String values of the secret fields anywhere in a body (the password sent). */
export function bodySecrets(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  if (Array.isArray(body)) return body.flatMap(bodySecrets);
  return Object.entries(body).flatMap(([k, v]) => (SECRET_FIELD.test(k) && typeof v === 'string' && v.length >= 4 ? [v] : bodySecrets(v)));
}

/** Calls the source's operation once and reads the token of its answer; InputError (exit 2) when there is none. */
export async function obtainCredential(
  source: CredentialSource,
  context: { operations: readonly Operation[]; baseUrls: Record<string, string>; dispatcher: Dispatcher; headers: Record<string, string>; timeoutMs: number; option: string },
): Promise<ObtainedCredential> {
  const { option } = context;
  const op = sourceOperation(context.operations, source.operation, option);
  const where = `${op.method} ${op.path}`;
  if (op.path.includes('{')) throw new InputError(`${option}: ${where} takes path parameters; name an operation whose path has none (a login or a registration)`);
  const base = context.baseUrls[op.service];
  if (!base) throw new InputError(`${option}: no base URL for service "${op.service}" of ${where}`);
  const body = sourceBody(op, source.body, option);
  const secrets = bodySecrets(body);
  const hide = (text: string) => redactText(text, secrets.map((value): Secret => ({ value, placeholder: '[secret]' })));
  let status: number;
  let text: string;
  let headers: Record<string, string | string[] | undefined>;
  try {
    const res = await request(`${base.replace(/\/+$/, '')}${op.path}`, {
      method: op.method,
      headers: { ...context.headers, accept: 'application/json', ...(body !== undefined ? { 'content-type': op.requestBody?.contentType ?? 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      dispatcher: context.dispatcher,
      headersTimeout: context.timeoutMs,
      bodyTimeout: context.timeoutMs,
    });
    status = res.statusCode;
    headers = res.headers;
    text = (await res.body.text()).slice(0, ANSWER_BYTES);
  } catch (error) {
    throw new InputError(`${option}: ${where} could not be sent (${hide((error as Error).message)})`);
  }
  if (status < 200 || status >= 300) {
    throw new InputError(`${option}: ${where} answered ${status}${errorText(text, hide)}; check the body it is sent (${option}-body)`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const found = tokenIn(json, headers, tokenPaths(op));
  if (!found) {
    const looked = [...tokenPaths(op).map((p) => p.join('.')), 'token', 'access_token', 'the Authorization header'];
    throw new InputError(`${option}: ${where} answered ${status} without a token (looked at ${[...new Set(looked)].join(', ')})`);
  }
  return { token: found.token, ...(found.path ? { path: found.path } : {}), secrets };
}

/** An answer's own error text, quoted short: ` ("email has already been taken")`, or nothing. */
function errorText(text: string, hide: (text: string) => string): string {
  const flat = hide(text).replace(/\s+/g, ' ').trim();
  if (flat === '') return '';
  return ` (${flat.length > 160 ? `${flat.slice(0, 157)}...` : flat})`;
}
