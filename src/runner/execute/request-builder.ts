/**
 * Turns a request of an operation (path, query, header and cookie values, a body, which credentials) into
 * what goes on the wire: the URL under the service's base URL, the headers, the credentials in the
 * operation's own security schemes (else the profile's header), and the body encoded in its media type.
 */
import { randomBytes } from 'node:crypto';
import { stringify as losslessStringify } from 'lossless-json';
import { authorization, changedToken, truncatedToken, type InvalidAuth } from '../http/auth-variants.ts';
import type { Identity } from './identities.ts';
import type { HttpMethod, InputLocation, Operation, RecordedRequest } from '../model.ts';
import type { RequestPlan } from '../plan/cases.ts';
import { encodeBody } from '../plan/parameters.ts';
import { defaultAccept, jsonRequestType } from '../plan/accept-header.ts';
import type { Profile } from '../description/profile.ts';

/** One request of an operation, as a case or phase means it (values, not yet encoded). */
export interface CallRequest {
  pathParams?: Record<string, string>;
  /**
   * Path segments already percent-encoded (`%ZZ`, `a%2Fb`), put in the URL as they are, over `pathParams`: the
   * coverage phase's encoding edges (plan/path-classes.ts). WHATWG URL parsing (undici's) leaves such escapes alone.
   */
  rawPathParams?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** A body sent as is (malformed JSON, a foreign media type), with `contentType` as its content type. */
  rawBody?: string;
  /** 'latin1': rawBody is bytes, one per character (a body that is not UTF-8). */
  rawBodyEncoding?: 'latin1';
  /** Send no body at all, whatever the operation declares. */
  noBody?: boolean;
  auth?: RequestPlan['auth'];
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  /** The media type of the body (one the operation declares, or any with rawBody). */
  contentType?: string;
  /** Another method than the operation's (a method the contract does not document for the path). */
  method?: HttpMethod;
  /** A URL an answer named (a Location header), sent as it is in place of the operation's own; credentials in the query added. */
  url?: string;
  /** Where the input this request varies is, for the run's counts (plan/input-location.ts); else the case's own. */
  location?: InputLocation;
}

/** Whether the operation's query parameter of that name is described by a JSON media type (`content`). */
function jsonParameter(op: Operation, name: string): boolean {
  const p = op.parameters.find((q) => q.in === 'query' && q.name === name);
  return p?.contentType !== undefined && /json/i.test(p.contentType);
}

/** The URL with these query parameters added. */
function withQuery(url: string, query: Record<string, string>): string {
  if (Object.keys(query).length === 0) return url;
  const out = new URL(url);
  for (const [k, v] of Object.entries(query)) out.searchParams.append(k, v);
  return out.toString();
}

export interface BuilderSettings {
  baseUrls: Record<string, string>;
  runId: string;
  /** The run's token (read each time: a token command may refresh it); '' when the run has none. */
  token(): string;
  /** The credential given for a security scheme by name (--auth), if any. */
  credential?(scheme: string): string | undefined;
  /** Another identity of the run by name (--identity), if any. */
  identity?(name: string): Identity | undefined;
  profileOf(op: Operation): Profile;
}

export class RequestBuilder {
  private readonly media = new WeakMap<Operation, { accept: string; json: string }>();
  constructor(private readonly settings: BuilderSettings) {}

  /** The operation's Accept header and the media type its JSON bodies go in (plan/accept-header.ts), worked out once. */
  private mediaOf(op: Operation): { accept: string; json: string } {
    let value = this.media.get(op);
    if (value === undefined) this.media.set(op, (value = { accept: defaultAccept(op), json: jsonRequestType(op) }));
    return value;
  }

  /** The operation's URL; `raw`: path segments already encoded, put in as they are. */
  url(op: Operation, pathParams: Record<string, string>, query: Record<string, unknown> = {}, raw: Record<string, string> = {}): string {
    const base = this.settings.baseUrls[op.service];
    if (!base) throw new Error(`No base URL for service ${op.service}.`);
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (Object.hasOwn(raw, name) ? raw[name]! : encodeURIComponent(pathParams[name] ?? '')));
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined) continue;
      // A parameter described by a JSON media type is one JSON text, arrays included.
      if (jsonParameter(op, k)) {
        search.append(k, losslessStringify(v) ?? 'null');
        continue;
      }
      // An array the parameter's style writes as one value (`explode: false`): its items joined.
      const joined = Array.isArray(v) ? op.parameters.find((q) => q.in === 'query' && q.name === k)?.joined : undefined;
      if (joined !== undefined) {
        // No items: no value (`?status=` would be an empty value, which servers read either way), as exploded.
        if ((v as unknown[]).length === 0) continue;
        search.append(k, (v as unknown[]).map((item) => (typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item))).join(joined));
        continue;
      }
      for (const item of Array.isArray(v) ? v : [v]) search.append(k, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
    }
    const qs = search.toString();
    return `${base.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Accept, content type and (without schemes of the operation's own) the profile's credential header. */
  headers(auth: RequestPlan['auth'], hasBody: boolean, op: Operation): Record<string, string> {
    const media = this.mediaOf(op);
    const headers: Record<string, string> = { accept: media.accept };
    if (hasBody) headers['content-type'] = media.json;
    if (op.auth && op.auth.length > 0) return headers; // the operation's own schemes: see credentials()
    // An operation that declares no security is sent no credentials, unless its platform wants them everywhere.
    const profile = this.settings.profileOf(op);
    if (op.credentialed === false && !profile.auth.everyOperation) return headers;
    const other = this.other(auth);
    if (other) {
      if (other.token) headers[profile.auth.header.toLowerCase()] = `Bearer ${other.token}`;
      return headers;
    }
    const token = this.settings.token();
    if (token === '' && auth === 'valid') return headers;
    const value = authorization(auth as InvalidAuth | 'valid', token);
    if (value !== undefined) headers[profile.auth.header.toLowerCase()] = value;
    return headers;
  }

  /**
   * Credentials in the operation's own security schemes: bearer and basic in Authorization (basic takes the
   * token as user:password), apiKey in its header, query parameter or cookie. 'none' sends nothing.
   */
  credentials(op: Operation, auth: RequestPlan['auth']): { headers: Record<string, string>; query: Record<string, string>; cookies: Record<string, string> } {
    const out = { headers: {} as Record<string, string>, query: {} as Record<string, string>, cookies: {} as Record<string, string> };
    if (auth === 'none') return out;
    // Another identity's call: its credential for the scheme (else its token), sent as a valid one.
    const other = this.other(auth);
    const mode = other ? 'valid' : (auth as InvalidAuth | 'valid');
    for (const scheme of op.auth ?? []) {
      // The scheme's own credential (--auth name=value), else the run's token.
      const token = other ? (other.auth?.[scheme.name] ?? other.token ?? '') : (this.settings.credential?.(scheme.name) ?? this.settings.token());
      // Nothing to send (an operation a caller may also call without credentials, and none given).
      if (token === '' && mode === 'valid') continue;
      // The same refused credentials as for the profile's header (http/auth-variants.ts), in each scheme.
      const secret =
        mode === 'valid' ? token
        : mode === 'malformed' ? 'not a valid credential'
        : mode === 'truncated' ? truncatedToken(token)
        : mode === 'changed' ? changedToken(token)
        : mode === 'empty' ? ''
        : randomBytes(24).toString('hex');
      if (scheme.kind === 'bearer') {
        const value = authorization(mode, token);
        if (value !== undefined) out.headers['authorization'] = value;
      } else if (scheme.kind === 'basic') {
        out.headers['authorization'] = mode === 'malformed' ? 'Basic not-base64!' : `Basic ${Buffer.from(secret.includes(':') ? secret : `${secret}:`).toString('base64')}`;
      } else if (scheme.kind !== 'apiKey') continue;
      else if (scheme.in === 'header') out.headers[scheme.parameter.toLowerCase()] = prefixed(scheme.prefix, mode, secret, token);
      else if (scheme.in === 'query') out.query[scheme.parameter] = secret;
      else out.cookies[scheme.parameter] = secret;
    }
    return out;
  }

  /** The identity an `as:<name>` auth mode names (undefined: the run's own credential, or a refused one). */
  private other(auth: RequestPlan['auth']): Identity | undefined {
    if (!auth.startsWith('as:')) return undefined;
    const identity = this.settings.identity?.(auth.slice(3));
    if (!identity) throw new Error(`no identity named ${auth.slice(3)}`);
    return identity;
  }

  /** The request as sent: method, URL, headers and body text. */
  build(op: Operation, request: CallRequest): Pick<RecordedRequest, 'method' | 'url' | 'headers' | 'bodyEncoding'> & { body?: string } {
    const media = request.contentType ? (op.requestBodies ?? []).find((b) => b.contentType === request.contentType) : op.requestBody;
    const encoded =
      request.noBody || request.rawBody !== undefined || request.body === undefined
        ? undefined
        : encodeBody(request.body, media?.contentType ?? 'application/json', media?.schema ?? {}, this.settings.runId);
    const body = request.noBody ? undefined : (request.rawBody ?? encoded?.body);
    const auth = request.auth ?? 'valid';
    const credentials = this.credentials(op, auth);
    const own = request.headers ?? {};
    const headers = { ...own, ...this.headers(auth, body !== undefined, op), ...credentials.headers };
    // A request that asks for a media type of its own (the coverage phase's Accept classes) keeps it.
    const asked = Object.keys(own).find((k) => k.toLowerCase() === 'accept');
    if (asked !== undefined) {
      delete headers[asked];
      headers['accept'] = own[asked]!;
    }
    if (encoded && body !== undefined) headers['content-type'] = encoded.contentType;
    else if (request.rawBody !== undefined && request.contentType) headers['content-type'] = request.contentType;
    const cookies = { ...(request.cookies ?? {}), ...credentials.cookies };
    if (Object.keys(cookies).length > 0) headers['cookie'] = Object.entries(cookies).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    return {
      method: request.method ?? op.method,
      url: request.url !== undefined ? withQuery(request.url, credentials.query) : this.url(op, request.pathParams ?? {}, { ...(request.query ?? {}), ...credentials.query }, request.rawPathParams),
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(body !== undefined && request.rawBody !== undefined && request.rawBodyEncoding ? { bodyEncoding: request.rawBodyEncoding } : {}),
    };
  }
}

/**
 * An apiKey header's value where its scheme shows a prefix (`Token <jwt>`): the credential after the prefix (a
 * credential given with it already is sent as given), the refused ones after it too but for another scheme
 * ('basic': `Basic <token>`); without a prefix the value itself.
 */
function prefixed(prefix: string | undefined, mode: InvalidAuth | 'valid', secret: string, token: string): string {
  if (prefix === undefined) return secret;
  const bare = token.startsWith(`${prefix} `) ? token.slice(prefix.length + 1) : token;
  switch (mode) {
    case 'valid':
      return `${prefix} ${bare}`;
    case 'basic':
      return `Basic ${bare}`;
    case 'empty':
      return `${prefix} `;
    case 'malformed':
      return `${prefix} not a valid token`;
    case 'truncated':
      return `${prefix} ${truncatedToken(bare)}`;
    case 'changed':
      return `${prefix} ${changedToken(bare)}`;
    default:
      return `${prefix} ${secret}`;
  }
}
