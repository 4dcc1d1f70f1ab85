import type { RecordedResponse } from '../model.ts';
import type { Profile } from '../spec/profile.ts';
import type { Check } from './types.ts';
import { atPointer, finding, specLocation } from './types.ts';

/**
 * An operation is missing when its route is answered the way a gateway answers an unknown route: one of the
 * gateway statuses without the platform envelope. A service's own "not found" carries the envelope.
 */
/**
 * A gateway's answer to an unknown route: one of the profile's gateway statuses, without the platform
 * envelope. 405 is always an absent operation, envelope or not: the method the contract documents is not
 * served on that path (RFC 9110 §15.5.6).
 */
export function answersAsUnknownRoute(response: Pick<RecordedResponse, 'status' | 'json'>, profile: Profile): boolean {
  if (response.status === 405) return true;
  return profile.missing.gatewayStatuses.includes(response.status) && atPointer(response.json, profile.errorEnvelope.codePointer) === undefined;
}

export const operationPresent: Check = {
  id: 'operation-present',
  appliesTo: ['presence'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (!answersAsUnknownRoute(ctx.exchange.response, ctx.profile)) return [];
    return [
      finding(ctx, 'operation-present', 'error', `missing: the deployment answers ${ctx.operation.method} ${ctx.operation.path} with ${status} and no platform envelope, as for an unknown route.`, {
        expected: 'the route is served',
        actual: status,
        specLocation: specLocation(ctx.operation),
      }),
    ];
  },
};
