/**
 * Whether the deployment stopped answering: what each origin (scheme, host and port of a service's base URL) last
 * answered, the requests cut in flight, and, once an origin that answered before refuses connections for a second,
 * that it is down (RunResults.targetDown). The caller (caller.ts) notes every answer here.
 */
import type { Exchange, Operation, TargetDown } from '../model.ts';
import { toCurl } from '../report/curl.ts';
import type { GatewayClient } from '../http/gateway-client.ts';
import type { RunConfig } from './config.ts';
import type { RequestBuilder } from './request-builder.ts';
import { Skip } from './skip.ts';

/** How long a service that refuses connections is given to come back before it is taken as stopped. */
const DOWN_CONFIRM_MS = 1000;

/** Requests cut in flight that a report names when a deployment stops answering (at most --concurrency were). */
const MAX_IN_FLIGHT_SHOWN = 8;

/** How long before a refusal a request cut in flight counts among the likely causes. */
const CUT_WINDOW_MS = 10_000;

/** What a session keeps of an origin's answers (see TargetWatch.noteAnswer). */
interface Answers {
  answered?: Exchange;
  /** The first refused connection since the last answer. */
  refused?: Exchange;
  /** The latest requests whose connection was cut in flight, with when. */
  cut: Array<{ exchange: Exchange; at: number }>;
}

/** What the run says of a service that stopped answering: what it last answered, and what was in flight then. */
function downOf(service: string, baseUrl: string, seen: Answers, at: number): TargetDown {
  const { answered } = seen;
  const cut = seen.cut.filter((c) => c.at >= at - CUT_WINDOW_MS).map((c) => c.exchange);
  const broke = cut.length > 0 ? cut : seen.refused ? [seen.refused] : [];
  const after = answered?.response ? { method: answered.request.method, url: answered.request.url, status: answered.response.status, curl: toCurl(answered.request) } : undefined;
  const inFlight = broke.map((e) => ({ method: e.request.method, url: e.request.url, curl: toCurl(e.request), error: e.error?.message ?? 'no answer' }));
  const last = after ? ` after ${after.method} ${after.url} (answered ${after.status})` : '';
  const named = inFlight.map((r) => `${r.method} ${r.url} (${r.error})`);
  const cause = cut.length === 0 ? '' : named.length === 1 ? `; the request in flight then, the likely cause: ${named[0]}` : `; the requests in flight then, the likely cause among them: ${named.join('; ')}`;
  return { service, baseUrl, message: `the deployment stopped answering${last}: connections to ${baseUrl} are refused${cause}`, ...(after ? { after } : {}), ...(inFlight.length > 0 ? { inFlight } : {}) };
}

export class TargetWatch {
  /** Per origin: the last exchange it answered, and since then the first refused and those cut mid-request. */
  private readonly lastAnswers = new Map<string, Answers>();
  /** Origins that stopped answering mid-run: what each last answered, what was in flight (RunResults.targetDown). */
  private readonly down = new Map<string, { service: string; answers: Answers; message: string; at: number }>();

  constructor(
    private readonly config: Pick<RunConfig, 'baseUrls'>,
    private readonly client: Pick<GatewayClient, 'send'>,
    private readonly builder: Pick<RequestBuilder, 'headers'>,
  ) {}

  /** The first origin that stopped answering, if any. */
  get targetDown(): TargetDown | undefined {
    const first = this.down.entries().next().value;
    // Built when asked (at the end of the run): the requests cut in flight keep coming in after the refusal.
    return first ? downOf(first[1].service, first[0], first[1].answers, first[1].at) : undefined;
  }

  /** Not run, as a Skip the case reports: any request once the operation's origin stopped answering. */
  refuseIfDown(op: Operation): void {
    const down = this.down.get(this.originOf(op));
    if (down) throw new Skip('target-down', `not run: ${down.message}`);
  }

  /**
   * Keeps what each origin (scheme, host and port of a service's base URL) last answered. An origin that answered
   * before and now refuses connections, and still does a second later, has stopped answering: that is said once
   * (targetDown), and this and every later request to it is not run (a Skip), rather than dozens of cases errored
   * one by one, whichever service of the deployment they are for. A request whose own connection was cut in
   * flight then is returned as dropped (its case fails on it: the likely cause).
   */
  async noteAnswer(op: Operation, exchange: Exchange, first: Exchange): Promise<Exchange | undefined> {
    const origin = this.originOf(op);
    let seen = this.lastAnswers.get(origin);
    if (!seen) this.lastAnswers.set(origin, (seen = { cut: [] }));
    if (exchange.response) {
      // An answer that was on its way when the deployment stopped changes nothing of what is said of it.
      if (!this.down.has(origin)) {
        seen.answered = exchange;
        seen.refused = undefined;
      }
      return;
    }
    if (exchange.error?.kind !== 'connection') return;
    // The requests the deployment took and then dropped (their connection cut, not refused): the likely cause is
    // among them.
    if (first.error?.kind === 'connection' && !/ECONNREFUSED/.test(first.error.message)) {
      seen.cut.push({ exchange: { ...exchange, error: first.error }, at: Date.now() });
      if (seen.cut.length > MAX_IN_FLIGHT_SHOWN) seen.cut.shift();
    }
    seen.refused ??= exchange;
    if (!seen.answered || !/ECONNREFUSED/.test(exchange.error.message)) return;
    if (!(await this.confirmDown(op, origin, seen))) return;
    const down = this.down.get(origin);
    if (!down) return undefined;
    // This request's own connection was cut in flight as the deployment went down: it (or another in flight with
    // it) brought the deployment down. Its case is judged on that (a server error without a status), the
    // others are not run.
    if (first.error?.kind === 'connection' && !/ECONNREFUSED/.test(first.error.message)) {
      const others = seen.cut.filter((c) => c.exchange.request !== exchange.request).length;
      return {
        ...exchange,
        error: {
          kind: 'dropped',
          message: `the deployment stopped answering while this request was in flight (its connection cut: ${first.error.message}; connections to ${origin} refused since)${others > 0 ? `, with ${others} other request${others === 1 ? '' : 's'} in flight` : ''}`,
        },
      };
    }
    throw new Skip('target-down', `not run: ${down.message}`);
  }

  /** A second later, whether the origin still refuses connections (false: it answered again, it is not down). */
  private async confirmDown(op: Operation, origin: string, seen: Answers): Promise<boolean> {
    if (!this.down.has(origin)) {
      await new Promise((resolve) => setTimeout(resolve, DOWN_CONFIRM_MS));
      if (!this.down.has(origin)) {
        const base = this.config.baseUrls[op.service] ?? '';
        const again = await this.client.send({ method: 'HEAD', url: base, headers: this.builder.headers('valid', false, op) });
        if (again.response || !/ECONNREFUSED/.test(again.error?.message ?? '')) return false;
        if (!this.down.has(origin)) this.down.set(origin, { service: op.service, answers: seen, at: Date.now(), message: downOf(op.service, origin, seen, Date.now()).message.split('; the request')[0] ?? '' });
      }
    }
    return true;
  }

  private originOf(op: Operation): string {
    const base = this.config.baseUrls[op.service] ?? '';
    try {
      return new URL(base).origin;
    } catch {
      return base;
    }
  }
}
