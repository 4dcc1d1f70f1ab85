/** Placeholder that stands for the bearer token in every report, log line and reproduction command. */
export const TOKEN_PLACEHOLDER = '$CONFORMANCE_TOKEN';

const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'x-api-key']);

/** Headers that carry credentials: redacted by name, whatever their value (a token of one letter too). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

/**
 * A credential header's value: the scheme is kept, the credentials become $CONFORMANCE_TOKEN when they are
 * the run's secret (so the reproduction command works with the user's variable), else [redacted].
 */
export function redactCredential(value: string, secrets: readonly Secret[]): string {
  const m = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +(.*)$/.exec(value);
  const credentials = m ? (m[2] ?? '') : value;
  const secret = secrets
    .map((s) => (typeof s === 'string' ? { value: s, placeholder: TOKEN_PLACEHOLDER } : s))
    .find((s) => s.value !== '' && (credentials === s.value || value === s.value));
  const replacement = secret ? secret.placeholder : '[redacted]';
  return m ? `${m[1]} ${replacement}` : replacement;
}

/** A secret to redact: its value alone (written as the token placeholder), or with its own placeholder. */
export type Secret = string | { value: string; placeholder: string };

/**
 * Replaces every occurrence of each secret in a text, in the order given (give longer secrets first when one
 * contains another). Secrets shorter than 4 characters are not searched.
 */
export function redactText(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const secret of secrets) {
    const { value, placeholder } = typeof secret === 'string' ? { value: secret, placeholder: TOKEN_PLACEHOLDER } : secret;
    if (value.length >= 4 && out.includes(value)) out = out.split(value).join(placeholder);
  }
  return out;
}

/** The lower-cased names of each list of secret headers (a client passes the same list with every exchange). */
const namedSets = new WeakMap<readonly string[], ReadonlySet<string>>();
const NONE: ReadonlySet<string> = new Set();

/**
 * Redacts headers by name and by value: credential headers (Authorization, Proxy-Authorization and the ones
 * named in `secretHeaders`, e.g. the profile's auth header) keep only their scheme; cookies and API keys
 * become [redacted]; every other value has the secrets replaced.
 */
export function redactHeaders(headers: Record<string, string>, secrets: readonly Secret[], secretHeaders: readonly string[] = []): Record<string, string> {
  let named = secretHeaders.length === 0 ? NONE : namedSets.get(secretHeaders);
  if (!named || named.size !== secretHeaders.length) namedSets.set(secretHeaders, (named = new Set(secretHeaders.map((h) => h.toLowerCase()))));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (CREDENTIAL_HEADERS.has(lower) || named.has(lower)) out[name] = redactCredential(value, secrets);
    else out[name] = SECRET_HEADERS.has(lower) ? '[redacted]' : redactText(value, secrets);
  }
  return out;
}
