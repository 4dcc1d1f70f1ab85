import { randomBytes } from 'node:crypto';
import { routeUnknown } from '../checks/operation-present.ts';
import { runChecks } from '../checks/registry.ts';
import { SchemaCompileError, SchemaValidator } from '../checks/schema.ts';
import type { CheckContext, RelatedRead } from '../checks/types.ts';
import { listOf, notAcceptedOnUpdate, readersOfCreated } from '../plan/relations.ts';
import { authorization, changedToken, truncatedToken } from '../http/auth-variants.ts';
import { defaultClientOptions } from '../http/client-options.ts';
import { GatewayClient } from '../http/gateway-client.ts';
import { randomHex } from '../http/random-hex.ts';
import type { CaseResult, Contract, Exchange, Finding, LeftBehindRecord, Operation, RecordedResponse } from '../model.ts';
import {
  pathParamNames,
  DEFAULT_FUZZ_EXAMPLES,
  FUZZ_CASE,
  planOperation,
  positiveBody,
  producerOf,
  readerOf,
  type OperationPlan,
  type PlannedCase,
  type RequestPlan,
} from '../plan/cases.ts';
import { coverageVariations, DEFAULT_MAX_EXAMPLES, describeVariation, shrinkSteps, type Variation } from '../plan/coverage.ts';
import { encodeBody, parameterValue, stringValues } from '../plan/parameters.ts';
import { Random } from '../plan/random.ts';
import { createdId, producerFor } from '../plan/resources.ts';
import type { Examples, SetupStep } from '../spec/examples.ts';
import { loadExamples } from '../spec/examples.ts';
import { loadContract, responseFor } from '../spec/load.ts';
import type { Profile } from '../spec/profile.ts';
import { loadProfiles, profileFor, type Profiles } from '../spec/profiles.ts';
import type { RunConfig } from './config.ts';
import { CreatedRecords, withReproduction } from './chain.ts';
import { CleanupLedger, leftBehind } from './cleanup.ts';
import { redactFlowSecrets, secretFieldValues } from './flow-secrets.ts';
import { readCreated, readOwnership, RelationUnmet, type RelationsHost } from './relations-run.ts';
import { ATTEMPTS, backoffMs, combineAttempts, isDocumentedTransient, repeatPolicy } from './repeat.ts';
import { selectOperations } from './select.ts';
import { resolveTemplates } from './templates.ts';

type Answered = Exchange & { response: RecordedResponse };

/** A case cannot run because something it needs first did not work; the case is skipped with this reason. */
class Unmet extends Error {}

/** "<file>#<pointer>" of the documented response for a status (what a tool error about its schema names). */
export function responseLocation(op: Operation, status: number): string {
  return `${op.specFile}#${responseFor(op, status)?.pointer ?? `${op.pointer}/responses`}`;
}

function answered(e: Exchange): e is Answered {
  return e.response !== undefined;
}

function is2xx(e: Exchange): boolean {
  return e.response !== undefined && e.response.status >= 200 && e.response.status < 300;
}

/**
 * One conformance run against one deployment: executes planned cases, keeps the records it creates in a
 * cleanup ledger, and turns each case into a CaseResult (findings from the registered checks).
 */
export class Session {
  readonly validator: SchemaValidator;
  /** The profile of the contract's first service (each operation is judged by profileOf). */
  readonly profile: Profile;
  private readonly client: GatewayClient;
  private readonly presence = new Map<string, Promise<Exchange>>();
  private readonly unknownRoutes = new Map<string, Promise<{ path: string; response: RecordedResponse } | undefined>>();
  private readonly fixtures = new Map<string, Promise<Record<string, string>>>();
  private readonly ledger: CleanupLedger;
  private fixtureCount = 0;
  private readonly created = new CreatedRecords();
  private readonly byId: Map<string, Operation>;

  private constructor(
    readonly config: RunConfig,
    readonly contract: Contract,
    readonly profiles: Profiles,
    readonly examples: Examples,
  ) {
    this.client = new GatewayClient({
      timeoutMs: config.timeoutMs,
      bodyCapBytes: config.bodyCapBytes,
      connections: Math.max(2, config.concurrency),
      client: config.client ?? defaultClientOptions(config.runId, randomBytes(16).toString('hex')),
      authHeader: profileFor(profiles, contract.services[0]?.id ?? '').auth.header,
      token: { token: config.token },
      onToken: (token) => (config.token = token),
    });
    this.byId = new Map(contract.operations.map((o) => [o.operationId, o]));
    this.profile = profileFor(profiles, contract.services[0]?.id ?? '');
    this.ledger = new CleanupLedger(contract, (op) => this.profileOf(op), (op, pathParams) => this.url(op, pathParams));
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

  /** The profile the operation's service is judged by (its platform's, else the generic one). */
  profileOf(op: Operation): Profile {
    return profileFor(this.profiles, op.service);
  }

  /** A session over an already loaded contract, profile and examples (the CLI has loaded them). */
  static from(config: RunConfig, contract: Contract, profiles: Profiles, examples: Examples): Session {
    return new Session(config, contract, profiles, examples);
  }

  /** Ends the requests in flight at once (an interrupted run); later requests are sent as usual. */
  abortInFlight(): void {
    this.client.abortInFlight();
  }

  /** The plans of the operations selected by --include/--exclude/--shard, in canonical order. */
  plans(): OperationPlan[] {
    const options = {
      seed: this.config.seed,
      ...(this.config.maxExamples !== undefined ? { maxExamples: this.config.maxExamples } : {}),
      ...(this.config.fuzzExamples !== undefined ? { fuzzExamples: this.config.fuzzExamples } : {}),
      readOnly: this.config.readOnly,
      allowIrreversible: this.config.allowIrreversible,
      otpSource: this.config.otpSourceUrl !== undefined,
    };
    return selectOperations(this.contract.operations, this.config).map((op) =>
      planOperation(this.contract, op, this.profileOf(op), this.examples, options),
    );
  }

  operation(operationId: string): Operation {
    const op = this.byId.get(operationId);
    if (!op) throw new Error(`The contract describes no operation ${operationId}.`);
    return op;
  }

  // ------------------------------------------------------------------------------------------------------
  // Requests

  url(op: Operation, pathParams: Record<string, string>, query: Record<string, unknown> = {}): string {
    const base = this.config.baseUrls[op.service];
    if (!base) throw new Error(`No base URL for service ${op.service}.`);
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ''));
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) search.append(k, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
    }
    const qs = search.toString();
    return `${base.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
  }

  headers(auth: RequestPlan['auth'], hasBody: boolean, op?: Operation): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (hasBody) headers['content-type'] = 'application/json';
    if (op?.auth && op.auth.length > 0) return headers; // the operation's own schemes: see credentials()
    const value = authorization(auth, this.config.token);
    if (value !== undefined) headers[(op ? this.profileOf(op) : this.profile).auth.header.toLowerCase()] = value;
    return headers;
  }

  /**
   * Credentials in the operation's own security schemes: bearer and basic in Authorization (basic takes the
   * token as user:password), apiKey in its header, query parameter or cookie. 'none' sends nothing.
   */
  private credentials(op: Operation, auth: RequestPlan['auth']): { headers: Record<string, string>; query: Record<string, string>; cookies: Record<string, string> } {
    const out = { headers: {} as Record<string, string>, query: {} as Record<string, string>, cookies: {} as Record<string, string> };
    if (auth === 'none') return out;
    const token = this.config.token;
    // The same refused credentials as for the profile's header (http/auth-variants.ts), in each scheme.
    const secret =
      auth === 'valid' ? token
      : auth === 'malformed' ? 'not a valid credential'
      : auth === 'truncated' ? truncatedToken(token)
      : auth === 'changed' ? changedToken(token)
      : auth === 'empty' ? ''
      : randomBytes(24).toString('hex');
    for (const scheme of op.auth ?? []) {
      if (scheme.kind === 'bearer') {
        const value = authorization(auth, token);
        if (value !== undefined) out.headers['authorization'] = value;
      }
      else if (scheme.kind === 'basic') {
        out.headers['authorization'] = auth === 'malformed' ? 'Basic not-base64!' : `Basic ${Buffer.from(secret.includes(':') ? secret : `${secret}:`).toString('base64')}`;
      } else if (scheme.kind !== 'apiKey') continue;
      else if (scheme.in === 'header') out.headers[scheme.parameter.toLowerCase()] = secret;
      else if (scheme.in === 'query') out.query[scheme.parameter] = secret;
      else out.cookies[scheme.parameter] = secret;
    }
    return out;
  }

  /** Sends one request of an operation with the run's token. */
  async call(
    op: Operation,
    request: {
      pathParams?: Record<string, string>;
      query?: Record<string, unknown>;
      body?: unknown;
      rawBody?: string;
      auth?: RequestPlan['auth'];
      headers?: Record<string, string>;
      cookies?: Record<string, string>;
      contentType?: string;
    },
  ): Promise<Exchange> {
    const media = request.contentType ? (op.requestBodies ?? []).find((b) => b.contentType === request.contentType) : op.requestBody;
    const encoded =
      request.rawBody !== undefined || request.body === undefined
        ? undefined
        : encodeBody(request.body, media?.contentType ?? 'application/json', media?.schema ?? {}, this.config.runId);
    const body = request.rawBody ?? encoded?.body;
    const auth = request.auth ?? 'valid';
    const credentials = this.credentials(op, auth);
    const headers = { ...(request.headers ?? {}), ...this.headers(auth, body !== undefined, op), ...credentials.headers };
    if (encoded && body !== undefined) headers['content-type'] = encoded.contentType;
    const cookies = { ...(request.cookies ?? {}), ...credentials.cookies };
    if (Object.keys(cookies).length > 0) headers['cookie'] = Object.entries(cookies).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    const send = () =>
      this.client.send({
        method: op.method,
        url: this.url(op, request.pathParams ?? {}, { ...(request.query ?? {}), ...credentials.query }),
        headers,
        ...(body !== undefined ? { body } : {}),
      });
    let exchange = await send();
    // A documented transient failure is retried once, after a back-off, before it is judged.
    if (exchange.response && isDocumentedTransient(op, exchange.response, this.profileOf(op))) {
      const first = exchange.response;
      const waitedMs = backoffMs(first.headers);
      await new Promise((resolve) => setTimeout(resolve, waitedMs));
      const again = await send();
      exchange = { ...again, retries: [...(exchange.retries ?? []), { attempt: 1, reason: `documented transient ${first.status}`, waitedMs }, ...(again.retries ?? [])] };
    }
    this.record(op, exchange, request.pathParams ?? {});
    return exchange;
  }

  /** Whatever a create answered with success goes into the cleanup ledger, whichever case sent it. */
  private record(op: Operation, exchange: Exchange, pathParams: Record<string, string>): void {
    this.created.note(exchange, (id) => this.ledger.undoCall(op, pathParams, id));
    this.ledger.note(op, exchange, pathParams);
  }

  /**
   * Deletes everything the run created and did not delete itself, newest first, whatever failed before,
   * through the DELETE of the same resource. What cannot be deleted (no DELETE described, no id in the
   * answer, --read-only, a delete that fails) is left behind and reported; a 404 or 410 means it is gone.
   */
  async cleanup(): Promise<{ deleted: number; failed: number; leftBehind: LeftBehindRecord[] }> {
    let deleted = 0;
    let failed = 0;
    const left: LeftBehindRecord[] = [];
    for (const entry of this.ledger.pending()) {
      entry.done = true;
      if (!entry.undo) {
        left.push(leftBehind(entry, entry.reason ?? 'nothing deletes it'));
        continue;
      }
      const undo = entry.undo.operation;
      if (this.config.readOnly) {
        left.push(leftBehind(entry, `--read-only sends no ${undo.method} ${undo.path}`));
        continue;
      }
      const random = new Random(`${this.config.seed}:${undo.operationId}:cleanup`);
      const exchange = await this.call(undo, { ...this.declaredParams(undo, random), pathParams: entry.undo.pathParams });
      const status = exchange.response?.status;
      if (status !== undefined && ((status >= 200 && status < 300) || status === 404 || status === 410)) deleted++;
      else {
        failed++;
        left.push(leftBehind(entry, `${undo.method} ${undo.path} answered ${status ?? exchange.error?.message ?? 'nothing'}`));
      }
    }
    await this.client.close();
    return { deleted, failed, leftBehind: left };
  }

  get ledgerSize(): number {
    return this.ledger.size;
  }

  // ------------------------------------------------------------------------------------------------------
  // Presence and fixtures

  /** The presence probe: example path values (else values of the parameter's type) and the required parameters. */
  probe(op: Operation, plan: PlannedCase): Promise<Exchange> {
    let probe = this.presence.get(op.operationId);
    if (!probe) {
      const random = new Random(`${this.config.seed}:${op.operationId}:presence`);
      const pathParams = this.absentIds(op) ?? Object.fromEntries(
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
    this.fixtures.delete(operationId);
  }

  /** The answer to a route of the operation's service that surely does not exist, same method (cached). */
  async unknownRoute(op: Operation): Promise<{ path: string; response: RecordedResponse } | undefined> {
    const key = `${op.service} ${op.method}`;
    let pending = this.unknownRoutes.get(key);
    if (!pending) {
      const base = this.config.baseUrls[op.service] ?? '';
      const url = `${base.replace(/\/+$/, '')}/conformance-unknown-route-${randomBytes(6).toString('hex')}`;
      pending = this.client
        .send({ method: op.method, url, headers: { ...this.headers('valid', false, op), ...this.credentials(op, 'valid').headers } })
        .then((e) => (e.response ? { path: new URL(url).pathname, response: e.response } : undefined));
      this.unknownRoutes.set(key, pending);
    }
    return pending;
  }

  async isMissing(op: Operation, exchange: Exchange): Promise<boolean> {
    if (exchange.response === undefined) return false;
    const unknown = await this.unknownRoute(op);
    const paths = unknown ? [new URL(exchange.request.url).pathname, unknown.path] : [];
    return routeUnknown(exchange.response, op.method, this.profileOf(op), unknown?.response, paths);
  }

  /** Creates (through the API) the records an operation's path ids name; `fresh` makes new ones. */
  async fixture(op: Operation, fresh: boolean, trail: Exchange[]): Promise<Record<string, string>> {
    if (fresh) return this.buildFixture(op, trail);
    let shared = this.fixtures.get(op.operationId);
    if (!shared) {
      shared = this.buildFixture(op, trail);
      this.fixtures.set(op.operationId, shared);
    }
    return shared;
  }

  private async buildFixture(op: Operation, trail: Exchange[]): Promise<Record<string, string>> {
    const ids: Record<string, string> = {};
    for (const param of pathParamNames(op)) {
      const found = producerFor(this.contract, op, param);
      if (!found) throw new Unmet(`no described operation creates the record for {${param}}`);
      const producer = found.producer;
      const random = new Random(`${this.config.seed}:${producer.operationId}:fixture:${trail.length}`);
      const body = await resolveTemplates(positiveBody(producer, this.examples, random), this.scope({}));
      const declared = this.declaredParams(producer, random);
      // PUT-to-create: the client names the record; its id is the value sent in the path.
      // Each fixture names a record of its own (two cases must not share, and delete, one record).
      const chosen = found.via === 'put' ? this.idValue(producer, param, new Random(`${this.config.seed}:${op.operationId}:${param}:put:${this.fixtureCount++}`)) : undefined;
      const exchange = await this.call(producer, { ...declared, pathParams: { ...this.idValues(producer, random), ...ids, ...(chosen ? { [param]: chosen } : {}) }, body });
      trail.push(exchange);
      const id = chosen ?? createdId(exchange.response?.json, param, found.pointer);
      if (!is2xx(exchange) || !id) {
        throw new Unmet(`setup: ${producer.operationId} answered ${exchange.response?.status ?? exchange.error?.message} without a record id`);
      }
      // A created id that its reader does not serve would fail the dependant, not the producer: skip instead.
      const reader = readersOfCreated(this.contract, producer).find((r) => r.role !== 'list');
      if (reader?.param) {
        const check = await this.call(reader.operation, { pathParams: { ...ids, [reader.param]: id } });
        trail.push(check);
        const status = check.response?.status;
        const documented = status !== undefined && reader.operation.responses.some((r) => r.status === String(status));
        if (status !== undefined && status >= 400 && status < 500 && documented && !(await this.isMissing(reader.operation, check))) {
          throw new Unmet(`setup: the id ${producer.operationId} answered is not served by ${reader.operation.operationId} (${status}); see ${producer.operationId}'s created-record case`);
        }
      }
      ids[param] = id;
    }
    return ids;
  }

  /** What the relation cases need of the session. */
  private get host(): RelationsHost {
    return {
      contract: this.contract,
      call: (op, request) => this.call(op, request),
      freshIds: (op, trail) => this.buildFixture(op, trail),
      positiveBody: (op) => resolveTemplates(positiveBody(op, this.examples, new Random(`${this.config.seed}:${op.operationId}:related`)), this.scope({})),
    };
  }

  /** Template scope; one-time passwords read through it are kept in `secrets` (the case's flow secrets). */
  private scope(steps: Record<string, unknown>, secrets?: string[]) {
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
    if (!template) throw new Unmet('no OTP source configured (--otp-source-url)');
    const exchange = await this.client.send({
      method: 'GET',
      url: template.replace('{transactionId}', encodeURIComponent(transactionId)),
      headers: this.headers('valid', false),
    });
    const json = exchange.response?.json;
    const value =
      typeof json === 'object' && json !== null
        ? ((json as Record<string, unknown>)['oneTimePassword'] ?? (json as Record<string, unknown>)['otp'])
        : exchange.response?.body.trim();
    if (!is2xx(exchange) || typeof value !== 'string' || value === '') {
      throw new Unmet(`the OTP source answered ${exchange.response?.status ?? exchange.error?.message} with no one-time password`);
    }
    return value;
  }

  private async runSetup(steps: SetupStep[], trail: Exchange[]): Promise<Record<string, unknown>> {
    const results: Record<string, unknown> = {};
    for (const step of steps) {
      const op = this.operation(step.operation);
      const body = await resolveTemplates(step.body, this.scope(results));
      const exchange = await this.call(op, { body, ...(step.query ? { query: step.query } : {}) });
      trail.push(exchange);
      if (!is2xx(exchange)) throw new Unmet(`setup step "${step.as}" (${step.operation}) answered ${exchange.response?.status ?? exchange.error?.message}`);
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
      return { name: planned.name, kind: planned.kind, outcome: 'skipped', skipReason: `not run: --max-failures ${max} reached (${this.failedOperations.size} operations failed)`, durationMs: 0, checks: [], findings: [], exchanges: [] };
    }
    const secrets: string[] = [];
    const result = await this.runPlannedCase(planned, secrets);
    redactFlowSecrets(result.exchanges, secrets);
    if (result.outcome === 'failed' || result.outcome === 'flaky') this.failedOperations.add(planned.operationId);
    // The chain is built from the redacted exchanges, so the script carries no flow secret either.
    return withReproduction(result, this.created, `${planned.operationId} › ${planned.name}`);
  }

  /** Runs one planned case and says what happened. Never throws for the deployment's behaviour. */
  private async runPlannedCase(planned: PlannedCase, secrets: string[]): Promise<CaseResult> {
    const started = performance.now();
    const op = this.operation(planned.operationId);
    const exchanges: Exchange[] = [];
    const result = (over: Partial<CaseResult> & Pick<CaseResult, 'outcome'>): CaseResult => ({
      name: planned.name,
      kind: planned.kind,
      checks: [],
      findings: [],
      exchanges,
      durationMs: Math.round(performance.now() - started),
      ...(exchanges.some((e) => e.retries?.length) ? { retried: true } : {}),
      ...over,
    });
    if (planned.skip) return result({ outcome: 'skipped', skipReason: planned.skip });
    const omitted = planned.omits;
    if (omitted?.in === 'header' && this.config.client?.headers.some((h) => h.name.toLowerCase() === omitted.name.toLowerCase())) {
      return result({ outcome: 'skipped', skipReason: `the header ${omitted.name} goes with every request (-H), so it cannot be left out` });
    }

    const probe = await this.probe(op, planned);
    if (planned.kind === 'presence') {
      exchanges.push(probe);
      const unknownRoute = probe.response ? await this.unknownRoute(op) : undefined;
      return this.judge(op, planned, probe, result, undefined, undefined, undefined, unknownRoute);
    }
    if (probe.response && (await this.isMissing(op, probe))) {
      return result({ outcome: 'skipped', skipReason: 'the operation is missing from the deployment (see its presence case)' });
    }
    try {
      if (planned.expectation === 'ownership') {
        const reads = await readOwnership(this.host, op, exchanges);
        if (!reads[0]) return result({ outcome: 'skipped', skipReason: `${op.operationId} could not be read` });
        return this.judge(op, planned, reads[0].exchange, result, undefined, reads);
      }
      const steps = await this.runSetup(planned.request.setup, exchanges);
      const scope = this.scope(steps, secrets);
      const ids = planned.fixture === 'none' ? {} : await this.fixture(op, planned.fixture === 'fresh', exchanges);
      const pathParams = { ...this.randomIds(op), ...ids, ...planned.request.pathParams };
      const body = await resolveTemplates(planned.request.body, scope);
      const query = (await resolveTemplates(planned.request.query, scope)) as Record<string, unknown>;
      // A positive call sends the real secret in its secret fields (a negative one sends a wrong value).
      if (planned.kind === 'positive') secrets.push(...secretFieldValues(body, this.profileOf(op).secretFields ?? []));
      const request = {
        pathParams,
        query,
        body,
        auth: planned.request.auth,
        ...(planned.request.rawBody ? { rawBody: planned.request.rawBody } : {}),
        ...(planned.request.headers ? { headers: planned.request.headers } : {}),
        ...(planned.request.cookies ? { cookies: planned.request.cookies } : {}),
        ...(planned.request.contentType ? { contentType: planned.request.contentType } : {}),
      };
      if (planned.expectation === 'created-readable') {
        const action = await this.call(op, request);
        exchanges.push(action);
        const reads = await readCreated(this.host, op, pathParams, body, action, exchanges);
        return this.judge(op, planned, action, result, undefined, reads);
      }
      if (planned.kind === 'lifecycle') return await this.lifecycle(op, planned, request, exchanges, result);
      if (planned.kind === 'coverage') return await (planned.name === FUZZ_CASE ? this.fuzz(op, planned, request, exchanges, result) : this.coverage(op, planned, request, exchanges, result));
      const exchange = await this.call(op, request);
      exchanges.push(exchange);
      const judged = this.judge(op, planned, exchange, result, undefined, undefined, { secrets, exchanges });
      if (planned.kind !== 'positive') return judged;
      // Identical calls that disagree make the operation flaky (the counts are reported).
      const policy = repeatPolicy(op, this.profileOf(op));
      if (policy === 'never' || judged.outcome === 'missing' || judged.outcome === 'errored' || (policy === 'on-failure' && judged.outcome !== 'failed')) return judged;
      const attempts = [judged];
      while (attempts.length < ATTEMPTS) {
        const again = await this.call(op, request);
        exchanges.push(again);
        attempts.push(this.judge(op, planned, again, result));
      }
      return combineAttempts(attempts);
    } catch (error) {
      if (error instanceof Unmet || error instanceof RelationUnmet) return result({ outcome: 'skipped', skipReason: error.message });
      throw error;
    }
  }

  private randomIds(op: Operation): Record<string, string> {
    return this.absentIds(op) ?? this.idValues(op, new Random(`${this.config.seed}:${op.operationId}:ids`));
  }

  /**
   * A DELETE that is not part of a lifecycle (presence probe, auth and negative cases) names no record that may
   * exist (an example or random integer id might): its path values are ones no record has, so even a deployment
   * that wrongly lets the call through removes nothing it did not create.
   */
  private absentIds(op: Operation): Record<string, string> | undefined {
    if (op.method !== 'DELETE') return undefined;
    const random = new Random(`${this.config.seed}:${op.operationId}:absent`);
    return Object.fromEntries(pathParamNames(op).map((p) => [p, `conformance-absent-${random.uuid().slice(0, 8)}`]));
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
  private declaredParams(op: Operation, random: Random): { query: Record<string, unknown>; headers: Record<string, string>; cookies: Record<string, string> } {
    const pick = (where: 'query' | 'header' | 'cookie') =>
      Object.fromEntries(op.parameters.filter((p) => p.in === where && p.required).map((p) => [p.name, parameterValue(p, random)]).filter(([, v]) => v !== undefined));
    return { query: pick('query'), headers: stringValues(pick('header')), cookies: stringValues(pick('cookie')) };
  }

  private judge(
    op: Operation,
    planned: PlannedCase,
    exchange: Exchange,
    result: (over: Partial<CaseResult> & Pick<CaseResult, 'outcome'>) => CaseResult,
    lifecycle?: CheckContext['lifecycle'],
    reads?: RelatedRead[],
    flow?: { secrets: string[]; exchanges: Exchange[] },
    unknownRoute?: CheckContext['unknownRoute'],
    coverage?: CheckContext['coverage'],
  ): CaseResult {
    if (!answered(exchange)) {
      if (exchange.error?.kind === 'timeout') {
        const finding: Finding = {
          check: 'response-timeout',
          severity: 'error',
          operationId: op.operationId,
          method: op.method,
          path: op.path,
          message: `No response: ${exchange.error.message}.`,
          expected: `a response within ${this.config.timeoutMs} ms`,
          actual: 'timeout',
        };
        return result({ outcome: 'failed', checks: [{ id: 'response-timeout', status: 'failed' }], findings: [finding] });
      }
      return result({ outcome: 'errored', errorMessage: exchange.error?.message ?? 'no response' });
    }
    let judged: ReturnType<typeof runChecks>;
    try {
      judged = runChecks({
        exchange,
        operation: op,
        profile: this.profileOf(op),
        validator: this.validator,
        expectation: planned.expectation,
        expect: planned.expect,
        ...(lifecycle ? { lifecycle } : {}),
        ...(reads ? { reads } : {}),
        ...(flow ? { secrets: flow.secrets, caseExchanges: flow.exchanges } : {}),
        ...(unknownRoute ? { unknownRoute } : {}),
        ...(coverage ? { coverage } : {}),
        ...(planned.anyClientError ? { anyClientError: true } : {}),
      });
    } catch (error) {
      // The tool cannot judge this response (e.g. a schema ajv cannot compile): not the service's fault.
      if (error instanceof SchemaCompileError) return result({ outcome: 'errored', errorMessage: `${responseLocation(op, exchange.response.status)}: ${error.message}` });
      throw error;
    }
    const { checks, findings } = judged;
    checks.unshift({ id: 'response-timeout', status: 'passed' });
    const failed = findings.some((f) => f.severity === 'error');
    const absent = findings.some((f) => f.check === 'operation-present' && f.severity === 'error');
    const outcome = absent ? 'missing' : failed ? 'failed' : 'passed';
    return result({ outcome, checks, findings });
  }

  /**
   * The coverage phase of one operation: each schema-valid variation of the positive request in turn; the
   * first that answers with a server error is shrunk (optional fields left out, varied values put back) while
   * it still fails, and the smallest failing request is judged. A 4xx is the service's own answer to a value
   * that may be semantically impossible (an unknown id), never a finding here.
   */
  private async coverage(
    op: Operation,
    planned: PlannedCase,
    request: Parameters<Session['call']>[1] & { query: Record<string, unknown> },
    exchanges: Exchange[],
    result: (over: Partial<CaseResult> & Pick<CaseResult, 'outcome'>) => CaseResult,
  ): Promise<CaseResult> {
    const random = new Random(`${this.config.seed}:${op.operationId}:coverage`);
    const variations = coverageVariations(op, request.body, request.query, random, this.config.maxExamples ?? DEFAULT_MAX_EXAMPLES);
    if (variations.length === 0) return result({ outcome: 'skipped', skipReason: 'the contract shows no constraint to vary in this request' });
    const sendOnce = (v: Variation) =>
      this.call(op, { ...request, ...(v.body !== undefined ? { body: v.body } : {}), ...(v.query ? { query: v.query } : {}) });
    // A connection that broke before any answer (a keep-alive socket the server closed, a busy machine) is
    // the network's doing: the variation is sent once more, and the phase goes on to the next ones.
    const send = async (v: Variation): Promise<Exchange> => {
      const first = await sendOnce(v);
      if (first.error?.kind !== 'connection') return first;
      const again = await sendOnce(v);
      return { ...again, retries: [...(first.retries ?? []), { attempt: 1, reason: `connection: ${first.error.message}`, waitedMs: 0 }, ...(again.retries ?? [])] };
    };
    const serverError = (e: Exchange) => e.response !== undefined && e.response.status >= 500;
    let sent = 0;
    let last: Exchange | undefined;
    let unanswered: Exchange | undefined;
    for (const variation of variations) {
      const exchange = await send(variation);
      sent++;
      if (!answered(exchange)) {
        // A request that hangs is a finding; a network failure is not the service's and must not hide a 5xx later on.
        if (exchange.error?.kind === 'timeout') return this.judge(op, planned, exchange, result);
        unanswered ??= exchange;
        continue;
      }
      last = exchange;
      if (!serverError(exchange)) continue;
      // Shrink: keep the first smaller request that still fails, until none does (bounded).
      let current = variation;
      let currentExchange: Exchange = exchange;
      let budget = 25;
      for (let improved = true; improved && budget > 0; ) {
        improved = false;
        for (const step of shrinkSteps(op, current, { body: request.body, query: request.query })) {
          if (budget-- <= 0) break;
          const tried = await send(step);
          sent++;
          if (serverError(tried)) {
            current = step;
            currentExchange = tried;
            improved = true;
            break;
          }
        }
      }
      exchanges.push(exchange);
      if (currentExchange !== exchange) exchanges.push(currentExchange);
      const label = describeVariation(current, { body: request.body, query: request.query });
      return this.judge(op, planned, currentExchange, result, undefined, undefined, undefined, undefined, { label, sent });
    }
    if (unanswered) {
      exchanges.push(unanswered);
      return this.judge(op, planned, unanswered, result);
    }
    if (last) exchanges.push(last);
    return last ? this.judge(op, planned, last, result, undefined, undefined, undefined, undefined, { label: 'coverage', sent }) : result({ outcome: 'skipped', skipReason: 'no coverage request was sent' });
  }

  /** The fuzzing phase (execute/fuzz.ts): random schema-valid requests; the smallest one that fails is judged. */
  private async fuzz(
    op: Operation,
    planned: PlannedCase,
    request: Parameters<Session['call']>[1] & { query: Record<string, unknown>; pathParams: Record<string, string> },
    exchanges: Exchange[],
    result: (over: Partial<CaseResult> & Pick<CaseResult, 'outcome'>) => CaseResult,
  ): Promise<CaseResult> {
    // fast-check is loaded only when a fuzzing case runs (start-up stays lean).
    const { fuzzOperation } = await import('./fuzz.ts');
    const run = await fuzzOperation(op, request, {
      seed: `${this.config.seed}:${op.operationId}`,
      numRuns: this.config.fuzzExamples ?? DEFAULT_FUZZ_EXAMPLES,
      send: (r) =>
        this.call(op, { auth: request.auth ?? 'valid', pathParams: r.pathParams, query: r.query, headers: r.headers, cookies: r.cookies, ...(r.body !== undefined ? { body: r.body } : {}), ...(r.contentType ? { contentType: r.contentType } : {}) }),
    });
    if (run.error) return result({ outcome: 'errored', errorMessage: run.error });
    const shown = run.failing?.exchange ?? run.unanswered ?? run.last;
    if (!shown) return result({ outcome: 'skipped', skipReason: 'no fuzzing request was sent' });
    exchanges.push(shown);
    if (!answered(shown)) return this.judge(op, planned, shown, result);
    return this.judge(op, planned, shown, result, undefined, undefined, undefined, undefined, { label: run.failing ? `fuzzing: ${run.failing.label}` : 'fuzzing', sent: run.sent });
  }

  /** update: PUT then read back; delete: DELETE then read again. Only the lifecycle check judges. */
  private async lifecycle(
    op: Operation,
    planned: PlannedCase,
    request: { pathParams: Record<string, string>; query: Record<string, unknown>; body: unknown; auth: RequestPlan['auth'] },
    exchanges: Exchange[],
    result: (over: Partial<CaseResult> & Pick<CaseResult, 'outcome'>) => CaseResult,
  ): Promise<CaseResult> {
    const reader = readerOf(this.contract, op);
    if (!reader) return result({ outcome: 'skipped', skipReason: `no GET ${op.path} to read the record back` });
    const before = await this.call(reader, { pathParams: request.pathParams });
    exchanges.push(before);
    if (!is2xx(before)) return result({ outcome: 'skipped', skipReason: `${reader.operationId} answered ${before.response?.status ?? before.error?.message} before the ${op.method}` });
    const sent = op.method === 'PUT' ? this.changedBody(request.body, before.response?.json) : undefined;
    // Fields the update does not accept go along, changed: they must be neither applied nor required.
    const notAccepted = op.method === 'PUT' ? notAcceptedOnUpdate(op, reader, before.response?.json) : {};
    const extra = this.changedBody(notAccepted, notAccepted) as Record<string, unknown>;
    const toSend = sent !== undefined && Object.keys(extra).length > 0 && typeof sent === 'object' ? { ...extra, ...(sent as object) } : sent;
    const action = await this.call(op, { ...request, ...(toSend !== undefined ? { body: toSend } : {}) });
    exchanges.push(action);
    if (!is2xx(action)) {
      return result({ outcome: 'skipped', skipReason: `${op.operationId} answered ${action.response?.status ?? action.error?.message} (see its positive case)` });
    }
    const after = await this.call(reader, { pathParams: request.pathParams });
    exchanges.push(after);
    if (!answered(after)) return result({ outcome: 'errored', errorMessage: after.error?.message ?? 'no response' });
    // The chain judges through the reader: a reader that does not conform cannot vouch for the update.
    const untrusted = [before, ...(op.method === 'PUT' ? [after] : [])].find((e) => !this.conforms(reader, e));
    if (untrusted) {
      return result({ outcome: 'skipped', skipReason: `${reader.operationId} does not conform (see its cases), so it cannot show whether ${op.operationId} worked` });
    }
    if (!answered(action)) return result({ outcome: 'errored', errorMessage: 'no response' });
    // A deleted record is gone from its parent's list too.
    const list = op.method === 'DELETE' ? listOf(this.contract, op) : undefined;
    const reads: RelatedRead[] = [];
    const deletedId = pathParamNames(op).at(-1);
    if (list && deletedId) {
      const listed = await this.call(list, { pathParams: request.pathParams });
      exchanges.push(listed);
      if (answered(listed)) reads.push({ operation: list, role: 'list', exchange: listed, id: request.pathParams[deletedId] ?? '', parentIds: request.pathParams });
    }
    return this.judge(op, planned, action, result, { sent, readBack: after, ...(Object.keys(notAccepted).length > 0 ? { notAccepted } : {}) }, reads);
  }

  /** True when a successful exchange of the operation passes every check that applies to a success. */
  private conforms(op: Operation, exchange: Exchange): boolean {
    if (!answered(exchange)) return false;
    try {
      const { findings } = runChecks({ exchange, operation: op, profile: this.profileOf(op), validator: this.validator, expectation: 'success', expect: [] });
      return !findings.some((f) => f.severity === 'error');
    } catch (error) {
      if (error instanceof SchemaCompileError) return false;
      throw error;
    }
  }

  /** The update body with every value made different from what the record holds now (so a no-op update shows). */
  private changedBody(body: unknown, current: unknown): unknown {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    const now = (typeof current === 'object' && current !== null ? current : {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      if (now[k] !== v) out[k] = v;
      else if (typeof v === 'boolean') out[k] = !v;
      else if (typeof v === 'number') out[k] = v + 1;
      else if (typeof v === 'string') out[k] = `${v}-changed`;
      else out[k] = v;
    }
    return out;
  }
}
