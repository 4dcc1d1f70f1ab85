/** Secrets a case's flow verifies: collected from the request and the OTP source, then redacted from the case. */
import type { Exchange, Finding } from '../model.ts';
import { TOKEN_NAME } from '../description/token-properties.ts';

/** The placeholder a flow secret is written as in every report. */
export const SECRET_PLACEHOLDER = '[secret]';

/** String values of the named fields anywhere in a request body. */
export function secretFieldValues(body: unknown, fields: readonly string[]): string[] {
  if (fields.length === 0 || typeof body !== 'object' || body === null) return [];
  if (Array.isArray(body)) return body.flatMap((v) => secretFieldValues(v, fields));
  return Object.entries(body).flatMap(([k, v]) => (fields.includes(k) && typeof v === 'string' ? [v] : secretFieldValues(v, fields)));
}

/**
 * The credentials the API issued in the case's answers: the string values of properties named like a token
 * (`token`, `access_token`, `user.token` ...) in any answer's JSON. A registration of an account the run made up
 * answers that account's token, which no report may show (the run's own token is redacted apart, in http/).
 */
export function issuedCredentials(exchanges: readonly Exchange[]): string[] {
  const out: string[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 6 || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) return value.slice(0, 50).forEach((v) => walk(v, depth + 1));
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && v.length >= 8 && TOKEN_NAME.test(key)) out.push(v);
      else walk(v, depth + 1);
    }
  };
  for (const e of exchanges) walk(e.response?.json, 0);
  return out;
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(SECRET_PLACEHOLDER);
  return out;
}

/**
 * The case's findings with no flow secret left in their words: a message may quote a value the request sent (a
 * fuzzed body that kept the one-time password), and expected or actual may hold it.
 */
export function redactFindingSecrets(findings: readonly Finding[], secrets: readonly string[]): Finding[] {
  const live = secrets.filter((s) => s.length >= 4);
  if (live.length === 0) return [...findings];
  const clean = (value: unknown): unknown => {
    if (value === undefined) return value;
    const text = JSON.stringify(value);
    if (text === undefined || !live.some((s) => text.includes(s))) return value;
    try {
      return JSON.parse(scrub(text, live)) as unknown;
    } catch {
      return SECRET_PLACEHOLDER;
    }
  };
  return findings.map((f) => {
    const words = JSON.stringify([f.message, f.expected, f.actual, f.curl, f.request]);
    if (!live.some((s) => words.includes(s))) return f;
    return {
      ...f,
      message: scrub(f.message, live),
      ...(f.expected !== undefined ? { expected: clean(f.expected) } : {}),
      ...(f.actual !== undefined ? { actual: clean(f.actual) } : {}),
      ...(f.curl !== undefined ? { curl: scrub(f.curl, live) } : {}),
      ...(f.request ? { request: { ...f.request, url: scrub(f.request.url, live) } } : {}),
    };
  });
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
