import { randomBytes } from 'node:crypto';
import { TOKEN_PLACEHOLDER, type Secret } from './redact.ts';

/**
 * Credentials that must all be refused, each with its case name. The list is the auth matrix: the header
 * left out, an empty bearer token, another scheme carrying the token, a malformed and a random token, and
 * the valid token cut short or with one character changed (a partial comparison lets those through).
 */
export const AUTH_VARIANTS = [
  ['none', 'no token'],
  ['empty', 'empty bearer token'],
  ['basic', 'Basic scheme'],
  ['malformed', 'malformed token'],
  ['wrong', 'wrong token'],
  ['truncated', 'valid token truncated'],
  ['changed', 'valid token with one character changed'],
] as const;

export type InvalidAuth = (typeof AUTH_VARIANTS)[number][0];

/** What an operation's auth cases send their credentials in: its first security scheme (none: the profile's bearer header). */
export type CredentialCarrier = { kind: 'bearer' | 'basic' } | { kind: 'apiKey'; prefix?: string };

/**
 * The auth cases' names for the scheme at hand: the bearer names for a bearer token; for an apiKey what it holds
 * (`Token credential` where the scheme shows a `Token` prefix, else `API key`), for basic the Basic credentials.
 */
export function authVariantNames(carrier: CredentialCarrier | undefined): ReadonlyArray<readonly [InvalidAuth, string]> {
  if (!carrier || carrier.kind === 'bearer') return AUTH_VARIANTS;
  const prefix = carrier.kind === 'apiKey' ? carrier.prefix : undefined;
  const what = carrier.kind === 'basic' ? 'Basic credentials' : prefix ? `${prefix} credential` : 'API key';
  const other = prefix ? `Basic scheme in place of ${prefix}` : carrier.kind === 'basic' ? 'Basic credentials of no user' : 'API key of no client';
  return [
    ['none', `no ${what}`],
    ['empty', `empty ${what}`],
    ['basic', other],
    ['malformed', `malformed ${what}`],
    ['wrong', `wrong ${what}`],
    ['truncated', `valid ${what} truncated`],
    ['changed', `valid ${what} with one character changed`],
  ];
}

/** The valid token without its last character. */
export function truncatedToken(token: string): string {
  return token.slice(0, -1);
}

/** The valid token with its middle character replaced by another character of the same kind. */
export function changedToken(token: string): string {
  if (token === '') return 'x';
  const i = Math.floor(token.length / 2);
  const c = token[i] ?? 'a';
  const swap = /[0-9]/.test(c) ? (c === '0' ? '1' : '0') : /[A-Z]/.test(c) ? (c === 'A' ? 'B' : 'A') : c === 'a' ? 'b' : 'a';
  return `${token.slice(0, i)}${swap}${token.slice(i + 1)}`;
}

/**
 * The token and every value derived from it, as a report must redact them: the derived ones get their own
 * placeholder (a reproduction must not send the valid token for them), the token first so none of it is left.
 */
export function derivedSecrets(token: string, placeholder = TOKEN_PLACEHOLDER): Secret[] {
  if (token === '') return [];
  return [
    placeholder === TOKEN_PLACEHOLDER ? token : { value: token, placeholder },
    { value: changedToken(token), placeholder: `${placeholder}~changed` },
    { value: truncatedToken(token), placeholder: `${placeholder}~truncated` },
  ];
}

/**
 * The variable a security scheme's credential (--auth NAME=value) stands as in reports and reproduction commands:
 * CONFORMANCE_AUTH_ and the scheme's name in upper case, every other character an underscore.
 */
export function schemeVariable(scheme: string): string {
  return `CONFORMANCE_AUTH_${scheme.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The Authorization header value for an auth mode, or undefined when the header is left out. */
export function authorization(mode: InvalidAuth | 'valid', token: string): string | undefined {
  switch (mode) {
    case 'valid':
      return `Bearer ${token}`;
    case 'none':
      return undefined;
    case 'empty':
      return 'Bearer ';
    case 'basic':
      return `Basic ${token}`;
    case 'malformed':
      return 'Bearer not a valid token';
    case 'wrong':
      return `Bearer ${randomBytes(24).toString('hex')}`;
    case 'truncated':
      return `Bearer ${truncatedToken(token)}`;
    case 'changed':
      return `Bearer ${changedToken(token)}`;
  }
}
