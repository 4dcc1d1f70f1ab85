/** Placeholder that stands for the bearer token in every report, log line and reproduction command. */
export const TOKEN_PLACEHOLDER = '$CONFORMANCE_TOKEN';

const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'proxy-authorization', 'x-api-key']);

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

export function redactHeaders(headers: Record<string, string>, secrets: readonly Secret[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : redactText(value, secrets);
  }
  return out;
}
