import { capRecorded, capResponse } from '../report/assemble.ts';
import { randomBytes } from 'node:crypto';
import { routeUnknown } from '../checks/operation-present.ts';
import { SchemaValidator } from '../checks/schema.ts';
import { readersOfCreated } from '../plan/relations.ts';
import { authorization } from '../http/auth-variants.ts';
import { defaultClientOptions } from '../http/client-options.ts';
import { GatewayClient } from '../http/gateway-client.ts';
import { randomHex } from '../http/random-hex.ts';
import type { CaseResult, Contract, Exchange, Finding, JsonSchema, LeftBehindRecord, Operation, TargetDown } from '../model.ts';
import { toCurl } from '../report/curl.ts';
import { jsonRequestType } from '../plan/accept-header.ts';
import { isSafe, listedValue, neededSetup, pathExample, pathParamNames, planOperation, positiveBody, requiredOnly, type OperationPlan, type PlannedCase } from '../plan/cases.ts';
import { executionOrder, planOptionsOf } from '../plan/options.ts';
import { parameterValue, stringValues } from '../plan/parameters.ts';
import { Random } from '../plan/random.ts';
import { accepts } from '../plan/accepts.ts';
import { fillReferences, withoutMadeUpReferences } from './references.ts';
import { absentValue } from '../plan/values.ts';
import { producerFor, type Producer } from '../plan/resources.ts';
import type { Examples, SetupStep } from '../description/examples.ts';
import { loadExamples } from '../description/examples.ts';
import { loadContract } from '../description/load.ts';
import type { Profile } from '../description/profile.ts';
import { loadProfiles, profileFor, type Profiles } from '../description/profiles.ts';
import { CaseRun, type CaseHost } from './case-run.ts';
import { CreatedRecords, withFindingCurls, withReproduction } from './chain.ts';
import { CleanupLedger, leftBehind, type LedgerRecord } from './cleanup.ts';
import type { RunConfig } from './config.ts';
import { redactFlowSecrets } from './flow-secrets.ts';
import { Evidence, is2xx, judge, type JudgeInput } from './judge.ts';
import { runPhase } from './phases/index.ts';
import type { PhaseHost, Presence } from './phases/host.ts';
import { backoffMs, isDocumentedTransient } from './repeat.ts';
import { RequestBuilder, type CallRequest } from './request-builder.ts';
import { selectOperations } from './select.ts';
import { Skip } from './skip.ts';
import { resolveTemplates } from './templates.ts';
import { unknownRouteAnswer, type UnknownRouteAnswer } from './unknown-route.ts';
import { ValuePool } from './value-pool.ts';
import { Slots } from './slots.ts';
import { SENT_ALONE } from '../checks/dropped.ts';
import { CreateFence } from './create-fence.ts';
import { MadeRecords, recordIdOf, withRecordJson } from './made-records.ts';
import { RecordSearch } from './record-search.ts';
import { identityCredentials } from './identities.ts';
import { CredentialAnswers, type RefusedCredential } from './diagnose.ts';
import { markOwnCredential } from './own-credential.ts';

export { responseLocation } from './judge.ts';

/** Requests of one operation that may go unanswered within --timeout before its others are not sent. */
export const TIMEOUTS_PER_OPERATION = 2;
/** How long a service that refuses connections is given to come back before it is taken as stopped. */
const DOWN_CONFIRM_MS = 1000;

/** Requests cut in flight that a report names when a deployment stops answering (at most --concurrency were). */
const MAX_IN_FLIGHT_SHOWN = 8;
/** A connection the server cut (reset, closed) rather than refused. */
const CUT = /ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed/i;

/** How long before a refusal a request cut in flight counts among the likely causes. */
const CUT_WINDOW_MS = 10_000;

/** What a session keeps of an origin's answers (see Session.noteAnswer). */
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

function credentialHeader(profile: Profile, token: string): Record<string, string> {
  if (token === '') return {};
  const value = authorization('valid', token);
  return value === undefined ? {} : { [profile.auth.header.toLowerCase()]: value };
}


/**
 * From this many selected operations a run sends its requests on a worker thread (transport.ts): the planning and
 * judging of many operations keep this thread busy, and sending beside them on another core is faster (2,770
 * operations against a fast local server: 56 s instead of 64, medians of three alternated runs; 80 operations: 6.2
 * s instead of 6.0, within the spread). A smaller run waits on its answers more than it works, and the hand-over to
 * the thread and back is time added to every one (the seed's 22 operations: 3.0 s instead of 2.9).
 */
export const WORKER_FROM_OPERATIONS = 50;

/** Path values of other shapes tried where a free string's made-up value met an unknown-route answer: letters, then digits, short first. */
const OTHER_SHAPES = ['a', 'ab', 'abc', 'abcd', '1', '12', '123'];

/** How often an operation's shared records are made again after a build that failed (sharedFixture). */
const FIXTURE_REBUILDS = 3;

/** Refusals of a create that no other body would change (credentials, the method, the media types, a rate limit). */
const NOT_ABOUT_THE_BODY = new Set([401, 403, 405, 406, 415, 429]);

/** Whether a case uses up the record it is given: it was made for it alone (fresh), or the case deletes it. */
function consumes(op: Operation, fresh: boolean): boolean {
  return fresh || op.method === 'DELETE';
}

/** The records an operation's cases share: being made, what the making said (CaseResult.notes), and when it began. */
interface SharedFixture {
  ids: Promise<Record<string, string>>;
  notes: string[];
  /** MadeRecords.version when the build began. */
  version: number;
  rebuilds: number;
}

/** Where a fixture's record is being made: the ids so far, the case, whether it consumes the record, its notes. */
interface FixtureAt {
  ids: Record<string, string>;
  run: CaseRun;
  fresh: boolean;
  notes: string[];
}

/** What a create answered to the bodies sent for a record, and the id, where its success named one. */
interface MadeAttempt {
  exchange: Exchange;
  sent: unknown[];
  statuses: Array<number | undefined>;
  id?: string;
}

/** How the create was sent, and the record the deployment serves now that a case may take instead. */
interface Recovery {
  pathParams: Record<string, string>;
  declared: Pick<CallRequest, 'query' | 'headers' | 'cookies'>;
  servedInstead: () => Promise<string | undefined>;
}

/** The kinds of case a path value the route took may run (runsOnRouteValues). */
const ROUTE_VALUE_KINDS = new Set(['positive', 'negative', 'auth', 'coverage']);

/** The schema of an operation's path parameter. */
function pathSchema(op: Operation, name: string): JsonSchema | undefined {
  return op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
}

/** A path parameter's schema that any string satisfies, but for its length: no format, pattern or listed values. */
function freeString(schema: JsonSchema | undefined): boolean {
  if (schema === undefined || typeof schema === 'boolean') return false;
  const s = schema as Record<string, unknown>;
  return s['type'] === 'string' && s['format'] === undefined && s['pattern'] === undefined && s['enum'] === undefined && s['const'] === undefined;
}


export type { Presence } from './phases/host.ts';

/**
 * One conformance run against one deployment: sends the cases' calls, judges every answer with the one
 * judge, keeps the records it creates in a cleanup ledger and the values it sees in a value pool, and turns
 * each case into a CaseResult. The phases (execute/phases/) say which requests a case sends.
 */
export class Session implements CaseHost, PhaseHost {
  readonly validator: SchemaValidator;
  /** The profile of the contract's first service (each operation is judged by profileOf). */
  readonly profile: Profile;
  readonly builder: RequestBuilder;
  readonly pool = new ValuePool();
  private readonly client: GatewayClient;
  private readonly presence = new Map<string, Promise<Exchange>>();
  private readonly presenceProof = new Map<string, Promise<Presence>>();
  /** Path values of other shapes a route took where no record could be had, by path (servedForOtherValues). */
  private readonly routeValues = new Map<string, Record<string, string>>();
  private readonly unknownRoutes = new Map<string, Promise<{ path: string; response: UnknownRouteAnswer } | undefined>>();
  private readonly fixtures = new Map<string, SharedFixture>();
  private readonly ledger: CleanupLedger;
  private fixtureCount = 0;
  private readonly created = new CreatedRecords();
  /** Every record a create of the run made, whichever case sent it (made-records.ts). */
  readonly made: MadeRecords;
  /** Other bodies for a record a create refused (record-search.ts). */
  private readonly search: RecordSearch;
  private readonly byId: Map<string, Operation>;
  private readonly slots: Slots;
  private readonly fences = new Map<string, CreateFence>();
  /** Connections the pool keeps per origin. */
  private readonly connections: number;
  /** What operations answered to calls made by other operations' cases (setup calls, reads, clean-up). */
  private readonly sideEvidence = new Map<string, { evidence: Evidence; started: number }>();

  private constructor(
    readonly config: RunConfig,
    readonly contract: Contract,
    readonly profiles: Profiles,
    readonly examples: Examples,
  ) {
    this.connections = Math.max(2, config.concurrency);
    this.client = new GatewayClient({
      timeoutMs: config.timeoutMs,
      bodyCapBytes: config.bodyCapBytes,
      connections: this.connections,
      client: config.client ?? defaultClientOptions(config.runId, randomBytes(16).toString('hex')),
      authHeader: profileFor(profiles, contract.services[0]?.id ?? '').auth.header,
      token: { token: config.token },
      ...(config.auth ? { schemeCredentials: config.auth } : {}),
      ...(config.identities?.length ? { identityCredentials: identityCredentials(config.identities) } : {}),
      credentialHeaders: [...new Set(contract.operations.flatMap((o) => (o.auth ?? []).flatMap((s) => (s.kind === 'apiKey' && s.in === 'header' ? [s.parameter] : []))))],
      onToken: (token) => (config.token = token),
      sendOn: selectOperations(contract.operations, config).length >= WORKER_FROM_OPERATIONS ? 'worker' : 'this-thread',
    });
    this.slots = new Slots(config.concurrency);
    this.byId = new Map(contract.operations.map((o) => [o.operationId, o]));
    this.profile = profileFor(profiles, contract.services[0]?.id ?? '');
    this.builder = new RequestBuilder({
      baseUrls: config.baseUrls,
      runId: config.runId,
      token: () => this.config.token,
      credential: (scheme) => this.config.auth?.[scheme],
      identity: (name) => this.config.identities?.find((i) => i.name === name),
      profileOf: (op) => this.profileOf(op),
    });
    this.ledger = new CleanupLedger(contract, (op) => this.profileOf(op), (op, pathParams) => this.url(op, pathParams));
    this.made = new MadeRecords(contract, (op) => this.profileOf(op));
    this.search = new RecordSearch({ contract, pool: this.pool, made: this.made, seed: String(config.seed), declaredParams: (op, random) => this.declaredParams(op, random) });
    this.validator = new SchemaValidator(contract.services.flatMap((s) => (s.validationDocument ? [s.validationDocument] : [])));
  }

  static async create(config: RunConfig): Promise<Session> {
    return Session.forContract(config, await loadContract(config.contractFiles));
  }

  /** A session over a contract that is already loaded. */
  static async forContract(config: RunConfig, contract: Contract): Promise<Session> {
    const [profiles, examples] = await Promise.all([loadProfiles(config.profileFile, contract), loadExamples(config.examplesFile)]);
    return new Session(config, contract, profiles, examples);
  }

  /** A session over an already loaded contract, profile and examples (the CLI has loaded them). */
  static from(config: RunConfig, contract: Contract, profiles: Profiles, examples: Examples): Session {
    return new Session(config, contract, profiles, examples);
  }

  /** The profile the operation's service is judged by (its platform's, else the generic one). */
  profileOf(op: Operation): Profile {
    return profileFor(this.profiles, op.service);
  }

  /** Ends the requests in flight at once (an interrupted run); later requests are sent as usual. */
  abortInFlight(): void {
    this.client.abortInFlight();
  }

  /** The plans of the operations selected by --include/--exclude/--shard, in canonical order. */
  plans(): OperationPlan[] {
    const options = planOptionsOf(this.config);
    return executionOrder(selectOperations(this.contract.operations, this.config)).map((op) => planOperation(this.contract, op, this.profileOf(op), this.examples, options));
  }

  /** Per path (its template, parameter names aside): the documented methods and the operation that probes the others. */
  private pathMethods: Map<string, { methods: string[]; prober: string; segments: string[] }> | undefined;

  /**
   * The methods the contract documents for the operation's path, and whether this operation's coverage case
   * sends the path's requests with the methods it does not document (one operation per path: a selected GET,
   * else the first selected one; DELETE has no coverage case).
   */
  methodsOfPath(op: Operation): { methods: string[]; covered: string[]; probes: boolean } {
    if (!this.pathMethods) {
      const map = new Map<string, { methods: string[]; prober: string; segments: string[] }>();
      const key = (o: Operation) => `${o.service} ${o.path.replace(/\{[^}]*\}/g, '{}')}`;
      for (const o of this.contract.operations) {
        const entry = map.get(key(o)) ?? map.set(key(o), { methods: [], prober: '', segments: key(o).split('/') }).get(key(o))!;
        if (!entry.methods.includes(o.method)) entry.methods.push(o.method);
      }
      const selected = selectOperations(this.contract.operations, this.config).filter((o) => o.method !== 'DELETE');
      for (const o of [...selected.filter((s) => s.method === 'GET'), ...selected]) {
        const entry = map.get(key(o));
        if (entry && entry.prober === '') entry.prober = o.operationId;
      }
      this.pathMethods = map;
    }
    const own = `${op.service} ${op.path.replace(/\{[^}]*\}/g, '{}')}`;
    const entry = this.pathMethods.get(own);
    const methods = entry?.methods ?? [op.method];
    const probes = entry?.prober === op.operationId;
    if (!probes) return { methods, covered: methods, probes };
    // The methods another path documents for this one's URLs too: /user/login is also /user/{username}.
    const covered = new Set(methods);
    const segments = own.split('/');
    for (const [key, other] of this.pathMethods) if (key !== own && generalizes(other.segments, segments)) for (const m of other.methods) covered.add(m);
    return { methods, covered: [...covered], probes };
  }

  operation(operationId: string): Operation {
    const op = this.byId.get(operationId);
    if (!op) throw new Error(`The contract describes no operation ${operationId}.`);
    return op;
  }

  // ------------------------------------------------------------------------------------------------------
  // Requests

  url(op: Operation, pathParams: Record<string, string>, query: Record<string, unknown> = {}): string {
    return this.builder.url(op, pathParams, query);
  }

  /** Requests of each operation that got no answer within --timeout (from TIMEOUTS_PER_OPERATION on, none is sent). */
  private readonly timeouts = new Map<string, number>();
  /** Operations that dropped a request's connection while answering others (a 'dropped' exchange): retried less. */
  private readonly dropping = new Set<string>();
  /** Operations whose documented transient failure (408, 503) was met again on its retry: not retried again. */
  private readonly persistingTransient = new Set<string>();
  /** Per origin: the last exchange it answered, and since then the first refused and those cut mid-request. */
  private readonly lastAnswers = new Map<string, Answers>();
  /** Origins that stopped answering mid-run: what each last answered, what was in flight (RunResults.targetDown). */
  private readonly down = new Map<string, { service: string; answers: Answers; message: string; at: number }>();

  /** The first origin that stopped answering, if any. */
  get targetDown(): TargetDown | undefined {
    const first = this.down.entries().next().value;
    // Built when asked (at the end of the run): the requests cut in flight keep coming in after the refusal.
    return first ? downOf(first[1].service, first[0], first[1].answers, first[1].at) : undefined;
  }

  /**
   * Sends one request of an operation with the run's token (no judging: a case's calls go through CaseRun). Not
   * sent, as a Skip the case reports: a request of an operation that timed out twice already (a hanging operation
   * costs bounded time), and any request once the deployment stopped answering.
   */
  async call(op: Operation, request: CallRequest): Promise<Exchange> {
    // A create waits while a delete chain of its service runs (execute/create-fence.ts).
    if ((request.method ?? op.method) === 'POST') return this.fenceOf(op).create(() => this.send(op, request));
    return this.send(op, request);
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

  private async send(op: Operation, request: CallRequest): Promise<Exchange> {
    const down = this.down.get(this.originOf(op));
    if (down) throw new Skip('target-down', `not run: ${down.message}`);
    const timedOut = this.timeouts.get(op.operationId) ?? 0;
    if (timedOut >= TIMEOUTS_PER_OPERATION) {
      throw new Skip('timed-out', `not sent: ${op.method} ${op.path} gave no answer within ${this.config.timeoutMs} ms (--timeout) to ${timedOut} requests; see its response-timeout finding`);
    }
    // At most --concurrency requests in flight over the whole run (a case may send several at once).
    const send = () => this.slots.run(() => this.client.send(this.builder.build(op, request)));
    let exchange = await send();
    const first = exchange;
    // A connection that broke before any answer (a keep-alive socket the server was closing) is the network's
    // doing: the request is sent again and the retry recorded. Idle sockets the server closed together fail
    // one after another, each leaving the pool as it fails: up to one retry per pooled connection, then one
    // on a connection opened for it.
    // An operation that dropped a request while answering others drops its like again: its lone re-send
    // (droppedOrNot) shows it.
    const attempts = this.dropping.has(op.operationId) ? 0 : this.connections + 1;
    for (let attempt = 1; exchange.error?.kind === 'connection' && attempt <= attempts; attempt++) {
      const failed = exchange.error;
      const again = await send();
      exchange = { ...again, retries: [...(exchange.retries ?? []), { attempt, reason: `connection: ${failed.message}`, waitedMs: 0 }, ...(again.retries ?? [])] };
      if (again.error?.kind === 'connection' && !CUT.test(again.error.message)) break;
    }
    if (exchange.error?.kind === 'timeout') this.timeouts.set(op.operationId, (this.timeouts.get(op.operationId) ?? 0) + 1);
    exchange = (await this.noteAnswer(op, exchange, first)) ?? exchange;
    if (exchange.error?.kind === 'connection' && CUT.test(exchange.error.message) && first.error?.kind === 'connection' && CUT.test(first.error.message)) {
      exchange = await this.droppedOrNot(op, request, exchange);
    }
    // A documented transient failure is retried once, after a back-off, before it is judged; once a retry of the
    // operation met the same failure again, its later ones are judged as they come (the wait would show nothing new).
    if (exchange.response && isDocumentedTransient(op, exchange.response, this.profileOf(op)) && !this.persistingTransient.has(op.operationId)) {
      const first = exchange.response;
      const waitedMs = backoffMs(first.headers);
      await new Promise((resolve) => setTimeout(resolve, waitedMs));
      const again = await send();
      exchange = { ...again, retries: [...(exchange.retries ?? []), { attempt: 1, reason: `documented transient ${first.status}`, waitedMs }, ...(again.retries ?? [])] };
      if (again.response?.status === first.status) this.persistingTransient.add(op.operationId);
    }
    // An answer to a method the operation does not have records nothing of it.
    if (request.method === undefined || request.method === op.method) {
      this.record(op, exchange, request.pathParams ?? {}, request.rawBody === undefined ? request.body : undefined);
      if ((request.auth ?? 'valid') === 'valid') {
        const schemes = this.credentialsSent(op);
        this.credentialAnswers.note(op, schemes, exchange.response?.status);
        markOwnCredential(exchange, schemes);
      }
    }
    return exchange;
  }

  /** What the calls carrying the run's own credential of each security scheme were answered (refusedCredentials). */
  private readonly credentialAnswers = new CredentialAnswers();

  /** The security schemes whose credential the run's own call of the operation carries (the scheme's own, else the token). */
  private credentialsSent(op: Operation): string[] {
    return (op.auth ?? []).filter((s) => (this.config.auth?.[s.name] ?? this.config.token) !== '').map((s) => s.name);
  }

  /**
   * The security schemes whose credential the deployment refused on every call of the run that carried it (at the
   * end of the run: the decision is over all of them, whatever answered first).
   */
  get refusedCredentials(): RefusedCredential[] {
    return this.credentialAnswers.refused((id) => this.byId.get(id), (scheme) => (this.config.auth?.[scheme] !== undefined ? 'auth' : 'token'), this.config.client?.tokenCommand !== undefined);
  }

  /**
   * Keeps what each origin (scheme, host and port of a service's base URL) last answered. An origin that answered
   * before and now refuses connections, and still does a second later, has stopped answering: that is said once
   * (targetDown), and this and every later request to it is not run (a Skip), rather than dozens of cases errored
   * one by one, whichever service of the deployment they are for. A request whose own connection was cut in
   * flight then is returned as dropped (its case fails on it: the likely cause).
   */
  private async noteAnswer(op: Operation, exchange: Exchange, first: Exchange): Promise<Exchange | undefined> {
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
    if (!this.down.has(origin)) {
      await new Promise((resolve) => setTimeout(resolve, DOWN_CONFIRM_MS));
      if (!this.down.has(origin)) {
        const base = this.config.baseUrls[op.service] ?? '';
        const again = await this.client.send({ method: 'HEAD', url: base, headers: this.builder.headers('valid', false, op) });
        if (again.response || !/ECONNREFUSED/.test(again.error?.message ?? '')) return;
        if (!this.down.has(origin)) this.down.set(origin, { service: op.service, answers: seen, at: Date.now(), message: downOf(op.service, origin, seen, Date.now()).message.split('; the request')[0] ?? '' });
      }
    }
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

  /**
   * A request whose connection was cut without an answer on every attempt: the deployment's failure on that
   * request (a handler that crashed: Go's net/http, Rust's hyper close the connection; the connection-dropped
   * check) when it answers another request at once and cuts this one again when it is sent alone, with no other
   * request of the run's cases in flight (Slots.alone). A lone re-send that is answered is judged on its answer (the cut depended on what
   * else was in flight: not this request's doing); one that is refused or hangs is judged as such. A deployment
   * that answers nothing is the network's or one going down (left as it is: never the service's fault).
   */
  private async droppedOrNot(op: Operation, request: CallRequest, exchange: Exchange): Promise<Exchange> {
    const base = this.config.baseUrls[op.service] ?? '';
    // In a slot: a lone re-send (this one's or another's) has nothing beside it.
    const control = await this.slots.run(() => this.client.send({ method: 'HEAD', url: base, headers: this.builder.headers('valid', false, op) }));
    if (!control.response) return exchange;
    const asked = Date.now();
    let waitedMs = 0;
    const again = await this.slots.alone(() => {
      waitedMs = Date.now() - asked;
      return this.client.send(this.builder.build(op, request));
    });
    const alone = { attempt: (exchange.retries?.length ?? 0) + 1, reason: `${SENT_ALONE}connection: ${exchange.error?.message ?? 'connection cut'}`, waitedMs };
    const resent: Exchange = { ...again, retries: [...(exchange.retries ?? []), alone, ...(again.retries ?? [])] };
    if (!(again.error?.kind === 'connection' && CUT.test(again.error.message))) {
      if (again.error?.kind === 'timeout') this.timeouts.set(op.operationId, (this.timeouts.get(op.operationId) ?? 0) + 1);
      return (await this.noteAnswer(op, resent, resent)) ?? resent;
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

  private originOf(op: Operation): string {
    const base = this.config.baseUrls[op.service] ?? '';
    try {
      return new URL(base).origin;
    } catch {
      return base;
    }
  }

  /**
   * Whatever a create answered with success goes into the cleanup ledger and the run's made records, whichever case
   * sent it; its values into the pool.
   */
  private record(op: Operation, answered: Exchange, pathParams: Record<string, string>, body: unknown): void {
    const exchange = withRecordJson(answered);
    this.created.note(exchange, (id) => this.ledger.undoCall(op, pathParams, id));
    this.ledger.note(op, exchange, pathParams);
    this.made.note(op, exchange, pathParams, body);
    this.pool.harvest(op, exchange);
  }

  judgeInput(op: Operation): Pick<JudgeInput, 'profile' | 'validator' | 'timeoutMs' | 'bodyCapBytes'> {
    return { profile: this.profileOf(op), validator: this.validator, timeoutMs: this.config.timeoutMs, bodyCapBytes: this.config.bodyCapBytes };
  }

  /** The operations this run (and shard) tests: only their answers to other cases' calls are judged. */
  private selectedIds: Set<string> | undefined;
  /** The presence of each operation once proven (presenceOf). */
  private readonly presenceState = new Map<string, Presence['state']>();

  /**
   * An answer of an operation to a call another operation's case made: judged for that operation, when the
   * run tests it (an operation left out by --include/--exclude/--shard is not reported on).
   */
  side(op: Operation, exchange: Exchange, more: Finding[] = [], extra: Pick<JudgeInput, 'note'> = {}): void {
    this.selectedIds ??= new Set(selectOperations(this.contract.operations, this.config).map((o) => o.operationId));
    if (!this.selectedIds.has(op.operationId)) return;
    // A missing operation's answers, or those of one whose presence no record could prove, are a gateway's.
    const presence = this.presenceState.get(op.operationId);
    if (presence === 'missing' || presence === 'unverified') return;
    const judged = judge({ operation: op, exchange, ...this.judgeInput(op), ...extra });
    // What the calling case found of this answer beyond its conformance (a write to a record it had deleted).
    const judgement = more.length > 0 ? { ...judged, outcome: 'failed' as const, checks: [...judged.checks, ...more.map((f) => ({ id: f.check, status: 'failed' as const }))], findings: [...judged.findings, ...more] } : judged;
    if (!judgement.findings.some((f) => f.severity === 'error' || f.severity === 'warning')) return;
    let entry = this.sideEvidence.get(op.operationId);
    if (!entry) this.sideEvidence.set(op.operationId, (entry = { evidence: new Evidence(), started: performance.now() }));
    // Kept to the end of the run: only as much of the exchange as a report shows (one per defect).
    entry.evidence.add(capRecorded(exchange), judgement);
  }

  /**
   * The answers operations gave to calls other cases made of them, as one case per operation ("setup calls"):
   * only where one showed a defect. Taken once, at the end of the run.
   */
  sideCases(): Array<[string, CaseResult]> {
    const out: Array<[string, CaseResult]> = [];
    for (const [operationId, { evidence, started }] of this.sideEvidence) {
      const presence = this.presenceState.get(operationId);
      if (presence === 'missing' || presence === 'unverified') continue;
      // Each finding with the curl line of the call that showed it.
      out.push([
        operationId,
        withFindingCurls(
          {
            name: 'setup calls',
            kind: 'setup',
            outcome: evidence.outcome(),
            checks: evidence.checkResults(),
            findings: evidence.findings(),
            exchanges: evidence.evidence(),
            durationMs: Math.round(performance.now() - started),
          },
          this.created,
        ),
      ]);
    }
    this.sideEvidence.clear();
    return out;
  }

  /**
   * Deletes everything the run created and did not delete itself, newest first, whatever failed before,
   * through the DELETE of the same resource: several at a time (the run's concurrency), but a record only once
   * every later record whose create named it is done (children before their parents). A delete that failed while
   * others went on is sent once more when all are done: what refused it may have been one of them. What cannot
   * be deleted (no DELETE described, no id in the answer, --read-only, a delete that fails) is left behind and
   * reported; a 404 or 410 means it is gone. Records no id names are reported last, one line per operation and
   * reason with their count.
   */
  async cleanup(): Promise<{ deleted: number; failed: number; leftBehind: LeftBehindRecord[] }> {
    let deleted = 0;
    const pending = this.ledger.pending();
    /** Why each record is left behind (by its place in the ledger's order), when it is. */
    const reasons = new Map<number, string>();
    const toDelete: number[] = [];
    pending.forEach((entry, i) => {
      entry.done = true;
      if (!entry.undo) reasons.set(i, entry.reason ?? 'nothing deletes it');
      else if (this.config.readOnly) reasons.set(i, `--read-only sends no ${entry.undo.operation.method} ${entry.undo.operation.path}`);
      else toDelete.push(i);
    });
    // How many records still to delete name each one: it waits for them.
    const namedBy = new Map<LedgerRecord, number>();
    for (const i of toDelete) for (const named of pending[i]!.names ?? []) namedBy.set(named, (namedBy.get(named) ?? 0) + 1);
    /** Deletes refused, with how many deletes had succeeded when each was sent. */
    const refused: Array<{ i: number; before: number }> = [];
    let succeeded = 0;
    const deleteOne = async (i: number): Promise<void> => {
      const entry = pending[i]!;
      const undo = entry.undo!.operation;
      const before = succeeded;
      const random = new Random(`${this.config.seed}:${undo.operationId}:cleanup`);
      let exchange: Exchange;
      try {
        exchange = await this.call(undo, { ...this.declaredParams(undo, random), pathParams: entry.undo!.pathParams });
      } catch (error) {
        if (!(error instanceof Skip)) throw error;
        reasons.set(i, `${undo.method} ${undo.path} ${error.message}`);
        return;
      }
      this.side(undo, exchange);
      const status = exchange.response?.status;
      if (status !== undefined && ((status >= 200 && status < 300) || status === 404 || status === 410)) {
        succeeded++;
        deleted++;
        reasons.delete(i);
      } else {
        reasons.set(i, `${undo.method} ${undo.path} answered ${status ?? exchange.error?.message ?? 'nothing'}`);
        if (exchange.response !== undefined) refused.push({ i, before });
      }
    };
    const queue = [...toDelete];
    const running = new Set<Promise<void>>();
    const limit = Math.max(1, this.config.concurrency);
    while (queue.length > 0 || running.size > 0) {
      // At most --concurrency deletes started at once: each holds its call until its answer (thousands of records
      // at 2,770 operations; all started at once, the run peaked at 334 MiB instead of 257).
      let at = running.size < limit ? queue.findIndex((i) => !namedBy.get(pending[i]!)) : -1;
      // Nothing free while nothing runs: an order the names cannot settle (never for records made one after another).
      if (at < 0 && running.size === 0) at = 0;
      if (at < 0) {
        await Promise.race(running);
        continue;
      }
      const [i] = queue.splice(at, 1) as [number];
      const job: Promise<void> = deleteOne(i).finally(() => {
        running.delete(job);
        for (const named of pending[i]!.names ?? []) namedBy.set(named, (namedBy.get(named) ?? 1) - 1);
      });
      running.add(job);
    }
    // Refused while other records went: once more, now that they are gone (one at a time, newest first).
    const succeededInPass = succeeded;
    for (const { i, before } of [...refused].sort((a, b) => a.i - b.i)) if (before < succeededInPass) await deleteOne(i);
    const left: LeftBehindRecord[] = [...reasons].sort(([a], [b]) => a - b).map(([i, reason]) => leftBehind(pending[i]!, reason));
    // What no id names cannot be deleted: counted per operation and reason.
    for (const group of this.ledger.unnamed()) left.push(leftBehind(group, group.reason));
    await this.client.close();
    return { deleted, failed: toDelete.length - deleted, leftBehind: left };
  }

  get ledgerSize(): number {
    return this.ledger.size;
  }

  ownRecords(create: Operation, pathParams: Record<string, string>): Array<{ id?: string; undo: { operation: Operation; pathParams: Record<string, string> } }> {
    return this.ledger.pendingOf(create, this.url(create, pathParams));
  }

  /** Records a refused create stored all the same (a read after it showed them): into the cleanup ledger. */
  noteStored(op: Operation, exchange: Exchange, pathParams: Record<string, string>, ids: string[]): void {
    this.ledger.noteStored(op, exchange, pathParams, ids);
  }

  // ------------------------------------------------------------------------------------------------------
  // Presence

  /** The presence probe: example path values (else values of the parameter's type) and the required parameters. */
  probe(op: Operation, plan: PlannedCase): Promise<Exchange> {
    let probe = this.presence.get(op.operationId);
    if (!probe) {
      const random = new Random(`${this.config.seed}:${op.operationId}:presence`);
      const pathParams =
        this.absentIds(op) ??
        Object.fromEntries(
          pathParamNames(op).map((p) => {
            const param = op.parameters.find((x) => x.in === 'path' && x.name === p);
            return [p, param?.example !== undefined ? String(param.example) : this.idValue(op, p, random)];
          }),
        );
      probe = this.call(op, { ...plan.request, ...this.declaredParams(op, random), pathParams, ...(plan.request.rawBody ? { rawBody: plan.request.rawBody } : {}) });
      this.presence.set(op.operationId, probe);
    }
    return probe;
  }

  /**
   * Lets go of what the session keeps for an operation whose cases have all finished: its presence probe (the
   * whole exchange, body included) and its shared fixture. Memory then does not grow with the operations run.
   */
  release(operationId: string): void {
    this.presence.delete(operationId);
    this.presenceProof.delete(operationId);
    this.fixtures.delete(operationId);
  }

  /** The answer to a route of the operation's service that surely does not exist, same method (cached). */
  async unknownRoute(op: Operation): Promise<{ path: string; response: UnknownRouteAnswer } | undefined> {
    const key = `${op.service} ${op.method}`;
    let pending = this.unknownRoutes.get(key);
    if (!pending) {
      const base = this.config.baseUrls[op.service] ?? '';
      const url = `${base.replace(/\/+$/, '')}/conformance-unknown-route-${randomBytes(6).toString('hex')}`;
      pending = this.client
        .send({ method: op.method, url, headers: { ...this.builder.headers('valid', false, op), ...this.builder.credentials(op, 'valid').headers } })
        .then((e) => (e.response ? { path: new URL(url).pathname, response: unknownRouteAnswer(e.response, this.profileOf(op)) } : undefined));
      this.unknownRoutes.set(key, pending);
    }
    return pending;
  }

  /** True when the answer is the one the deployment gives to a route it does not know. */
  async looksUnknown(op: Operation, exchange: Exchange): Promise<boolean> {
    if (exchange.response === undefined) return false;
    const unknown = await this.unknownRoute(op);
    const paths = unknown ? [new URL(exchange.request.url).pathname, unknown.path] : [];
    return routeUnknown(exchange.response, op.method, this.profileOf(op), unknown?.response, paths);
  }

  /**
   * Whether the operation is served. An answer that cannot be told from the unknown-route answer proves the
   * route unknown only when the request named records known to exist (or the path names none): otherwise a
   * record known to exist is asked for (the value pool, the operation's examples, a record the run creates);
   * when none can be had, the operation is present but unverified, never missing.
   */
  presenceOf(op: Operation, probe: Exchange): Promise<Presence> {
    let proof = this.presenceProof.get(op.operationId);
    if (!proof) {
      proof = this.provePresence(op, probe).then((p) => {
        this.presenceState.set(op.operationId, p.state);
        return p;
      });
      this.presenceProof.set(op.operationId, proof);
    }
    return proof;
  }

  private async provePresence(op: Operation, probe: Exchange): Promise<Presence> {
    if (!(await this.looksUnknown(op, probe))) return { state: 'present' };
    const names = pathParamNames(op);
    const status = probe.response?.status;
    // A 405 whose Allow leaves the method out, or a 501, speaks of the route, never of a record.
    // A status the operation documents (its own empty 404: no such record) is its answer, never proof that the route is
    // missing, however like the unknown route's it looks (a 405 whose Allow leaves the method out still is).
    const documented = (s: number | undefined) => s !== undefined && op.responses.some((r) => r.status === String(s)) && !(s === 405 && probe.response?.headers['allow'] !== undefined);
    if (names.length === 0 || status === 405 || status === 501) {
      return documented(status) ? { state: 'unverified', why: `${op.method} ${op.path} answered its documented ${status} as an unknown route is answered; nothing proves the route served or missing` } : { state: 'missing' };
    }
    // A record known to exist: never for a DELETE (it would remove a record the run did not make).
    if (op.method === 'DELETE') return { state: 'unverified', why: `${op.method} ${op.path} answered like an unknown route for ids no record has` };
    const run = new CaseRun(this, { operationId: op.operationId, name: 'presence', kind: 'presence', expectation: 'presence', request: { pathParams: {}, query: {}, auth: 'valid', setup: [] }, fixture: 'none', expect: [] }, op);
    let known = isSafe(op) ? this.pool.pathValues(op, names) : {};
    const pooled = Object.keys(known).length === names.length;
    if (!pooled) {
      try {
        known = await this.fixture(op, false, run);
      } catch (error) {
        if (!(error instanceof Skip)) throw error;
        const taken = await this.servedForOtherValues(op);
        if (taken) {
          // The route's values are the path's: its other operations' cases may name them as a record seen served.
          const key = `${op.service} ${op.path}`;
          if (!this.routeValues.has(key)) this.routeValues.set(key, taken);
          // Records asked for before, and refused for want of a value, are asked for again.
          for (const other of this.contract.operations) if (other.path === op.path && other.service === op.service) this.fixtures.delete(other.operationId);
          return { state: 'present' };
        }
        return { state: 'unverified', why: `${op.method} ${op.path} answered like an unknown route, and no record known to exist could be had (${error.message})` };
      }
    }
    const random = new Random(`${this.config.seed}:${op.operationId}:presence`);
    const declared = this.declaredParams(op, random);
    const again = await this.call(op, { ...declared, pathParams: known, rawBody: '{"conformance-probe":', contentType: jsonRequestType(op) });
    if (!(await this.looksUnknown(op, again))) return { state: 'present' };
    // The newest value seen may name a record the run made that the deployment does not serve (what a read-back
    // reports): the oldest, seen before the run created anything (a list read first), is asked too.
    const oldest = pooled ? Object.fromEntries(names.map((name) => [name, this.pool.values(op, name)[0] ?? known[name]!])) : known;
    if (names.some((name) => oldest[name] !== known[name])) {
      const older = await this.call(op, { ...declared, pathParams: oldest, rawBody: '{"conformance-probe":', contentType: jsonRequestType(op) });
      if (!(await this.looksUnknown(op, older))) return { state: 'present' };
    }
    if (documented(again.response?.status)) {
      return { state: 'unverified', why: `${op.method} ${op.path} answered its documented ${again.response?.status} for a record known to exist, as an unknown route is answered` };
    }
    return { state: 'missing' };
  }

  /**
   * Where no record known to exist could be had: values of other shapes for the path's free strings (typed string,
   * with no format, pattern or listed values: any one is as valid as another). A route may take only some of them
   * (a segment of two characters, of digits) where its contract allows any: an answer to one of them not like the
   * unknown route's proves the route served, and what it answers to the other values the contract allows is then
   * judged as any answer is. Only where the call cannot act on a record: a safe method, or a body (sent malformed).
   */
  private async servedForOtherValues(op: Operation): Promise<Record<string, string> | undefined> {
    if (!isSafe(op) && !op.requestBody) return undefined;
    const names = pathParamNames(op);
    const free = names.filter((name) => freeString(pathSchema(op, name)));
    if (free.length === 0) return undefined;
    const random = new Random(`${this.config.seed}:${op.operationId}:presence-shapes`);
    const others = Object.fromEntries(names.map((name) => [name, this.idValue(op, name, random)]));
    for (const value of OTHER_SHAPES) {
      if (!free.every((name) => accepts(pathSchema(op, name) ?? true, value) === true)) continue;
      const pathParams = { ...others, ...Object.fromEntries(free.map((name) => [name, value])) };
      const answer = await this.call(op, { ...this.declaredParams(op, random), pathParams, rawBody: '{"conformance-probe":', contentType: jsonRequestType(op) });
      if (answer.response !== undefined && !(await this.looksUnknown(op, answer))) return Object.fromEntries(free.map((name) => [name, value]));
    }
    return undefined;
  }

  // ------------------------------------------------------------------------------------------------------
  // Records a case needs

  async provenPresent(op: Operation): Promise<boolean> {
    const state = this.presenceState.get(op.operationId);
    if (state !== undefined) return state === 'present';
    // An operation the run does not test is not probed for it (nothing would release what it keeps).
    this.selectedIds ??= new Set(selectOperations(this.contract.operations, this.config).map((o) => o.operationId));
    if (!this.selectedIds.has(op.operationId)) return false;
    const plan: PlannedCase = { operationId: op.operationId, name: 'presence', kind: 'presence', expectation: 'presence', request: { pathParams: {}, query: {}, auth: 'valid', setup: [] }, fixture: 'none', expect: [] };
    const probe = await this.probe(op, plan);
    return probe.response !== undefined && (await this.presenceOf(op, probe)).state === 'present';
  }

  routeTaken(op: Operation): Record<string, string> | undefined {
    return this.routeValues.get(`${op.service} ${op.path}`);
  }

  /** Creates (through the API) the records an operation's path ids name; `fresh` makes new ones. */
  async fixture(op: Operation, fresh: boolean, run: CaseRun): Promise<Record<string, string>> {
    if (!fresh) return this.sharedFixture(op, run);
    const notes: string[] = [];
    try {
      return await this.buildFixture(op, run, true, notes);
    } finally {
      run.note(...notes);
    }
  }

  /**
   * The records an operation's cases share, made once. A build that failed is made again where a create it needs
   * made a record since that the case may take (another case's, a coverage request's), a few times at most.
   */
  private async sharedFixture(op: Operation, run: CaseRun): Promise<Record<string, string>> {
    for (let rebuilds = 0; ; ) {
      let shared = this.fixtures.get(op.operationId);
      if (!shared) {
        const notes: string[] = [];
        shared = { version: this.made.version, rebuilds, notes, ids: this.buildFixture(op, run, false, notes) };
        this.fixtures.set(op.operationId, shared);
      }
      try {
        const ids = await shared.ids;
        run.note(...shared.notes);
        return ids;
      } catch (error) {
        const current = this.fixtures.get(op.operationId);
        if (current !== undefined && current !== shared) continue;
        if (!(error instanceof Skip) || error.kind !== 'setup-failed' || shared.rebuilds >= FIXTURE_REBUILDS || !this.madeForFixture(op, shared.version)) throw error;
        rebuilds = shared.rebuilds + 1;
        this.fixtures.delete(op.operationId);
      }
    }
  }

  /** Whether a create of a record the operation's path names made one since `version` that a shared fixture may take. */
  private madeForFixture(op: Operation, version: number): boolean {
    return pathParamNames(op).some((param) => {
      const found = producerFor(this.contract, op, param);
      return found !== undefined && this.made.madeSince(found.producer, version) && this.made.has(found.producer, param, { parents: {}, fresh: consumes(op, false) });
    });
  }

  /** Creates whose parent records are being made (a nested create's fixture): a cycle among them ends. */
  private readonly parentsBuilding = new Set<string>();

  private async buildFixture(op: Operation, run: CaseRun, fresh: boolean, notes: string[]): Promise<Record<string, string>> {
    const ids: Record<string, string> = {};
    const examples: Record<string, string> = {};
    let exampleReader: Operation | undefined;
    for (const param of pathParamNames(op)) {
      const found = producerFor(this.contract, op, param);
      if (found) {
        ids[param] = await this.producedId(op, param, found, { ids, run, fresh, notes });
        continue;
      }
      const { value, reader } = this.unproducedValue(op, param, fresh);
      ids[param] = value;
      if (reader) {
        examples[param] = value;
        exampleReader = reader;
      }
    }
    if (exampleReader) await this.lookUpExamples(op, exampleReader, ids, examples, run);
    return ids;
  }

  /**
   * A path value no described operation creates: a listed choice; for a read, a record the deployment already has
   * (seen in an answer of the run); else the contract's example value (its reader then shows whether it names one);
   * else a value of another shape the route took.
   */
  private unproducedValue(op: Operation, param: string, fresh: boolean): { value: string; reader?: Operation } {
    // A parameter that lists its values, and that no operation creates, names a choice, not a record.
    const choice = listedValue(op, param);
    if (choice !== undefined) return { value: choice };
    const pooled = isSafe(op) ? this.pool.values(op, param).at(-1) : undefined;
    if (pooled !== undefined) return { value: pooled };
    const example = fresh ? undefined : pathExample(this.contract, op, param);
    if (example) return { value: example.value, reader: example.reader };
    // A value of another shape the route took (presence, servedForOtherValues): served as a record seen in an
    // answer is, for a read, or for a write where the user allows what cannot be undone; one this operation's
    // parameter takes.
    const taken = !fresh && (isSafe(op) || this.config.allowIrreversible) ? this.routeTaken(op)?.[param] : undefined;
    if (taken !== undefined && accepts(pathSchema(op, param) ?? true, taken) === true) return { value: taken };
    throw new Skip('no-producer', `no described operation creates the record for {${param}}`);
  }

  /** The id of a record the producer makes for the fixture, its parents first, then checked with its reader. */
  private async producedId(op: Operation, param: string, found: Producer, at: FixtureAt): Promise<string> {
    const { ids, run, fresh } = at;
    const producer = found.producer;
    // Where the run cannot make the record: one the deployment serves now (seen in an answer, read back), for a
    // case that only reads it, or that writes it where the user allows what cannot be undone; never for a case
    // that consumes its record (fresh).
    const servedInstead = async () => (!fresh && (isSafe(op) || this.config.allowIrreversible) ? this.servedRecord(op, param, ids, run, producer) : undefined);
    const random = new Random(`${this.config.seed}:${producer.operationId}:fixture:${run.exchanges.length}`);
    const body = await this.recordBody(producer, random, run);
    const declared = this.declaredParams(producer, random);
    // PUT-to-create: the client names the record; its id is the value sent in the path.
    // Each fixture names a record of its own (two cases must not share, and delete, one record).
    const chosen = found.via === 'put' ? this.idValue(producer, param, new Random(`${this.config.seed}:${op.operationId}:${param}:put:${this.fixtureCount++}`)) : undefined;
    // A create nested under a parent record the operation does not name (`POST /owners/{ownerId}/pets` for
    // `/pets/{petId}`): the parent is a record of the create's own fixture.
    const nestedParent = pathParamNames(producer).some((p) => p !== param && !(p in ids));
    if (nestedParent && this.parentsBuilding.has(producer.operationId)) throw new Skip('setup-failed', `setup: the records ${producer.operationId} needs lead back to ${op.operationId}`);
    let parents: Record<string, string> = {};
    if (nestedParent) {
      this.parentsBuilding.add(producer.operationId);
      try {
        parents = await this.fixture(producer, false, run);
      } catch (error) {
        // No parent, no create: a record the deployment serves now does, where it may (as below).
        const served = error instanceof Skip ? await servedInstead() : undefined;
        if (served === undefined) throw error;
        return served;
      } finally {
        this.parentsBuilding.delete(producer.operationId);
      }
    }
    const pathParams = { ...this.idValues(producer, random), ...parents, ...ids, ...(chosen ? { [param]: chosen } : {}) };
    const made = await this.createRecord(found, param, { ...declared, pathParams, body }, run);
    if (made.id !== undefined) this.made.handOut(producer, param, made.id, consumes(op, fresh));
    const recovered = made.id !== undefined ? { id: made.id } : await this.recoveredId(op, param, found, { ...at, ...made, pathParams, declared, servedInstead });
    if (!recovered.served) await this.readerServes(producer, param, { ...parents, ...ids }, recovered.id, run);
    return recovered.id;
  }

  /**
   * The create sent for a record, and once more with only what its body's schema requires where it was refused
   * (what the run needs is a record; the producer's own cases judge the refusal); the id its success names.
   */
  private async createRecord(found: Producer, param: string, request: CallRequest & { pathParams: Record<string, string> }, run: CaseRun): Promise<MadeAttempt> {
    const producer = found.producer;
    let exchange = await run.send(producer, request);
    const sent = [request.body];
    const statuses = [exchange.response?.status];
    const minimal = exchange.response && exchange.response.status >= 400 ? requiredOnly(producer, request.body) : undefined;
    if (minimal) {
      exchange = await run.send(producer, { ...request, body: minimal });
      sent.push(minimal);
      statuses.push(exchange.response?.status);
    }
    // The id from any answer that holds one: the documented place, else a record, array or page, else Location.
    const id = is2xx(exchange) ? recordIdOf(this.contract, this.profileOf(producer), found, param, exchange, request.pathParams) : undefined;
    return { exchange, sent, statuses, ...(id !== undefined ? { id } : {}) };
  }

  /**
   * A record for a fixture whose create refused the bodies sent: one the run made already (MadeRecords), else one
   * the deployment serves now (servedInstead), else one a search for another body makes (record-search.ts). The
   * case's result says which; a skip says what was tried.
   */
  private async recoveredId(op: Operation, param: string, found: Producer, at: FixtureAt & MadeAttempt & Recovery): Promise<{ id: string; served?: boolean }> {
    const { producer } = found;
    const { exchange, pathParams, fresh, notes, run } = at;
    const failed = `setup: ${producer.operationId} answered ${exchange.response?.status ?? exchange.error?.message} without a record id`;
    if (!exchange.response) throw new Skip('setup-failed', failed);
    const refused = `setup: ${producer.operationId} answered ${at.statuses[0]} to the body sent for the record${at.statuses.length > 1 ? ` (${at.statuses[1]} to its required part)` : ''}`;
    const taken = this.made.take(producer, param, { parents: pathParams, fresh: consumes(op, fresh) });
    if (taken) {
      notes.push(`${refused}; the case takes a record ${producer.operationId} made earlier in the run ({${param}} = ${taken.ids[param]})`);
      return { id: taken.ids[param]! };
    }
    const served = await at.servedInstead();
    if (served !== undefined) return { id: served, served: true };
    // A success without an id, or a refusal of something other than the body: no other body would do better.
    if (is2xx(exchange) || NOT_ABOUT_THE_BODY.has(exchange.response.status)) throw new Skip('setup-failed', failed);
    // Answered like a route the deployment does not have: no body reaches a record there.
    if (await this.looksUnknown(producer, exchange)) throw new Skip('setup-failed', failed);
    const idOf = (e: Exchange, p: Record<string, string>) => recordIdOf(this.contract, this.profileOf(producer), found, param, e, p);
    const result = await this.search.find({ producer, pathParams, declared: at.declared, sent: at.sent, send: (o, r) => run.send(o, r), idOf });
    if (!result.made) throw new Skip('setup-failed', `${failed}${result.tried ? `; tried besides: ${result.tried}` : ''}`);
    this.made.handOut(producer, param, result.made.id, consumes(op, fresh));
    notes.push(`${refused}; a record was made with ${result.made.how}${result.tried ? ` (tried before: ${result.tried})` : ''}`);
    return { id: result.made.id };
  }

  /** A created id that its reader does not serve would fail the dependant, not the producer: the case is skipped instead. */
  private async readerServes(producer: Operation, param: string, named: Record<string, string>, id: string, run: CaseRun): Promise<void> {
    const reader = readersOfCreated(this.contract, producer).find((r) => r.role !== 'list');
    if (!reader?.param) return;
    // A sanity check only: a reader the run no longer sends to (it timed out twice) checks nothing.
    const check = await run.send(reader.operation, { pathParams: { ...named, [reader.param]: id } }).catch((error: unknown) => {
      if (error instanceof Skip && error.kind === 'timed-out') return undefined;
      throw error;
    });
    const status = check?.response?.status;
    const documented = status !== undefined && reader.operation.responses.some((r) => r.status === String(status));
    if (check && status !== undefined && status >= 400 && status < 500 && documented && !(await this.looksUnknown(reader.operation, check))) {
      throw new Skip('setup-failed', `setup: the id ${producer.operationId} answered is not served by ${reader.operation.operationId} (${status}); see ${producer.operationId}'s created-record case`);
    }
  }

  /**
   * A record of the path parameter's collection that an answer of the run held and that the operation's reader
   * serves now (the newest of the pool's first few; undefined: none, or no reader to ask).
   */
  private async servedRecord(op: Operation, param: string, ids: Record<string, string>, run: CaseRun, producer?: Operation): Promise<string | undefined> {
    const reader = this.contract.operations.find((o) => o.method === 'GET' && o.path === op.path.slice(0, op.path.indexOf(`{${param}}`) + param.length + 2));
    if (!reader) return undefined;
    // Not a record the run handed to a case that consumes it (a delete may be removing it now).
    const values = this.pool.values(op, param).filter((value) => !producer || !this.made.consumed(producer, value));
    for (const value of values.reverse().slice(0, 3)) {
      const names = pathParamNames(reader);
      const check = await run.send(reader, { pathParams: Object.fromEntries(names.map((n) => [n, n === param ? value : (ids[n] ?? '')])) });
      if (is2xx(check)) return value;
    }
    return undefined;
  }

  /** The contract's example path values of a read are used only if a GET of that path answers them with success. */
  private async lookUpExamples(op: Operation, reader: Operation, ids: Record<string, string>, examples: Record<string, string>, run: CaseRun): Promise<void> {
    // The reader's path has the read's shape; its parameters may go by other names.
    const names = pathParamNames(reader);
    const values = pathParamNames(op).map((p) => ids[p] ?? '');
    const pathParams = Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
    const random = new Random(`${this.config.seed}:${op.operationId}:example-record`);
    const check = await run.send(reader, { ...this.declaredParams(reader, random), pathParams });
    if (is2xx(check)) return;
    const shown = Object.entries(examples).map(([p, v]) => `{${p}} = ${JSON.stringify(v)}`).join(', ');
    const answer = check.response ? `answered ${check.response.status}` : `failed: ${check.error?.message ?? 'no answer'}`;
    throw new Skip('no-producer', `no described operation creates the record for ${Object.keys(examples).map((p) => `{${p}}`).join(', ')}, and the contract's example (${shown}) names none on this deployment (${reader.method} ${reader.path} ${answer})`);
  }

  /**
   * The body a create is sent with to make a record the run needs: its example's, after the setup steps that body
   * names (their answers fill its templates), else one drawn from its schema.
   */
  async recordBody(producer: Operation, random: Random, run: CaseRun): Promise<unknown> {
    const body = positiveBody(producer, this.examples, random);
    const setup = this.examples.operations[producer.operationId]?.setup ?? [];
    const steps = await this.runSetup(neededSetup({ setup, body, query: {}, pathParams: {} }), run);
    const resolved = await resolveTemplates(body, this.scope(steps));
    // A record made for a case names other records only where the run has one of them: an optional field that
    // would name a record no answer held is left out (the deployment may rightly refuse a made-up one).
    return withoutMadeUpReferences(producer, fillReferences(producer, resolved, body, (name) => this.pool.forReference(name), accepts), body, (name, value) => this.pool.forReference(name).includes(value));
  }

  /** Template scope; one-time passwords read through it are kept in `secrets` (the case's flow secrets). */
  scope(steps: Record<string, unknown>, secrets?: string[]) {
    const otp = async (tx: string) => {
      const value = await this.readOtp(tx);
      secrets?.push(value);
      return value;
    };
    return { unique: `${this.config.runId}-${randomHex(3)}`, steps, otp };
  }

  /** Reads a one-time password from the configured OTP source. */
  async readOtp(transactionId: string): Promise<string> {
    const template = this.config.otpSourceUrl;
    if (!template) throw new Skip('otp-source', 'no OTP source configured (--otp-source-url)');
    const exchange = await this.client.send({
      method: 'GET',
      url: template.replace('{transactionId}', encodeURIComponent(transactionId)),
      headers: { accept: 'application/json', ...credentialHeader(this.profile, this.config.token) },
    });
    const value = otpValueOf(exchange.response?.json, exchange.response?.body, this.config.otpFields ?? []);
    if (!is2xx(exchange) || typeof value !== 'string' || value === '') {
      throw new Skip('otp-source', `the OTP source answered ${exchange.response?.status ?? exchange.error?.message} with no one-time password`);
    }
    return value;
  }

  async runSetup(steps: SetupStep[], run: CaseRun): Promise<Record<string, unknown>> {
    const results: Record<string, unknown> = {};
    for (const step of steps) {
      const op = this.operation(step.operation);
      const body = await resolveTemplates(step.body, this.scope(results));
      const exchange = await run.send(op, { body, ...(step.query ? { query: step.query } : {}) });
      if (!is2xx(exchange)) throw new Skip('setup-failed', `setup step "${step.as}" (${step.operation}) answered ${exchange.response?.status ?? exchange.error?.message}`);
      results[step.as] = exchange.response?.json;
    }
    return results;
  }

  // ------------------------------------------------------------------------------------------------------
  // Cases

  /** Operations with a failed case so far (in this worker), for --max-failures. */
  private readonly failedOperations = new Set<string>();

  /** Runs one planned case and says what happened; with --max-failures, stops once enough operations failed. */
  async runCase(planned: PlannedCase): Promise<CaseResult> {
    const max = this.config.maxFailures;
    if (max !== undefined && this.failedOperations.size >= max && !this.failedOperations.has(planned.operationId)) {
      return { name: planned.name, kind: planned.kind, outcome: 'skipped', skipReason: `not run: --max-failures ${max} reached (${this.failedOperations.size} operations failed)`, skipKind: 'max-failures', durationMs: 0, checks: [], findings: [], exchanges: [] };
    }
    const secrets: string[] = [];
    const run = new CaseRun(this, planned, this.operation(planned.operationId));
    let result: CaseResult;
    try {
      result = planned.skip && !(await this.runsOnRouteValues(planned)) ? run.skipped(planned.skip, planned.skipKind) : await runPhase(this, run, secrets);
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      result = run.skipped(error.message, error.kind);
    }
    // The records this case made are done with: another case may take one (MadeRecords.take).
    this.made.settle(run.exchanges.map((e) => e.request));
    redactFlowSecrets(result.exchanges, secrets);
    if (result.outcome === 'failed' || result.outcome === 'flaky') this.failedOperations.add(planned.operationId);
    // The chain is built from the redacted exchanges, so the script carries no flow secret either.
    const reproduced = withReproduction(result, this.created, `${planned.operationId} › ${planned.name}`);
    // The case waits for the rest of its operation's cases (scheduler): its answers are kept only as far as a
    // report shows them (the requests whole, for the curl lines).
    return { ...reproduced, exchanges: reproduced.exchanges.map((e) => (e.response && capResponse(e.response) !== e.response ? { ...e, response: capResponse(e.response) } : e)) };
  }

  /**
   * A case planned as skipped for want of a record its path names, where the route took values of another shape for
   * every such parameter (presence, servedForOtherValues): it runs on them, by the rule buildFixture keeps (a read;
   * a write where the user allows what cannot be undone; never a case that consumes its record).
   */
  private async runsOnRouteValues(planned: PlannedCase): Promise<boolean> {
    if (planned.skipKind !== 'no-producer' || planned.fixture !== 'shared') return false;
    // Cases that judge a request on a record (not the access cases: they need a record an identity made).
    if (!ROUTE_VALUE_KINDS.has(planned.kind) || planned.expectation === 'object-access' || planned.expectation === 'function-access') return false;
    if (!planned.request.setup.every((step) => this.contract.operations.some((o) => o.operationId === step.operation))) return false;
    const op = this.operation(planned.operationId);
    if (!isSafe(op) && !this.config.allowIrreversible) return false;
    const names = pathParamNames(op).filter((name) => !(name in planned.request.pathParams));
    if (names.length === 0 || !names.every((name) => freeString(pathSchema(op, name)))) return false;
    // Every one of them without a producer (the plan stopped at the first; a later one's may be irreversible).
    if (names.some((name) => producerFor(this.contract, op, name))) return false;
    const probe = await this.probe(op, planned);
    if (probe.response) await this.presenceOf(op, probe);
    const taken = this.routeTaken(op);
    return taken !== undefined && names.every((name) => name in taken);
  }

  /**
   * Path values for a case that needs no particular record: values no record has for a DELETE; for a read,
   * a record seen in an answer of the run where the pool has one; else values of each parameter's type.
   */
  pathValues(op: Operation, purpose: string): Record<string, string> {
    const absent = this.absentIds(op);
    if (absent) return absent;
    const generated = this.idValues(op, new Random(`${this.config.seed}:${op.operationId}:${purpose}`));
    return isSafe(op) ? { ...generated, ...this.fitting(op, this.pool.pathValues(op, pathParamNames(op))) } : generated;
  }

  /** Pool values that fit their parameter's type (an integer id takes no "abc"). */
  private fitting(op: Operation, values: Record<string, string>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(values).filter(([name, value]) => {
        const param = op.parameters.find((p) => p.in === 'path' && p.name === name);
        const schema = param?.schema;
        const type = typeof schema === 'object' ? schema['type'] : undefined;
        const types = Array.isArray(type) ? type : [type];
        if (types.includes('integer') || types.includes('number')) return /^-?\d+(\.\d+)?$/.test(value);
        if (typeof schema === 'object' && schema['format'] === 'uuid') return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
        return true;
      }),
    );
  }

  /**
   * A DELETE that is not part of a lifecycle (presence probe, auth and negative cases) names no record that may
   * exist (an example or random integer id might): its path values are ones no record has, so even a deployment
   * that wrongly lets the call through removes nothing it did not create.
   */
  absentIds(op: Operation): Record<string, string> | undefined {
    if (op.method !== 'DELETE') return undefined;
    const random = new Random(`${this.config.seed}:${op.operationId}:absent`);
    // Valid for the parameter (a uuid, an integer in range, a pattern's match): twin routes of one path (GET and
    // DELETE /pets/{id}) are asked alike, and a router's 400 for a malformed id is not taken for the answer.
    return Object.fromEntries(
      pathParamNames(op).map((p) => {
        const param = op.parameters.find((x) => x.in === 'path' && x.name === p);
        return [p, (param ? absentValue(param.schema, random) : undefined) ?? `conformance-absent-${random.uuid().slice(0, 8)}`];
      }),
    );
  }

  /** Path values built from each path parameter's example or schema (uuid, integer, string ...). */
  private idValues(op: Operation, random: Random): Record<string, string> {
    return Object.fromEntries(pathParamNames(op).map((p) => [p, this.idValue(op, p, random)]));
  }

  private idValue(op: Operation, name: string, random: Random): string {
    const param = op.parameters.find((p) => p.in === 'path' && p.name === name);
    if (!param) return random.uuid();
    const value = parameterValue({ ...param, example: undefined }, random);
    return value === undefined ? random.uuid() : String(value);
  }

  /** Required query, header and cookie parameters of an operation called as a setup step. */
  declaredParams(op: Operation, random: Random): { query: Record<string, unknown>; headers: Record<string, string>; cookies: Record<string, string> } {
    const pick = (where: 'query' | 'header' | 'cookie') =>
      Object.fromEntries(op.parameters.filter((p) => p.in === where && p.required).map((p) => [p.name, parameterValue(p, random)]).filter(([, v]) => v !== undefined));
    return { query: pick('query'), headers: stringValues(pick('header')), cookies: stringValues(pick('cookie')) };
  }

  /** True when a successful exchange of the operation passes every check that applies to a success. */
  conforms(op: Operation, exchange: Exchange): boolean {
    const judged = judge({ operation: op, exchange, ...this.judgeInput(op), intent: 'success' });
    return judged.outcome === 'passed';
  }
}

export type { Finding };

/**
 * The one-time password in an OTP source's answer: plain text, a JSON string, the first of the pack's named
 * fields (RunConfig.otpFields), or the only string field of a JSON object.
 */
export function otpValueOf(json: unknown, body: string | undefined, fields: readonly string[]): unknown {
  if (typeof json === 'string') return json;
  if (typeof json !== 'object' || json === null) return json === undefined ? body?.trim() : undefined;
  const record = json as Record<string, unknown>;
  for (const field of fields) if (record[field] !== undefined) return record[field];
  const strings = Object.values(record).filter((v) => typeof v === 'string');
  return strings.length === 1 ? strings[0] : undefined;
}

/**
 * Whether every URL of one path ("service /a/{}/b", parameters as {}) is also a URL of another, more general one
 * ("service /a/{}/{}"): the same service and number of segments, each segment equal or a parameter in the general.
 */
function generalizes(g: string[], s: string[]): boolean {
  return g.length === s.length && g.every((seg, i) => seg === s[i] || (seg === '{}' && s[i] !== '' && i > 0));
}
