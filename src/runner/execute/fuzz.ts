import fc from 'fast-check';
import type { Exchange, Operation } from '../model.ts';
import { bigintText, describeRequest, NOT_SENT, requestArbitrary, type FuzzRequest, type PositiveRequest } from '../plan/arbitraries.ts';
import { Random } from '../plan/random.ts';

/**
 * The fuzzing phase of one operation: random schema-valid requests drawn by fast-check (fc.asyncProperty over
 * requestArbitrary), deterministic for a seed, `numRuns` of them. The property is "no server error": the first
 * 5xx ends the drawing and fast-check shrinks the request (optional parts left out, numbers towards 0, strings
 * and arrays shorter) while it still fails, within a budget of requests. Identical requests are sent once.
 * A 4xx is the service's own answer to a value that may be semantically impossible: never a finding here.
 */

/** Requests the shrinking of one failure may send. */
export const SHRINK_BUDGET = 100;

export interface FuzzRun {
  /** Requests sent (drawn and shrinking ones). */
  sent: number;
  /** The smallest failing request and its exchange, when a server error was found. */
  failing?: { request: FuzzRequest; exchange: Exchange; label: string };
  /** A request that got no answer (network error, timeout) before any server error: judged as is. */
  unanswered?: Exchange;
  /** The last answered exchange (what a passing phase shows). */
  last?: Exchange;
  /** The tool could not draw requests (never the service's fault). */
  error?: string;
}

export interface FuzzOptions {
  /** Run seed and operation id: fast-check's seed is derived from both. */
  seed: string;
  numRuns: number;
  shrinkBudget?: number;
  /** Path parameters to draw (the others keep the positive request's values). */
  varyPath?: ReadonlySet<string>;
  send: (request: FuzzRequest) => Promise<Exchange>;
}

function isServerError(e: Exchange): boolean {
  return e.response !== undefined && e.response.status >= 500;
}

export async function fuzzOperation(op: Operation, positive: PositiveRequest, options: FuzzOptions): Promise<FuzzRun> {
  const random = new Random(`${options.seed}:fuzz`);
  const budget = options.shrinkBudget ?? SHRINK_BUDGET;
  const run: FuzzRun = { sent: 0 };
  let arbitrary: fc.Arbitrary<FuzzRequest>;
  try {
    arbitrary = requestArbitrary(op, positive, random, options.varyPath);
  } catch (error) {
    return { ...run, error: `requests could not be drawn from the schema: ${(error as Error).message}` };
  }
  const seen = new Map<string, boolean>();
  let shrinkSent = 0;
  let stopped = false;
  const property = fc.asyncProperty(arbitrary, async (request) => {
    if (stopped || (run.failing && shrinkSent >= budget)) return true;
    const key = JSON.stringify(request, bigintText);
    // A value no generator could make schema-valid: the request would not be schema-valid, so it is not sent.
    if (key.includes(JSON.stringify(NOT_SENT).slice(1, -1))) return true;
    const known = seen.get(key);
    if (known !== undefined) return known;
    const exchange = await options.send(request);
    run.sent++;
    if (run.failing) shrinkSent++;
    if (exchange.response === undefined) {
      // No answer is not a smaller failure; before any failure it ends the phase (judged as such).
      if (!run.failing) {
        run.unanswered = exchange;
        stopped = true;
      }
      return true;
    }
    run.last = exchange;
    const passed = !isServerError(exchange);
    seen.set(key, passed);
    if (!passed) run.failing = { request, exchange, label: describeRequest(request, positive) };
    return passed;
  });
  try {
    const details = await fc.check(property, { seed: seedOf(options.seed), numRuns: Math.max(1, options.numRuns), verbose: 0 });
    if (details.failed && !run.failing && details.errorInstance) {
      return { ...run, error: `the fuzzing phase failed: ${String((details.errorInstance as Error).message ?? details.errorInstance)}` };
    }
  } catch (error) {
    return { ...run, error: `the fuzzing phase failed: ${(error as Error).message}` };
  }
  return run;
}

/** fast-check's seed (a 32-bit integer) from the run seed and the operation. */
export function seedOf(text: string): number {
  return Math.floor(new Random(text).next() * 2 ** 31);
}
