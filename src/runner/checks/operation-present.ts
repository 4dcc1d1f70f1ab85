import type { Check } from './types.ts';
import { atPointer, finding, specLocation } from './types.ts';

/**
 * An operation is missing when its route is answered the way a gateway answers an unknown route: one of the
 * gateway statuses without the platform envelope. A service's own "not found" carries the envelope.
 */
export const operationPresent: Check = {
  id: 'operation-present',
  appliesTo: ['presence'],
  run(ctx) {
    const { status, json } = ctx.exchange.response;
    if (!ctx.profile.missing.gatewayStatuses.includes(status)) return [];
    if (atPointer(json, ctx.profile.errorEnvelope.codePointer) !== undefined) return [];
    return [
      finding(ctx, 'operation-present', 'error', `missing: the deployment answers ${ctx.operation.method} ${ctx.operation.path} with ${status} and no platform envelope, as for an unknown route.`, {
        expected: 'the route is served',
        actual: status,
        specLocation: specLocation(ctx.operation),
      }),
    ];
  },
};
