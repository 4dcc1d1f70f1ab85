import fc from 'fast-check';
import type { Exchange, Operation } from '../model.ts';
import { bigintText, describeRequest, NOT_SENT, requestArbitrary, type FuzzRequest, type PositiveRequest, type SmallSweep } from '../plan/arbitraries.ts';
import { Random } from '../plan/random.ts';
import { Slots } from './slots.ts';

/**
 * The fuzzing phase of one operation: random schema-valid requests drawn by fast-check (requestArbitrary),
 * deterministic for a seed, `numRuns` of them. They are drawn first, then sent up to `parallel` at a time
 * (the session bounds the run's requests in flight) and their answers handed to `answered` in the order drawn,
 * so the same seed sends the same requests and judges them in the same order whatever the timing. The
 * property is "no server error": from the first 5xx in that order fast-check shrinks the request (optional
 * parts left out, numbers towards 0, strings and arrays shorter) while it still fails, one request at a time
 * within a budget. Identical requests are sent once. A 4xx is the service's own answer to a value that may be
 * semantically impossible: never a finding here.
 *
 * Before the random requests, the small-value sweep (plan/arbitraries.ts SmallSweep): up to SMALL_SWEEP requests,
 * the k-th with every integer it carries at the k-th small value of its range (0, 1, 2...) and the rest drawn. A
 * rule about one small number (a value refused, a value that breaks the service) is then met under every seed,
 * where random draws over a wide range meet it by chance. They take a quarter of the budget at most, and none
 * where the request carries no integer; the random requests are the first of the seed's draws either way.
 */

/** Requests of the small-value sweep at most: 0 to 15 where 0 is allowed. */
export const SMALL_SWEEP = 16;

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
  /** Drawn requests sent at once (default 1). */
  parallel?: number;
  /** Path parameters to draw (the others keep the positive request's values). */
  varyPath?: ReadonlySet<string>;
  /** Sends one request; undefined: it was not sent (the run stopped sending this operation's requests). */
  send: (request: FuzzRequest) => Promise<Exchange | undefined>;
  /** Each answer, in the order drawn (shrinking ones after), with its number among the requests sent. */
  answered?: (request: FuzzRequest, exchange: Exchange, sent: number) => void;
}

/** A 5xx, or a connection the server cut on this request while it answered others (session.ts: 'dropped'). */
function isServerError(e: Exchange): boolean {
  return (e.response !== undefined && e.response.status >= 500) || e.error?.kind === 'dropped';
}

const NOT_SENT_TEXT = JSON.stringify(NOT_SENT).slice(1, -1);

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
  const small = smallSweep(op, positive, options);
  const parameters = { seed: seedOf(options.seed), numRuns: Math.max(1, options.numRuns - small.length), verbose: 0 } as const;
  const checked = (property: fc.IAsyncPropertyWithHooks<[FuzzRequest]>) => checkProperty(property, parameters, run);

  // 1. Draw: the requests fast-check's run would try, in its order (a property that holds sees them all).
  const drawn: DrawnRequest[] = small.map((request) => ({ request, key: JSON.stringify(request, bigintText) }));
  const drawError = await checked(fc.asyncProperty(arbitrary, async (request) => {
    drawn.push({ request, key: JSON.stringify(request, bigintText) });
    return true;
  }));
  if (drawError) return { ...run, error: drawError };

  const seen = await sendDrawn(distinctSendable(drawn), positive, options, run);
  if (!run.failing) return run;

  // 4. Shrink from the first server error: fast-check's run again, the drawn answers known, new requests sent
  // one at a time while they fail, within the budget.
  const shrinkError = await checked(fc.asyncProperty(arbitrary, shrinkStep(seen, budget, positive, options, run)));
  if (shrinkError) return { ...run, error: shrinkError };
  return run;
}

/** A drawn request and its text (what tells identical requests apart). */
interface DrawnRequest {
  request: FuzzRequest;
  key: string;
}

/** Runs a property with fast-check; what went wrong in the tool (never a failure of the service), if anything. */
async function checkProperty(property: fc.IAsyncPropertyWithHooks<[FuzzRequest]>, parameters: fc.Parameters<[FuzzRequest]>, run: FuzzRun): Promise<string | undefined> {
  try {
    const details = await fc.check(property, parameters);
    if (details.failed && !run.failing && details.errorInstance) return `the fuzzing phase failed: ${String((details.errorInstance as Error).message ?? details.errorInstance)}`;
  } catch (error) {
    return `the fuzzing phase failed: ${(error as Error).message}`;
  }
  return undefined;
}

/** The drawn requests to send, in the order drawn: each distinct request once (a value no generator could make
 * schema-valid is not sent: the request would not be schema-valid). */
function distinctSendable(drawn: readonly DrawnRequest[]): DrawnRequest[] {
  const order: DrawnRequest[] = [];
  const keys = new Set<string>();
  for (const d of drawn) {
    if (d.key.includes(NOT_SENT_TEXT) || keys.has(d.key)) continue;
    keys.add(d.key);
    order.push(d);
  }
  return order;
}

/**
 * 2. Sends the requests, `parallel` at a time in the order drawn, and 3. judges them in that order: a request
 * without an answer before any server error ends the phase. Fills `run` (sent, last, failing, unanswered);
 * returns whether each answered request passed, by its key.
 */
async function sendDrawn(order: readonly DrawnRequest[], positive: PositiveRequest, options: FuzzOptions, run: FuzzRun): Promise<Map<string, boolean>> {
  const parallel = Math.max(1, options.parallel ?? 1);
  const slots = new Slots(parallel);
  let stopped = false;
  // Sent at most `parallel` ahead of the one judged next (twice that started): an answer waits for its turn in
  // memory, so a slow first answer must not leave a hundred large ones waiting behind it.
  const answers = new Map<number, Promise<Exchange | undefined>>();
  let started = 0;
  const startUpTo = (limit: number) => {
    for (; started < Math.min(limit, order.length); started++) {
      const d = order[started]!;
      answers.set(started, slots.run(async () => (stopped ? undefined : options.send(d.request))));
    }
  };
  // 3. Judged in the order drawn: a request without an answer before any server error ends the phase.
  const seen = new Map<string, boolean>();
  for (const [at, item] of order.entries()) {
    startUpTo(at + 2 * parallel);
    const exchange = await answers.get(at);
    answers.delete(at);
    if (!exchange) break;
    run.sent++;
    options.answered?.(item.request, exchange, run.sent);
    if (exchange.response === undefined && exchange.error?.kind !== 'dropped') {
      if (run.failing) continue;
      run.unanswered = exchange;
      stopped = true;
      break;
    }
    run.last = exchange;
    const passed = !isServerError(exchange);
    seen.set(item.key, passed);
    if (!passed && !run.failing) run.failing = { request: item.request, exchange, label: describeRequest(item.request, positive) };
  }
  stopped = true;
  await Promise.all(answers.values());
  answers.clear();
  return seen;
}

/** The shrinking run's property: known answers from `seen`, new requests sent one at a time within the budget. */
function shrinkStep(seen: Map<string, boolean>, budget: number, positive: PositiveRequest, options: FuzzOptions, run: FuzzRun): (request: FuzzRequest) => Promise<boolean> {
  let shrinkSent = 0;
  return async (request) => {
    const key = JSON.stringify(request, bigintText);
    if (key.includes(NOT_SENT_TEXT)) return true;
    const known = seen.get(key);
    if (known !== undefined) return known;
    if (shrinkSent >= budget) return true;
    const exchange = await options.send(request);
    if (!exchange) return true;
    run.sent++;
    shrinkSent++;
    options.answered?.(request, exchange, run.sent);
    if (exchange.response === undefined && exchange.error?.kind !== 'dropped') return true;
    run.last = exchange;
    const passed = !isServerError(exchange);
    seen.set(key, passed);
    if (!passed) run.failing = { request, exchange, label: describeRequest(request, positive) };
    return passed;
  };
}

/** The small-value sweep's requests (none where the request carries no integer or the budget is under 4). */
function smallSweep(op: Operation, positive: PositiveRequest, options: FuzzOptions): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  const count = Math.min(SMALL_SWEEP, Math.floor(options.numRuns / 4));
  for (let index = 0; index < count; index++) {
    const sweep: SmallSweep = { index, used: false };
    const seed = `${options.seed}:small:${index}`;
    try {
      const arbitrary = requestArbitrary(op, positive, new Random(seed), options.varyPath, sweep);
      if (!sweep.used) break;
      requests.push(...fc.sample(arbitrary, { seed: seedOf(seed), numRuns: 1 }));
    } catch {
      // A request the sweep cannot draw leaves the budget to the random ones.
      break;
    }
  }
  return requests;
}

/** fast-check's seed (a 32-bit integer) from the run seed and the operation. */
export function seedOf(text: string): number {
  return Math.floor(new Random(text).next() * 2 ** 31);
}
