import { isDeepStrictEqual } from 'node:util';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * After a successful update, a read of the same record shows each field the update sent. (What the update must
 * not set is sent apart, after it, and judged by mass-assignment.)
 */
export const updatePersisted: Check = {
  id: 'update-persisted',
  scope: 'intent',
  appliesTo: ['update-persisted'],
  run(ctx) {
    const read = ctx.lifecycle?.readBack.response;
    const sent = ctx.lifecycle?.sent;
    if (!read || typeof sent !== 'object' || sent === null) return [];
    if (read.status < 200 || read.status > 299) {
      return [finding(ctx, 'update-persisted', 'error', `The record could not be read back after the update (${read.status}).`, { expected: '2xx', actual: read.status })];
    }
    const body = read.json as Record<string, unknown> | undefined;
    const out = [];
    const stale = Object.entries(sent).filter(([k, v]) => body && k in body && !isDeepStrictEqual(body[k], v));
    if (stale.length > 0) {
      out.push(
        finding(ctx, 'update-persisted', 'error', `The update was answered with success but ${stale.map(([k]) => k).join(', ')} did not change.`, {
          expected: Object.fromEntries(stale),
          actual: Object.fromEntries(stale.map(([k]) => [k, body?.[k]])),
        }),
      );
    }
    return out;
  },
};
