/**
 * Paces the requests of a run: at most `perSecond` starts per second (0: unlimited), and a pause for
 * everyone when the gateway answers 429 (until its Retry-After has passed).
 */
export class RateLimiter {
  private next = 0;
  private pausedUntil = 0;

  constructor(private readonly perSecond: number) {}

  /** Resolves when the caller may send; returns how long it waited (ms). */
  async take(): Promise<number> {
    const now = Date.now();
    const slot = Math.max(now, this.next, this.pausedUntil);
    if (this.perSecond > 0) this.next = slot + 1000 / this.perSecond;
    const wait = slot - now;
    if (wait > 0) await sleep(wait);
    return wait;
  }

  /** No request starts before `ms` from now (a 429's Retry-After). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), undefined when absent or bad. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
