import type { RecordedResponse } from '../model.ts';
import type { Profile } from '../description/profile.ts';

/** What the session keeps of the answer to a route that surely does not exist: what `routeUnknown` compares. */
export type UnknownRouteAnswer = Pick<RecordedResponse, 'status' | 'body'>;

/**
 * The deployment's answer to an unknown route, reduced to what deciding "missing" can use. `routeUnknown`
 * compares bodies only when the probe's status equals this one and is a gateway status other than 405 and
 * 501 (those decide without a body), so any other answer is kept without its body: a run caches one answer
 * per service and method, and a large one (up to the body cap) would otherwise stay in memory to the end.
 */
export function unknownRouteAnswer(response: RecordedResponse, profile: Profile): UnknownRouteAnswer {
  const comparable = response.status !== 405 && response.status !== 501 && profile.missing.gatewayStatuses.includes(response.status);
  return { status: response.status, body: comparable ? response.body : '' };
}
