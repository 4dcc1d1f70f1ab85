import { mustReject } from '../plan/input-tiers.ts';
import type { Check, CheckContext } from './types.ts';
import { finding } from './types.ts';

/**
 * Invalid input must be rejected, with 400 where the operation documents it. What must be rejected is the
 * must-reject tier of plan/input-tiers.ts; an input of the lenient tier taken is a warning (accepted leniently),
 * unless the profile declares strictInput for it.
 */
export const negativeDataRejected: Check = {
  id: 'negative-data-rejected',
  scope: 'intent',
  appliesTo: ['rejected'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (status >= 500) return []; // not-a-server-error reports it
    const documents400 = ctx.operation.responses.some((r) => r.status === '400');
    if (status < 400) {
      const what = ctx.coverage ? ` (${ctx.coverage.label})` : otherMedia(ctx);
      const inputClass = ctx.inputClass !== undefined ? { inputClass: ctx.inputClass } : {};
      const expected = documents400 && !ctx.anyClientError ? 400 : '4xx';
      if (!mustReject(ctx.inputClass, ctx.profile.strictInput)) {
        return [finding(ctx, 'negative-data-rejected', 'warning', `Input the contract does not describe as valid was accepted leniently with ${status}${what}.`, { expected, actual: status, lenient: true, ...inputClass })];
      }
      return [finding(ctx, 'negative-data-rejected', 'error', `Invalid input was accepted with ${status}${what}.`, { expected, actual: status, ...inputClass })];
    }
    if (ctx.anyClientError) return [];
    // Without a platform rule that invalid input is 400, a rejection the operation documents (e.g. 422 beside
    // 400) is its own answer; only another status is noted.
    const platform400 = ctx.profile.statuses.some((s) => s.status === 400);
    const documented = ctx.operation.responses.some((r) => r.status === String(status));
    if (documents400 && status !== 400 && (platform400 || !documented)) {
      return [finding(ctx, 'negative-data-rejected', 'warning', `Invalid input was rejected with ${status}, not the documented 400.`, { expected: 400, actual: status })];
    }
    return [];
  },
};

/** ` (sent as <type>)` where the request's body went in another media type than the operation's first: else ''. */
function otherMedia(ctx: CheckContext): string {
  const bare = (t: string | undefined) => (t ?? '').split(';')[0]!.trim().toLowerCase();
  const header = Object.entries(ctx.exchange.request.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const first = ctx.operation.requestBody?.contentType;
  return ctx.exchange.request.body !== undefined && header !== undefined && first !== undefined && bare(header) !== bare(first) ? ` (sent as ${bare(header)})` : '';
}
