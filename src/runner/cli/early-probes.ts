/**
 * The target's reachability probe is a run's first request, and it needs only the base URL: it leaves while the
 * contract is still loading, and the run looks at its answer once every local input (the descriptions, profile,
 * examples, catalog, waivers, baseline) has been read and judged, so a broken file is never hidden behind an
 * unreachable target. A probe is sent early only to a service the run surely needs (no --exclude, and no --include
 * or one naming the service), so an early probe is never a request the run would not have sent anyway.
 */

/** Whether a run with this selection needs the service with this id whatever the contract holds. */
export function surelyNeeded(serviceId: string, selection: { include: string[]; exclude: string[] }): boolean {
  if (selection.exclude.length > 0) return false;
  return selection.include.length === 0 || selection.include.some((p) => p === serviceId || p === `service:${serviceId}`);
}

/** One probe per base URL, started at most once; a failure is kept for whoever asks for the result. */
export class ReachabilityProbes {
  readonly #probes = new Map<string, Promise<void>>();

  constructor(private readonly probe: (baseUrl: string) => Promise<void>) {}

  start(baseUrl: string): void {
    if (this.#probes.has(baseUrl)) return;
    // Answered later (or never, when the run stops first, e.g. on a broken description): not an unhandled
    // rejection meanwhile.
    this.#probes.set(baseUrl, later(this.probe(baseUrl)));
  }

  /** The probe's outcome: resolves when the base URL is reachable, rejects with the probe's error otherwise. */
  result(baseUrl: string): Promise<void> {
    this.start(baseUrl);
    return this.#probes.get(baseUrl)!;
  }
}

/** A promise whose rejection is handled later: no unhandled rejection while the run does other work first. */
export function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
