/** Placeholder that stands for the bearer token in every report, log line and reproduction command. */
export const TOKEN_PLACEHOLDER = '$CONFORMANCE_TOKEN';

const SECRET_HEADERS = new Set(['cookie', 'set-cookie', 'proxy-authorization', 'x-api-key']);

/** Replaces every occurrence of each secret in a text. Secrets shorter than 4 characters are not searched. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(TOKEN_PLACEHOLDER);
  }
  return out;
}

export function redactHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : redactText(value, secrets);
  }
  return out;
}
