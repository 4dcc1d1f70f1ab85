import type { Check } from './types.ts';
import { finding } from './types.ts';

/** The challenges a WWW-Authenticate value names: each auth-scheme token (RFC 9110 §11.6.1); empty for an empty or malformed value. */
export function challengeSchemes(value: string): string[] {
  // A challenge is `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`; a comma separates challenges and parameters alike:
  // a scheme is a token that starts the value or follows a comma and is not itself a parameter (`name=`).
  const schemes: string[] = [];
  for (const part of value.split(',')) {
    const m = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s+|$)(?!=)/.exec(part);
    if (m && !/^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=/.test(part)) schemes.push(m[1]!);
  }
  return schemes;
}

/**
 * A 401 carries a WWW-Authenticate header with at least one challenge (RFC 9110 §15.5.2: "The server generating a
 * 401 response MUST send a WWW-Authenticate header field containing at least one challenge", §11.6.1): without it a
 * client cannot tell how to authenticate. Any 401, of any case (a call without credentials, a credential refused, a
 * gateway's answer): what the client meets. Where a gateway in front of the service adds the header, the answer
 * carries it and keeps the promise. An error where the operation's credentials are HTTP authentication (a bearer token
 * or basic credentials, RFC 6750 §3 and RFC 7617 name their challenges); a warning where they are only API keys, for
 * which HTTP registers no scheme to name in a challenge.
 */
export const unauthorizedChallenge: Check = {
  id: 'unauthorized-challenge',
  scope: 'response',
  run(ctx) {
    const { request, response } = ctx.exchange;
    if (response.status !== 401) return [];
    const value = response.headers['www-authenticate'];
    if (value !== undefined && challengeSchemes(value).length > 0) return [];
    const call = `${request.method} ${new URL(request.url).pathname}`;
    const auth = ctx.operation.auth ?? [];
    const severity = auth.length === 0 || auth.some((a) => a.kind !== 'apiKey') ? 'error' : 'warning';
    const what = value === undefined ? 'without a WWW-Authenticate header' : `with "WWW-Authenticate: ${value.slice(0, 60)}", which names no challenge`;
    return [
      finding(ctx, 'unauthorized-challenge', severity, `${call} answered 401 ${what}, but a 401 must carry at least one challenge (RFC 9110 §15.5.2, §11.6.1): the client is not told how to authenticate.`, {
        expected: 'WWW-Authenticate with at least one challenge (RFC 9110 §11.6.1)',
        actual: value === undefined ? 'no WWW-Authenticate' : value.slice(0, 200),
      }),
    ];
  },
};
