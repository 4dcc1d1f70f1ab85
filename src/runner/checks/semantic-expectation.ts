import { isDeepStrictEqual } from 'node:util';
import type { Check } from './types.ts';
import { atPointer, finding } from './types.ts';

/**
 * What the interface states an answer means (contract/examples.yaml `semantic` cases): a success must carry
 * the expected values (`equals`) and not the excluded ones (`notEquals`); a 4xx refusal also satisfies a
 * semantic case (a value the service never issued may be refused instead of judged not valid).
 */
export const semanticExpectation: Check = {
  id: 'semantic-expectation',
  scope: 'intent',
  appliesTo: ['semantic'],
  run(ctx) {
    const { status, json } = ctx.exchange.response;
    if (status >= 400 && status < 500) return [];
    if (status >= 500) return []; // not-a-server-error reports it
    if (status < 200 || status > 299) {
      return [finding(ctx, 'semantic-expectation', 'error', `The call was answered ${status}, neither a judgement nor a refusal.`, { expected: '2xx or 4xx', actual: status })];
    }
    const out = [];
    for (const e of ctx.expect ?? []) {
      const actual = atPointer(json, e.pointer);
      if ('equals' in e && !isDeepStrictEqual(actual, e.equals)) {
        out.push(finding(ctx, 'semantic-expectation', 'error', `The value at ${e.pointer} is not the one the interface states.`, { expected: e.equals, actual: actual ?? null }));
      }
      if ('notEquals' in e && isDeepStrictEqual(actual, e.notEquals)) {
        out.push(finding(ctx, 'semantic-expectation', 'error', `The value at ${e.pointer} claims what the interface rules out (${JSON.stringify(e.notEquals)}).`, { expected: `not ${JSON.stringify(e.notEquals)}`, actual }));
      }
    }
    return out;
  },
};
