import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { finding, mediaType } from './types.ts';

/**
 * A body the run cannot read whole or use as JSON cannot be checked, so it fails its case rather than pass
 * unexamined: larger than the body cap, JSON nested deeper than the client keeps, or not valid JSON where
 * JSON is declared (by the response's content type or the contract).
 */
export const responseBodyReadable: Check = {
  id: 'response-body-readable',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    const declaredJson = /json/i.test(mediaType(response.headers) ?? '') || (spec?.contentTypes ?? []).some((t) => /json/i.test(t));
    if (response.truncated) {
      return [
        finding(ctx, 'response-body-readable', 'error', `Response ${response.status} body is ${response.size} bytes, more than the run reads (${response.body.length} bytes): it cannot be checked.`, {
          expected: 'a body within the body cap',
          actual: `${response.size} bytes`,
        }),
      ];
    }
    if (response.jsonError && declaredJson) {
      return [finding(ctx, 'response-body-readable', 'error', `Response ${response.status}: ${response.jsonError}.`, { expected: 'a JSON body', actual: response.body.slice(0, 200) })];
    }
    return [];
  },
};
