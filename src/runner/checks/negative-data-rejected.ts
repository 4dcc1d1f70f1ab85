import type { Check } from './types.ts';
import { finding } from './types.ts';

/** Invalid input must be rejected, with 400 where the operation documents it. */
export const negativeDataRejected: Check = {
  id: 'negative-data-rejected',
  appliesTo: ['rejected'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (status >= 500) return []; // not-a-server-error reports it
    const documents400 = ctx.operation.responses.some((r) => r.status === '400');
    if (status < 400) {
      return [finding(ctx, 'negative-data-rejected', 'error', `Invalid input was accepted with ${status}.`, { expected: documents400 ? 400 : '4xx', actual: status })];
    }
    // A rejection the operation documents is its own answer (e.g. 422 beside 400); only another status is noted.
    if (documents400 && status !== 400 && !ctx.operation.responses.some((r) => r.status === String(status))) {
      return [finding(ctx, 'negative-data-rejected', 'warning', `Invalid input was rejected with ${status}, not the documented 400.`, { expected: 400, actual: status })];
    }
    return [];
  },
};
