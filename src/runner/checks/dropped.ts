import type { Exchange } from '../model.ts';

/**
 * How the re-send of a request whose connection was cut on every attempt begins its reason (Exchange.retries): it
 * was sent alone, with no other request of the run's cases in flight (execute/caller.ts droppedOrNot: the slots
 * held; a scenario suite's own client is not among them).
 */
export const SENT_ALONE = 'sent alone: ';

/**
 * Whether the deployment crashed on this request (WFC 100, the connection-dropped check): its connection was closed
 * without an answer on every attempt, the last one sent alone, while the deployment answered another request
 * (Caller.droppedOrNot, execute/caller.ts, marks it 'dropped' and keeps the lone re-send among its retries). A request cut in flight
 * as the deployment stopped answering is 'dropped' too, without that re-send: the "stopped answering" rule's
 * (not-a-server-error).
 */
export function droppedAlone(exchange: Exchange): boolean {
  return exchange.response === undefined && exchange.error?.kind === 'dropped' && (exchange.retries ?? []).some((r) => r.reason.startsWith(SENT_ALONE));
}
