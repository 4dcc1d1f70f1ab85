/**
 * Presence proofs: whether each operation is served. The presence probe (sent once per operation), the answer to a
 * route that surely does not exist, the proof that tells an unknown route from a missing record (a record known to
 * exist asked for, else values of other shapes the route takes), and the methods the contract documents per path.
 */
import { randomBytes } from 'node:crypto';
import { routeUnknown } from '../checks/operation-present.ts';
import type { Profile } from '../description/profile.ts';
import type { GatewayClient } from '../http/gateway-client.ts';
import type { Contract, Exchange, Operation } from '../model.ts';
import { jsonRequestType } from '../plan/accept-header.ts';
import { accepts } from '../plan/accepts.ts';
import { isSafe, pathParamNames, type PlannedCase } from '../plan/cases.ts';
import { Random } from '../plan/random.ts';
import { CaseRun, type CaseHost } from './case-run.ts';
import type { RunConfig } from './config.ts';
import { absentIds, declaredParams, freeString, idValue, pathSchema } from './records/path-values.ts';
import type { PhasePresence, Presence } from './phases/host.ts';
import type { CallRequest, RequestBuilder } from './request-builder.ts';
import { selectOperations } from './select.ts';
import { Skip } from './skip.ts';
import { unknownRouteAnswer, type UnknownRouteAnswer } from './unknown-route.ts';
import type { ValuePool } from './records/value-pool.ts';

/** Path values of other shapes tried where a free string's made-up value met an unknown-route answer: letters, then digits, short first. */
const OTHER_SHAPES = ['a', 'ab', 'abc', 'abcd', '1', '12', '123'];

/** What the presence proofs need of the run. */
export interface PresenceDeps {
  readonly config: RunConfig;
  readonly contract: Contract;
  readonly pool: ValuePool;
  readonly client: Pick<GatewayClient, 'send'>;
  readonly builder: Pick<RequestBuilder, 'headers' | 'credentials'>;
  /** The host of the presence proof's own case (its record, its calls). */
  readonly caseHost: CaseHost;
  profileOf(op: Operation): Profile;
  call(op: Operation, request: CallRequest): Promise<Exchange>;
  /** A record known to exist for the operation (the fixtures). */
  fixture(op: Operation, fresh: boolean, run: CaseRun): Promise<Record<string, string>>;
  /** Lets go of an operation's shared records (asked for again once a route value is known). */
  forgetFixture(operationId: string): void;
  /** Whether the run (and shard) tests the operation. */
  selected(op: Operation): boolean;
}

/** A whole presence case's plan (the probe of an operation whose own cases have not run yet). */
function presencePlan(op: Operation): PlannedCase {
  return { operationId: op.operationId, name: 'presence', kind: 'presence', expectation: 'presence', request: { pathParams: {}, query: {}, auth: 'valid', setup: [] }, fixture: 'none', expect: [] };
}

/**
 * Whether every URL of one path ("service /a/{}/b", parameters as {}) is also a URL of another, more general one
 * ("service /a/{}/{}"): the same service and number of segments, each segment equal or a parameter in the general.
 */
function generalizes(g: string[], s: string[]): boolean {
  return g.length === s.length && g.every((seg, i) => seg === s[i] || (seg === '{}' && s[i] !== '' && i > 0));
}

export class PresenceProofs implements PhasePresence {
  private readonly probes = new Map<string, Promise<Exchange>>();
  private readonly proofs = new Map<string, Promise<Presence>>();
  /** The presence of each operation once proven (presenceOf). */
  private readonly states = new Map<string, Presence['state']>();
  /** Path values of other shapes a route took where no record could be had, by path (servedForOtherValues). */
  private readonly routeValues = new Map<string, Record<string, string>>();
  private readonly unknownRoutes = new Map<string, Promise<{ path: string; response: UnknownRouteAnswer } | undefined>>();
  /** Per path (its template, parameter names aside): the documented methods and the operation that probes the others. */
  private pathMethods: Map<string, { methods: string[]; prober: string; segments: string[] }> | undefined;

  constructor(private readonly deps: PresenceDeps) {}

  /** The operation's presence once proven (undefined: not yet). */
  stateOf(operationId: string): Presence['state'] | undefined {
    return this.states.get(operationId);
  }

  /** Lets go of the operation's presence probe (the whole exchange, body included) and its proof. */
  release(operationId: string): void {
    this.probes.delete(operationId);
    this.proofs.delete(operationId);
  }

  /** The presence probe: example path values (else values of the parameter's type) and the required parameters. */
  probe(op: Operation, plan: PlannedCase): Promise<Exchange> {
    let probe = this.probes.get(op.operationId);
    if (!probe) {
      const random = new Random(`${this.deps.config.seed}:${op.operationId}:presence`);
      const pathParams =
        absentIds(op, this.deps.config.seed) ??
        Object.fromEntries(
          pathParamNames(op).map((p) => {
            const param = op.parameters.find((x) => x.in === 'path' && x.name === p);
            return [p, param?.example !== undefined ? String(param.example) : idValue(op, p, random)];
          }),
        );
      probe = this.deps.call(op, { ...plan.request, ...declaredParams(op, random), pathParams, ...(plan.request.rawBody ? { rawBody: plan.request.rawBody } : {}) });
      this.probes.set(op.operationId, probe);
    }
    return probe;
  }

  /** The answer to a route of the operation's service that surely does not exist, same method (cached). */
  async unknownRoute(op: Operation): Promise<{ path: string; response: UnknownRouteAnswer } | undefined> {
    const key = `${op.service} ${op.method}`;
    let pending = this.unknownRoutes.get(key);
    if (!pending) {
      const { builder } = this.deps;
      const base = this.deps.config.baseUrls[op.service] ?? '';
      const url = `${base.replace(/\/+$/, '')}/conformance-unknown-route-${randomBytes(6).toString('hex')}`;
      pending = this.deps.client
        .send({ method: op.method, url, headers: { ...builder.headers('valid', false, op), ...builder.credentials(op, 'valid').headers } })
        .then((e) => (e.response ? { path: new URL(url).pathname, response: unknownRouteAnswer(e.response, this.deps.profileOf(op)) } : undefined));
      this.unknownRoutes.set(key, pending);
    }
    return pending;
  }

  /** True when the answer is the one the deployment gives to a route it does not know. */
  async looksUnknown(op: Operation, exchange: Exchange): Promise<boolean> {
    if (exchange.response === undefined) return false;
    const unknown = await this.unknownRoute(op);
    const paths = unknown ? [new URL(exchange.request.url).pathname, unknown.path] : [];
    return routeUnknown(exchange.response, op.method, this.deps.profileOf(op), unknown?.response, paths);
  }

  /**
   * Whether the operation is served. An answer that cannot be told from the unknown-route answer proves the
   * route unknown only when the request named records known to exist (or the path names none): otherwise a
   * record known to exist is asked for (the value pool, the operation's examples, a record the run creates);
   * when none can be had, the operation is present but unverified, never missing.
   */
  presenceOf(op: Operation, probe: Exchange): Promise<Presence> {
    let proof = this.proofs.get(op.operationId);
    if (!proof) {
      proof = this.provePresence(op, probe).then((p) => {
        this.states.set(op.operationId, p.state);
        return p;
      });
      this.proofs.set(op.operationId, proof);
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
    let known = isSafe(op) ? this.deps.pool.pathValues(op, names) : {};
    const pooled = Object.keys(known).length === names.length;
    if (!pooled) {
      const had = await this.knownRecord(op);
      if ('state' in had) return had;
      known = had.ids;
    }
    const random = new Random(`${this.deps.config.seed}:${op.operationId}:presence`);
    const declared = declaredParams(op, random);
    const again = await this.deps.call(op, { ...declared, pathParams: known, rawBody: '{"conformance-probe":', contentType: jsonRequestType(op) });
    if (!(await this.looksUnknown(op, again))) return { state: 'present' };
    // The newest value seen may name a record the run made that the deployment does not serve (what a read-back
    // reports): the oldest, seen before the run created anything (a list read first), is asked too.
    const oldest = pooled ? Object.fromEntries(names.map((name) => [name, this.deps.pool.values(op, name)[0] ?? known[name]!])) : known;
    if (names.some((name) => oldest[name] !== known[name])) {
      const older = await this.deps.call(op, { ...declared, pathParams: oldest, rawBody: '{"conformance-probe":', contentType: jsonRequestType(op) });
      if (!(await this.looksUnknown(op, older))) return { state: 'present' };
    }
    if (documented(again.response?.status)) {
      return { state: 'unverified', why: `${op.method} ${op.path} answered its documented ${again.response?.status} for a record known to exist, as an unknown route is answered` };
    }
    return { state: 'missing' };
  }

  /**
   * A record known to exist that the run makes for the proof; where none can be had, values of other shapes the
   * route took prove it present, else it is unverified.
   */
  private async knownRecord(op: Operation): Promise<{ ids: Record<string, string> } | Presence> {
    const run = new CaseRun(this.deps.caseHost, presencePlan(op), op);
    try {
      return { ids: await this.deps.fixture(op, false, run) };
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      const taken = await this.servedForOtherValues(op);
      if (taken) {
        // The route's values are the path's: its other operations' cases may name them as a record seen served.
        const key = `${op.service} ${op.path}`;
        if (!this.routeValues.has(key)) this.routeValues.set(key, taken);
        // Records asked for before, and refused for want of a value, are asked for again.
        for (const other of this.deps.contract.operations) if (other.path === op.path && other.service === op.service) this.deps.forgetFixture(other.operationId);
        return { state: 'present' };
      }
      return { state: 'unverified', why: `${op.method} ${op.path} answered like an unknown route, and no record known to exist could be had (${error.message})` };
    }
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
    const random = new Random(`${this.deps.config.seed}:${op.operationId}:presence-shapes`);
    const others = Object.fromEntries(names.map((name) => [name, idValue(op, name, random)]));
    for (const value of OTHER_SHAPES) {
      if (!free.every((name) => accepts(pathSchema(op, name) ?? true, value) === true)) continue;
      const pathParams = { ...others, ...Object.fromEntries(free.map((name) => [name, value])) };
      const answer = await this.deps.call(op, { ...declaredParams(op, random), pathParams, rawBody: '{"conformance-probe":', contentType: jsonRequestType(op) });
      if (answer.response !== undefined && !(await this.looksUnknown(op, answer))) return Object.fromEntries(free.map((name) => [name, value]));
    }
    return undefined;
  }

  async provenPresent(op: Operation): Promise<boolean> {
    const state = this.states.get(op.operationId);
    if (state !== undefined) return state === 'present';
    // An operation the run does not test is not probed for it (nothing would release what it keeps).
    if (!this.deps.selected(op)) return false;
    const probe = await this.probe(op, presencePlan(op));
    return probe.response !== undefined && (await this.presenceOf(op, probe)).state === 'present';
  }

  routeTaken(op: Operation): Record<string, string> | undefined {
    return this.routeValues.get(`${op.service} ${op.path}`);
  }

  /**
   * The methods the contract documents for the operation's path, and whether this operation's coverage case
   * sends the path's requests with the methods it does not document (one operation per path: a selected GET,
   * else the first selected one; DELETE has no coverage case).
   */
  methodsOfPath(op: Operation): { methods: string[]; covered: string[]; probes: boolean } {
    this.pathMethods ??= this.pathMethodsTable();
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

  /** Per path (its template, parameter names aside): the documented methods and the operation that probes the others. */
  private pathMethodsTable(): Map<string, { methods: string[]; prober: string; segments: string[] }> {
    const map = new Map<string, { methods: string[]; prober: string; segments: string[] }>();
    const key = (o: Operation) => `${o.service} ${o.path.replace(/\{[^}]*\}/g, '{}')}`;
    for (const o of this.deps.contract.operations) {
      const entry = map.get(key(o)) ?? map.set(key(o), { methods: [], prober: '', segments: key(o).split('/') }).get(key(o))!;
      if (!entry.methods.includes(o.method)) entry.methods.push(o.method);
    }
    const selected = selectOperations(this.deps.contract.operations, this.deps.config).filter((o) => o.method !== 'DELETE');
    for (const o of [...selected.filter((s) => s.method === 'GET'), ...selected]) {
      const entry = map.get(key(o));
      if (entry && entry.prober === '') entry.prober = o.operationId;
    }
    return map;
  }
}
