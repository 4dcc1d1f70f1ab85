import { isDeepStrictEqual } from 'node:util';
import type { Check } from './types.ts';
import { atPointer, finding } from './types.ts';

/** A valid request must succeed (2xx), and carry the values the examples expect. */
export const positiveDataAccepted: Check = {
  id: 'positive-data-accepted',
  scope: 'intent',
  appliesTo: ['success'],
  run(ctx) {
    const { status, json } = ctx.exchange.response;
    if (status < 200 || status > 299) {
      if (status >= 500) return []; // not-a-server-error reports it
      return [finding(ctx, 'positive-data-accepted', 'error', `A valid request was rejected with ${status}.`, { expected: '2xx', actual: status })];
    }
    return (ctx.expect ?? [])
      .filter((e) => 'equals' in e && !isDeepStrictEqual(atPointer(json, e.pointer), e.equals))
      .map((e) =>
        finding(ctx, 'positive-data-accepted', 'error', `The response value at ${e.pointer} is not the expected one.`, {
          expected: e.equals,
          actual: atPointer(json, e.pointer) ?? null,
        }),
      );
  },
};
