/**
 * The caller: sends every request of the run (no judging: a case's calls go through CaseRun). It holds a
 * service's creates back while a delete chain runs, bounds the requests of an operation that hangs, re-sends
 * what the network dropped and a documented transient failure once, tells a request the deployment cut from
 * one the network did (droppedOrNot), stops once the deployment is down (target-down.ts), and keeps what the
 * run's own credentials were answered (refusedCredentials).
 */
import type { Exchange, Operation, TargetDown } from '../model.ts';
import type { Profile } from '../description/profile.ts';
import { RENEWING, type GatewayClient } from '../http/gateway-client.ts';
import { tokenPaths } from '../description/token-properties.ts';
import { SENT_ALONE } from '../checks/dropped.ts';
import type { RunConfig } from './config.ts';
import { CreateFence } from './records/create-fence.ts';
import { RenamedKeys } from './records/renamed-keys.ts';
import { WriteTurns } from './records/write-turns.ts';
import { CredentialAnswers, type RefusedCredential } from './diagnose.ts';
import { markOwnCredential } from './own-credential.ts';
import type { PhaseCaller } from './phases/host.ts';
import { backoffMs, isDocumentedTransient } from './repeat.ts';
import type { CallRequest, RequestBuilder } from './request-builder.ts';
import { Skip } from './skip.ts';
import type { Slots } from './slots.ts';
import { TargetWatch } from './target-down.ts';

/** Requests of one operation that may go unanswered within --timeout before its others are not sent. */
export const TIMEOUTS_PER_OPERATION = 2;

/** A connection the server cut (reset, closed) rather than refused. */
const CUT = /ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed/i;

/** What the caller needs of the run that uses it. */
export interface CallerDeps {
  readonly config: RunConfig;
  readonly client: GatewayClient;
  readonly builder: RequestBuilder;
  readonly slots: Slots;
  /** Connections the pool keeps per origin. */
  readonly connections: number;
  profileOf(op: Operation): Profile;
  operationOf(operationId: string): Operation | undefined;
  /** What an answer of the operation's own method holds goes to the run's records and values. */
  record(op: Operation, exchange: Exchange, pathParams: Record<string, string>, body: unknown): void;
}

export class Caller implements PhaseCaller {
  private readonly fences = new Map<string, CreateFence>();
  /** The operations that answered 2xx to a call of their own method with the run's own credential. */
  private readonly took = new Set<string>();
  /** Per operation: whether its answers document a token (description/token-properties.ts). */
  private readonly tokenAnswering = new WeakMap<Operation, boolean>();
  /** Requests of each operation that got no answer within --timeout (from TIMEOUTS_PER_OPERATION on, none is sent). */
  private readonly timeouts = new Map<string, number>();
  /** Operations that dropped a request's connection while answering others (a 'dropped' exchange): retried less. */
  private readonly dropping = new Set<string>();
  /** Operations whose documented transient failure (408, 503) was met again on its retry: not retried again. */
  private readonly persistingTransient = new Set<string>();
  /** What the calls carrying the run's own credential of each security scheme were answered (refusedCredentials). */
  private readonly credentialAnswers = new CredentialAnswers();
  /** Keys of records the run's writes changed (records/renamed-keys.ts). */
  private readonly renamedKeys = new RenamedKeys();
  private readonly turns = new WriteTurns();
  private readonly watch: TargetWatch;

  constructor(private readonly deps: CallerDeps) {
    this.watch = new TargetWatch(deps.config, deps.client, deps.builder);
  }

  /** The first origin that stopped answering, if any. */
  get targetDown(): TargetDown | undefined {
    return this.watch.targetDown;
  }

  /** Ends the requests in flight at once (an interrupted run); later requests are sent as usual. */
  abortInFlight(): void {
    this.deps.client.abortInFlight();
  }

  /**
   * Sends one request of an operation with the run's token (no judging: a case's calls go through CaseRun). Not
   * sent, as a Skip the case reports: a request of an operation that timed out twice already (a hanging operation
   * costs bounded time), and any request once the deployment stopped answering.
   */
  async call(op: Operation, request: CallRequest): Promise<Exchange> {
    const method = request.method ?? op.method;
    // A create waits while a delete chain of its service runs (execute/records/create-fence.ts).
    if (method === 'POST') return this.fenceOf(op).create(() => this.send(op, request));
    // An update waits for the other updates of its path (execute/records/write-turns.ts).
    if (this.turns.takesTurn(op, method)) return this.turns.inTurn(op, () => this.send(op, request));
    return this.send(op, request);
  }

  /** The path values with each key a write of the run renamed replaced by its newest (the same object where none was). */
  followKeys(op: Operation, pathParams: Record<string, string>): Record<string, string> | undefined {
    return this.renamedKeys.any ? (this.renamedKeys.follow(op, { pathParams }).pathParams ?? pathParams) : undefined;
  }

  /** A chain that writes a record and reads it back, in the turn of the operation's updates. */
  writeChain<T>(op: Operation, work: () => Promise<T>): Promise<T> {
    return this.turns.inTurn(op, work);
  }

  /** Whether the operation took a call with the run's own credential (answered 2xx) so far in the run. */
  accepted(op: Operation): boolean {
    return this.took.has(op.operationId);
  }

  /** A delete chain (the DELETE and the reads that show the record gone), with the service's creates held back. */
  deleteChain<T>(op: Operation, work: () => Promise<T>): Promise<T> {
    return this.fenceOf(op).deleteChain(work);
  }

  private fenceOf(op: Operation): CreateFence {
    let fence = this.fences.get(op.service);
    if (!fence) this.fences.set(op.service, (fence = new CreateFence()));
    return fence;
  }

  private async send(op: Operation, asked: CallRequest): Promise<Exchange> {
    this.watch.refuseIfDown(op);
    // A record a write of the run renamed (a slug that follows the title) is asked for by its new key.
    const request = this.renamedKeys.follow(op, asked);
    const timedOut = this.timeouts.get(op.operationId) ?? 0;
    if (timedOut >= TIMEOUTS_PER_OPERATION) {
      throw new Skip('timed-out', `not sent: ${op.method} ${op.path} gave no answer within ${this.deps.config.timeoutMs} ms (--timeout) to ${timedOut} requests; see its response-timeout finding`);
    }
    // At most --concurrency requests in flight over the whole run (a case may send several at once).
    // A write whose answer may renew the run's token (--auth-from) goes alone: no call is in flight with the old one.
    const slot = this.renews(op, request) ? this.deps.slots.alone.bind(this.deps.slots) : this.deps.slots.run.bind(this.deps.slots);
    const send = () => slot(() => this.deps.client.send(this.deps.builder.build(op, request)));
    const sent = await this.sentThrough(op, send);
    const first = sent.first;
    let exchange = sent.exchange;
    if (exchange.error?.kind === 'timeout') this.timeouts.set(op.operationId, (this.timeouts.get(op.operationId) ?? 0) + 1);
    exchange = (await this.watch.noteAnswer(op, exchange, first)) ?? exchange;
    if (exchange.error?.kind === 'connection' && CUT.test(exchange.error.message) && first.error?.kind === 'connection' && CUT.test(first.error.message)) {
      exchange = await this.droppedOrNot(op, request, exchange);
    }
    exchange = await this.transientRetried(op, exchange, send);
    this.renamedKeys.note(op, request, exchange);
    // An answer to a method the operation does not have records nothing of it.
    if (request.method === undefined || request.method === op.method) {
      this.deps.record(op, exchange, request.pathParams ?? {}, request.rawBody === undefined ? request.body : undefined);
      if ((request.auth ?? 'valid') === 'valid') {
        const status = exchange.response?.status ?? 0;
        if (status >= 200 && status < 300) this.took.add(op.operationId);
        const schemes = this.credentialsSent(op);
        this.credentialAnswers.note(op, schemes, exchange.response?.status);
        markOwnCredential(exchange, schemes);
      }
    }
    return exchange;
  }

  /** True for the run's own write of an operation whose answer documents a token, where the run's token came from one. */
  private renews(op: Operation, request: CallRequest): boolean {
    if (!this.deps.config.obtained?.path || !RENEWING.has(request.method ?? op.method) || (request.auth ?? 'valid') !== 'valid') return false;
    let answers = this.tokenAnswering.get(op);
    if (answers === undefined) this.tokenAnswering.set(op, (answers = tokenPaths(op).length > 0));
    return answers;
  }

  /**
   * The request sent, and again where its connection broke before any answer: the first exchange, and the last.
   * A connection that broke before any answer (a keep-alive socket the server was closing) is the network's
   * doing: the request is sent again and the retry recorded. Idle sockets the server closed together fail
   * one after another, each leaving the pool as it fails: up to one retry per pooled connection, then one
   * on a connection opened for it.
   * An operation that dropped a request while answering others drops its like again: its lone re-send
   * (droppedOrNot) shows it.
   */
  private async sentThrough(op: Operation, send: () => Promise<Exchange>): Promise<{ exchange: Exchange; first: Exchange }> {
    let exchange = await send();
    const first = exchange;
    const attempts = this.dropping.has(op.operationId) ? 0 : this.deps.connections + 1;
    for (let attempt = 1; exchange.error?.kind === 'connection' && attempt <= attempts; attempt++) {
      const failed = exchange.error;
      const again = await send();
      exchange = { ...again, retries: [...(exchange.retries ?? []), { attempt, reason: `connection: ${failed.message}`, waitedMs: 0 }, ...(again.retries ?? [])] };
      if (again.error?.kind === 'connection' && !CUT.test(again.error.message)) break;
    }
    return { exchange, first };
  }

  /**
   * A documented transient failure is retried once, after a back-off, before it is judged; once a retry of the
   * operation met the same failure again, its later ones are judged as they come (the wait would show nothing new).
   */
  private async transientRetried(op: Operation, exchange: Exchange, send: () => Promise<Exchange>): Promise<Exchange> {
    if (!exchange.response || !isDocumentedTransient(op, exchange.response, this.deps.profileOf(op)) || this.persistingTransient.has(op.operationId)) return exchange;
    const first = exchange.response;
    const waitedMs = backoffMs(first.headers);
    await new Promise((resolve) => setTimeout(resolve, waitedMs));
    const again = await send();
    if (again.response?.status === first.status) this.persistingTransient.add(op.operationId);
    return { ...again, retries: [...(exchange.retries ?? []), { attempt: 1, reason: `documented transient ${first.status}`, waitedMs }, ...(again.retries ?? [])] };
  }

  /** The security schemes whose credential the run's own call of the operation carries (the scheme's own, else the token). */
  private credentialsSent(op: Operation): string[] {
    return (op.auth ?? []).filter((s) => (this.deps.config.auth?.[s.name] ?? this.deps.config.token) !== '').map((s) => s.name);
  }

  /**
   * The security schemes whose credential the deployment refused on every call of the run that carried it (at the
   * end of the run: the decision is over all of them, whatever answered first).
   */
  get refusedCredentials(): RefusedCredential[] {
    const { config } = this.deps;
    return this.credentialAnswers.refused((id) => this.deps.operationOf(id), (scheme) => (config.auth?.[scheme] !== undefined ? 'auth' : 'token'), config.client?.tokenCommand !== undefined);
  }

  /**
   * A request whose connection was cut without an answer on every attempt: the deployment's failure on that
   * request (a handler that crashed: Go's net/http, Rust's hyper close the connection; the connection-dropped
   * check) when it answers another request at once and cuts this one again when it is sent alone, with no other
   * request of the run's cases in flight (Slots.alone). A lone re-send that is answered is judged on its answer (the cut depended on what
   * else was in flight: not this request's doing); one that is refused or hangs is judged as such. A deployment
   * that answers nothing is the network's or one going down (left as it is: never the service's fault).
   */
  private async droppedOrNot(op: Operation, request: CallRequest, exchange: Exchange): Promise<Exchange> {
    const { config, client, builder, slots } = this.deps;
    const base = config.baseUrls[op.service] ?? '';
    // In a slot: a lone re-send (this one's or another's) has nothing beside it.
    const control = await slots.run(() => client.send({ method: 'HEAD', url: base, headers: builder.headers('valid', false, op) }));
    if (!control.response) return exchange;
    const asked = Date.now();
    let waitedMs = 0;
    const again = await slots.alone(() => {
      waitedMs = Date.now() - asked;
      return client.send(builder.build(op, request));
    });
    const alone = { attempt: (exchange.retries?.length ?? 0) + 1, reason: `${SENT_ALONE}connection: ${exchange.error?.message ?? 'connection cut'}`, waitedMs };
    const resent: Exchange = { ...again, retries: [...(exchange.retries ?? []), alone, ...(again.retries ?? [])] };
    if (!(again.error?.kind === 'connection' && CUT.test(again.error.message))) {
      if (again.error?.kind === 'timeout') this.timeouts.set(op.operationId, (this.timeouts.get(op.operationId) ?? 0) + 1);
      return (await this.watch.noteAnswer(op, resent, resent)) ?? resent;
    }
    // A method the contract does not document, cut, says nothing of the operation's own requests.
    if (exchange.request.method.toUpperCase() === op.method) this.dropping.add(op.operationId);
    const attempts = 1 + resent.retries!.filter((r) => r.reason.startsWith('connection:') || r.reason.startsWith(SENT_ALONE)).length;
    return {
      ...resent,
      error: {
        kind: 'dropped',
        message: `the server closed the connection without an answer (${again.error.message}) on each of ${attempts} attempts, the last sent alone (no other request of the run's cases in flight), while it answered another request (HEAD ${base}: ${control.response.status}) at once`,
      },
    };
  }
}
