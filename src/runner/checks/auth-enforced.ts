import type { Check, CheckContext } from './types.ts';
import { finding } from './types.ts';

/**
 * Where the operation's API key goes in a header after a word its scheme shows only in words (`Token` in "Token
 * xxxxxx.yyyyyyy.zzzzzz"), and the request sent another word before the same value: the two words.
 */
function otherSchemeWord(ctx: CheckContext): { sent: string; shown: string } | undefined {
  const scheme = ctx.operation.auth?.[0];
  if (scheme?.kind !== 'apiKey' || scheme.in !== 'header' || scheme.prefix === undefined) return undefined;
  const name = scheme.parameter.toLowerCase();
  const value = Object.entries(ctx.exchange.request.headers).find(([k]) => k.toLowerCase() === name)?.[1];
  const sent = value === undefined ? undefined : /^(\S+) \S/.exec(value)?.[1];
  return sent !== undefined && sent.toLowerCase() !== scheme.prefix.toLowerCase() ? { sent, shown: scheme.prefix } : undefined;
}

/** A call without valid credentials must not succeed, and should answer one of the profile's reject statuses. */
export const authEnforced: Check = {
  id: 'auth-enforced',
  scope: 'intent',
  appliesTo: ['auth-rejected'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    const { rejectStatuses, otherRejectionSeverity } = ctx.profile.auth;
    if (status >= 200 && status < 400) {
      const word = otherSchemeWord(ctx);
      if (word) {
        // The word before the key is shown in prose only (the scheme's description or example): taking another is lenient.
        const message = `A call that sent the valid credential after "${word.sent}" in place of "${word.shown}" succeeded with ${status}: the contract shows "${word.shown}" only in the words of its security scheme, so another word taken is accepted leniently.`;
        return [finding(ctx, 'auth-enforced', 'warning', message, { expected: rejectStatuses, actual: status, lenient: true })];
      }
      return [finding(ctx, 'auth-enforced', 'error', `A call without valid credentials succeeded with ${status}.`, { expected: rejectStatuses, actual: status })];
    }
    if (rejectStatuses.includes(status)) return [];
    return [
      finding(ctx, 'auth-enforced', otherRejectionSeverity, `A call without valid credentials was rejected with ${status}, not ${rejectStatuses.join('/')}.`, {
        expected: rejectStatuses,
        actual: status,
      }),
    ];
  },
};
