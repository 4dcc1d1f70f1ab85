/** Placeholder that stands for the bearer token in every report, log line and reproduction command. */
export const TOKEN_PLACEHOLDER = '$CONFORMANCE_TOKEN';

const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'x-api-key']);

/** Headers that carry credentials: redacted by name, whatever their value (a token of one letter too). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

/**
 * A credential header's value: the scheme is kept, the credentials become $CONFORMANCE_TOKEN when they are
 * the run's secret (so the reproduction command works with the user's variable), else [redacted].
 */
export function redactCredential(value: string, secrets: readonly string[]): string {
  const m = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +(.*)$/.exec(value);
  const credentials = m ? (m[2] ?? '') : value;
  const secret = secrets.some((s) => s !== '' && (credentials === s || value === s));
  const replacement = secret ? TOKEN_PLACEHOLDER : '[redacted]';
  return m ? `${m[1]} ${replacement}` : replacement;
}

/** Replaces every occurrence of each secret in a text. Secrets shorter than 4 characters are not searched. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(TOKEN_PLACEHOLDER);
  }
  return out;
}

/**
 * Redacts headers by name and by value: credential headers (Authorization, Proxy-Authorization and the ones
 * named in `secretHeaders`, e.g. the profile's auth header) keep only their scheme; cookies and API keys
 * become [redacted]; every other value has the secrets replaced.
 */
export function redactHeaders(headers: Record<string, string>, secrets: readonly string[], secretHeaders: readonly string[] = []): Record<string, string> {
  const named = new Set(secretHeaders.map((h) => h.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (CREDENTIAL_HEADERS.has(lower) || named.has(lower)) out[name] = redactCredential(value, secrets);
    else out[name] = SECRET_HEADERS.has(lower) ? '[redacted]' : redactText(value, secrets);
  }
  return out;
}
