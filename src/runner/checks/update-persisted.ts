import { isDeepStrictEqual } from 'node:util';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * After a successful update, a read of the same record shows each field the update sent, and leaves the
 * fields the update does not accept (absent from its request schema, sent changed) as they were.
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
    const applied = Object.entries(ctx.lifecycle?.notAccepted ?? {}).filter(([k, v]) => body && k in body && !isDeepStrictEqual(body[k], v));
    if (applied.length > 0) {
      out.push(
        finding(ctx, 'update-persisted', 'error', `The update applied ${applied.map(([k]) => k).join(', ')}, which its request schema does not accept.`, {
          expected: Object.fromEntries(applied),
          actual: Object.fromEntries(applied.map(([k]) => [k, body?.[k]])),
        }),
      );
    }
    return out;
  },
};
