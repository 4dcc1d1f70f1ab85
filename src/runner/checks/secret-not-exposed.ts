import { TOKEN_PLACEHOLDER } from '../http/redact.ts';
import { tokenPaths } from '../description/token-properties.ts';
import type { Exchange, Operation } from '../model.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/** Where a secret value stands as a whole token (not inside a longer word or number) in a text. */
export function carriesSecret(text: string, secret: string): boolean {
  if (secret.length < 4) return false;
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`).test(text);
}

/** The parts of an answer a secret may show in: its header values and its body (searched apart, never joined). */
function responseParts(e: Exchange): string[] {
  return e.response ? [...Object.values(e.response.headers), e.response.body] : [];
}

/**
 * The answer's parts with the caller's token left out where the operation documents the token it answers (a
 * `{"user": {"token": ...}}` of a login or of the current user: there the token is the answer, not a leak).
 */
function undocumentedParts(e: Exchange, op: Operation): string[] {
  const parts = responseParts(e);
  const json = e.response?.json;
  if (typeof json !== 'object' || json === null || Array.isArray(json) || !/^2/.test(String(e.response?.status))) return parts;
  const paths = tokenPaths(op);
  if (paths.length === 0) return parts;
  const copy = structuredClone(json) as Record<string, unknown>;
  for (const path of paths) {
    let holder: unknown = copy;
    for (const key of path.slice(0, -1)) holder = typeof holder === 'object' && holder !== null && !Array.isArray(holder) ? (holder as Record<string, unknown>)[key] : undefined;
    const last = path[path.length - 1]!;
    if (typeof holder === 'object' && holder !== null && (holder as Record<string, unknown>)[last] === TOKEN_PLACEHOLDER) delete (holder as Record<string, unknown>)[last];
  }
  return [...parts.slice(0, -1), JSON.stringify(copy)];
}

/**
 * No response carries the caller's token (the client wrote it as the placeholder when it came back) but where its
 * operation documents the token it answers, and no
 * response of a case carries a secret the case's flow verifies (a one-time password read from the OTP
 * source, or the value sent in a secret field). The finding names the response, never the secret.
 */
export const secretNotExposed: Check = {
  id: 'secret-not-exposed',
  scope: 'response',
  run(ctx) {
    const out = [];
    const own = ctx.exchange;
    if (undocumentedParts(own, ctx.operation).some((part) => part.includes(TOKEN_PLACEHOLDER))) {
      out.push(finding(ctx, 'secret-not-exposed', 'error', `The ${own.response.status} response carries the caller's token.`, { expected: 'no token in the response', actual: 'the token (redacted)' }));
    }
    const secrets = ctx.secrets ?? [];
    if (secrets.length === 0) return out;
    const exchanges = [...(ctx.caseExchanges ?? []), ...(ctx.caseExchanges?.includes(own) ? [] : [own])];
    for (const e of exchanges) {
      if (!secrets.some((s) => responseParts(e).some((part) => carriesSecret(part, s)))) continue;
      const where = `${e.request.method} ${new URL(e.request.url).pathname}`;
      out.push(
        finding(ctx, 'secret-not-exposed', 'error', `The response to ${where} (${e.response?.status}) carries a secret the flow verifies (a one-time password).`, {
          expected: 'no secret of the flow in any response',
          actual: 'the secret (redacted)',
        }),
      );
    }
    return out;
  },
};
