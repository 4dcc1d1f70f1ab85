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
    const stale = staleFields(sent, read.json, '');
    if (stale.length === 0) return [];
    return [
      finding(ctx, 'update-persisted', 'error', `The update was answered with success but ${stale.map((s) => s.path).join(', ')} did not change.`, {
        expected: Object.fromEntries(stale.map((s) => [s.path, s.sent])),
        actual: Object.fromEntries(stale.map((s) => [s.path, s.read])),
      }),
    ];
  },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The fields the update sent that the read shows with another value, by their path (`article.title`): an object
 * sent (an envelope, a nested record) is compared field by field; a field the read does not hold (a password, a
 * field the record does not show) is not compared.
 */
function staleFields(sent: unknown, read: unknown, at: string): Array<{ path: string; sent: unknown; read: unknown }> {
  if (!isObject(sent) || !isObject(read)) return [];
  return Object.entries(sent).flatMap(([k, v]) => {
    if (!(k in read)) return [];
    const path = at === '' ? k : `${at}.${k}`;
    if (isObject(v) && isObject(read[k])) return staleFields(v, read[k], path);
    return isDeepStrictEqual(read[k], v) ? [] : [{ path, sent: v, read: read[k] }];
  });
}
