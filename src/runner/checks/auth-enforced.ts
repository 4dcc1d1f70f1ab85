import type { Check } from './types.ts';
import { finding } from './types.ts';

/** A call without valid credentials must not succeed, and should answer one of the profile's reject statuses. */
export const authEnforced: Check = {
  id: 'auth-enforced',
  scope: 'intent',
  appliesTo: ['auth-rejected'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    const { rejectStatuses, otherRejectionSeverity } = ctx.profile.auth;
    if (status >= 200 && status < 400) {
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
