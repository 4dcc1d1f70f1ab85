import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * Paging keeps its promises where the contract names it (plan/paging.ts): no page holds more records than the page
 * size asked (a server may serve fewer), paging through reaches every record once, and a total the pages state
 * equals what paging reached. The walk (execute/phases/paging.ts) says what broke, about the page that showed it.
 */
export const pagingKept: Check = {
  id: 'paging-kept',
  scope: 'intent',
  appliesTo: ['paging'],
  run(ctx) {
    return (ctx.paging?.broken ?? []).map((b) => finding(ctx, 'paging-kept', 'error', b.message, { ...(b.expected !== undefined ? { expected: b.expected } : {}), ...(b.actual !== undefined ? { actual: b.actual } : {}) }));
  },
};
