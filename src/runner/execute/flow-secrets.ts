/** Secrets a case's flow verifies: collected from the request and the OTP source, then redacted from the case. */
import type { Exchange } from '../model.ts';

/** The placeholder a flow secret is written as in every report. */
export const SECRET_PLACEHOLDER = '[secret]';

/** String values of the named fields anywhere in a request body. */
export function secretFieldValues(body: unknown, fields: readonly string[]): string[] {
  if (fields.length === 0 || typeof body !== 'object' || body === null) return [];
  if (Array.isArray(body)) return body.flatMap((v) => secretFieldValues(v, fields));
  return Object.entries(body).flatMap(([k, v]) => (fields.includes(k) && typeof v === 'string' ? [v] : secretFieldValues(v, fields)));
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(SECRET_PLACEHOLDER);
  return out;
}

/** Rewrites the case's exchanges so no flow secret is left in a request or a response (bodies, headers, parsed JSON). */
export function redactFlowSecrets(exchanges: readonly Exchange[], secrets: readonly string[]): void {
  const live = secrets.filter((s) => s.length >= 4);
  if (live.length === 0) return;
  for (const e of exchanges) {
    if (e.request.body !== undefined) e.request.body = scrub(e.request.body, live);
    e.request.url = scrub(e.request.url, live);
    if (!e.response) continue;
    const body = scrub(e.response.body, live);
    if (body !== e.response.body) {
      e.response.body = body;
      if (e.response.json !== undefined) {
        try {
          e.response.json = JSON.parse(body);
        } catch {
          // leave the parsed value out rather than keep a secret in it
          delete e.response.json;
        }
      }
    }
    for (const [name, value] of Object.entries(e.response.headers)) e.response.headers[name] = scrub(value, live);
  }
}
