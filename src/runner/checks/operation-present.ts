import type { RecordedResponse } from '../model.ts';
import type { Profile } from '../description/profile.ts';
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

/**
 * True when there is evidence that the route itself is unknown, not merely the record: the profile's rule
 * (a gateway status without the platform envelope) must hold, and where the deployment's answer to a route
 * that surely does not exist is known, the probe must be answered the same way (same status, same body once
 * the paths are taken out). A 405 counts when its Allow header leaves the method out. A service's own
 * "record not found" therefore never makes an operation missing.
 */
export function routeUnknown(
  probe: Pick<RecordedResponse, 'status' | 'json' | 'body' | 'headers'>,
  method: string,
  profile: Profile,
  unknownRoute?: Pick<RecordedResponse, 'status' | 'body'>,
  paths: string[] = [],
): boolean {
  const allow = probe.headers['allow'];
  if (probe.status === 405 && allow !== undefined && !allow.toUpperCase().split(/[\s,]+/).includes(method.toUpperCase())) return true;
  if (!answersAsUnknownRoute(probe, profile)) return false;
  // 501 Not Implemented, like 405, speaks of the route, never of a record.
  if (probe.status === 405 || probe.status === 501 || unknownRoute === undefined) return true;
  const strip = (text: string) => paths.reduce((t, p) => (p ? t.split(p).join('') : t), text).trim();
  return unknownRoute.status === probe.status && strip(unknownRoute.body) === strip(probe.body);
}

export const operationPresent: Check = {
  id: 'operation-present',
  scope: 'intent',
  appliesTo: ['presence'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    const paths = ctx.unknownRoute ? [new URL(ctx.exchange.request.url).pathname, ctx.unknownRoute.path] : [];
    if (!routeUnknown(ctx.exchange.response, ctx.operation.method, ctx.profile, ctx.unknownRoute?.response, paths)) return [];
    return [
      finding(ctx, 'operation-present', 'error', `missing: the deployment answers ${ctx.operation.method} ${ctx.operation.path} with ${status} and no platform envelope, as for an unknown route.`, {
        expected: 'the route is served',
        actual: status,
        specLocation: specLocation(ctx.operation),
      }),
    ];
  },
};
