import { isDeepStrictEqual } from 'node:util';
import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { atPointer, finding } from './types.ts';

/** Refusals that come before the input is looked at: credentials, the method, the media types, a rate limit. */
const BEFORE_INPUT = new Set([401, 403, 405, 406, 415, 429]);

/** A valid request must succeed (2xx), and carry the values the examples expect. */
export const positiveDataAccepted: Check = {
  id: 'positive-data-accepted',
  scope: 'intent',
  appliesTo: ['success'],
  run(ctx) {
    const { status, json } = ctx.exchange.response;
    if (status < 200 || status > 299) {
      if (status >= 500) return []; // not-a-server-error reports it
      // Without a platform's status table, a refusal the contract documents for the operation may be the
      // service's answer to data the run cannot know (a referenced record that does not exist): a warning.
      const documentedRefusal = ctx.profile.statuses.length === 0 && status >= 400 && responseFor(ctx.operation, status)?.status === String(status);
      // A body that names a record the run made up (user_id = 245) may be refused for that record alone.
      const madeUp = ctx.madeUpReferences ?? [];
      if (madeUp.length > 0 && !BEFORE_INPUT.has(status)) {
        return [finding(ctx, 'positive-data-accepted', 'warning', `A valid request was refused with ${status}; its body names ${madeUp.join(', ')}, a record the run did not get from the service: the refusal may be about that record.`, { expected: '2xx', actual: status })];
      }
      if (documentedRefusal) {
        return [finding(ctx, 'positive-data-accepted', 'warning', `A valid request was refused with ${status}, a status the contract documents for it: it may depend on data the run does not have.`, { expected: '2xx', actual: status })];
      }
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
