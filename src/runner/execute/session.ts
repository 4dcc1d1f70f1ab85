import { randomBytes } from 'node:crypto';
import { answersAsUnknownRoute } from '../checks/operation-present.ts';
import { runChecks } from '../checks/registry.ts';
import { SchemaValidator } from '../checks/schema.ts';
import type { CheckContext } from '../checks/types.ts';
import { defaultClientOptions } from '../http/client-options.ts';
import { GatewayClient } from '../http/gateway-client.ts';
import type { CaseResult, Contract, Exchange, Finding, Operation, RecordedResponse } from '../model.ts';
import {
  pathParamNames,
  planOperation,
  positiveBody,
  producerOf,
  readerOf,
  type OperationPlan,
  type PlannedCase,
  type RequestPlan,
} from '../plan/cases.ts';
import { Random } from '../plan/random.ts';
import type { Examples, SetupStep } from '../spec/examples.ts';
import { loadExamples } from '../spec/examples.ts';
import { loadContract } from '../spec/load.ts';
import { loadProfile, sideEffectOf, type Profile } from '../spec/profile.ts';
import type { RunConfig } from './config.ts';
import { createdIds } from './created.ts';
import { selectOperations } from './select.ts';
import { resolveTemplates } from './templates.ts';

type Answered = Exchange & { response: RecordedResponse };

/** A case cannot run because something it needs first did not work; the case is skipped with this reason. */
class Unmet extends Error {}

interface LedgerEntry {
  undo: Operation;
  pathParams: Record<string, string>;
  done: boolean;
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
  readonly validator = new SchemaValidator();
  private readonly client: GatewayClient;
  private readonly presence = new Map<string, Promise<Exchange>>();
  private readonly fixtures = new Map<string, Promise<Record<string, string>>>();
  private readonly ledger: LedgerEntry[] = [];
  private readonly byId: Map<string, Operation>;

  private constructor(
    readonly config: RunConfig,
    readonly contract: Contract,
    readonly profile: Profile,
    readonly examples: Examples,
  ) {
    this.client = new GatewayClient({
      timeoutMs: config.timeoutMs,
      bodyCapBytes: config.bodyCapBytes,
      connections: Math.max(2, config.concurrency),
      client: config.client ?? defaultClientOptions(config.runId, randomBytes(16).toString('hex')),
      authHeader: profile.auth.header,
      token: { token: config.token },
      onToken: (token) => (config.token = token),
    });
    this.byId = new Map(contract.operations.map((o) => [o.operationId, o]));
  }

  static async create(config: RunConfig): Promise<Session> {
    const [contract, profile, examples] = await Promise.all([
      loadContract(config.contractFiles),
      loadProfile(config.profileFile),
      loadExamples(config.examplesFile),
    ]);
    return new Session(config, contract, profile, examples);
  }

  /** A session over an already loaded contract, profile and examples (the CLI has loaded them). */
  static from(config: RunConfig, contract: Contract, profile: Profile, examples: Examples): Session {
    return new Session(config, contract, profile, examples);
  }

  /** Ends the requests in flight at once (an interrupted run); later requests are sent as usual. */
  abortInFlight(): void {
    this.client.abortInFlight();
  }

  /** The plans of the operations selected by --include/--exclude/--shard, in canonical order. */
  plans(): OperationPlan[] {
    const options = {
      seed: this.config.seed,
      readOnly: this.config.readOnly,
      allowIrreversible: this.config.allowIrreversible,
      otpSource: this.config.otpSourceUrl !== undefined,
    };
    return selectOperations(this.contract.operations, this.config).map((op) =>
      planOperation(this.contract, op, this.profile, this.examples, options),
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
      if (v !== undefined) search.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    const qs = search.toString();
    return `${base.replace(/\/+$/, '')}${path}${qs ? `?${qs}` : ''}`;
  }

  headers(auth: RequestPlan['auth'], hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (hasBody) headers['content-type'] = 'application/json';
    const name = this.profile.auth.header.toLowerCase();
    if (auth === 'valid') headers[name] = `Bearer ${this.config.token}`;
    else if (auth === 'malformed') headers[name] = 'Bearer not a valid token';
    else if (auth === 'wrong') headers[name] = `Bearer ${randomBytes(24).toString('hex')}`;
    return headers;
  }

  /** Sends one request of an operation with the run's token. */
  async call(op: Operation, request: { pathParams?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; rawBody?: string; auth?: RequestPlan['auth'] }): Promise<Exchange> {
    const body = request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    const exchange = await this.client.send({
      method: op.method,
      url: this.url(op, request.pathParams ?? {}, request.query),
      headers: this.headers(request.auth ?? 'valid', body !== undefined),
      ...(body !== undefined ? { body } : {}),
    });
    this.record(op, exchange, request.pathParams ?? {});
    return exchange;
  }

  /** Whatever a create answered with success goes into the cleanup ledger, whichever case sent it. */
  private record(op: Operation, exchange: Exchange, pathParams: Record<string, string>): void {
    const effect = sideEffectOf(this.profile, op.operationId);
    if (effect?.class !== 'reversible' || !effect.undo || !is2xx(exchange)) return;
    const id = createdIds(exchange.response?.json)[0];
    const undo = this.byId.get(effect.undo);
    if (!id || !undo) return;
    const last = pathParamNames(undo).at(-1);
    if (!last) return;
    this.ledger.push({ undo, pathParams: { ...pathParams, [last]: id }, done: false });
  }

  private markDeleted(op: Operation, pathParams: Record<string, string>): void {
    for (const entry of this.ledger) {
      if (entry.undo.path === op.path && Object.entries(entry.pathParams).every(([k, v]) => pathParams[k] === v)) entry.done = true;
    }
  }

  /** Deletes everything the run created, newest first, whatever failed before. */
  async cleanup(): Promise<{ deleted: number; failed: number }> {
    let deleted = 0;
    let failed = 0;
    for (const entry of [...this.ledger].reverse()) {
      if (entry.done) continue;
      const exchange = await this.client.send({
        method: entry.undo.method,
        url: this.url(entry.undo, entry.pathParams),
        headers: this.headers('valid', false),
      });
      entry.done = true;
      if (is2xx(exchange)) deleted++;
      else failed++;
    }
    await this.client.close();
    return { deleted, failed };
  }

  get ledgerSize(): number {
    return this.ledger.length;
  }

  // ------------------------------------------------------------------------------------------------------
  // Presence and fixtures

  probe(op: Operation, plan: PlannedCase): Promise<Exchange> {
    let probe = this.presence.get(op.operationId);
    if (!probe) {
      const random = new Random(`${this.config.seed}:${op.operationId}:presence`);
      const pathParams = Object.fromEntries(pathParamNames(op).map((p) => [p, random.uuid()]));
      probe = this.call(op, { ...plan.request, pathParams, ...(plan.request.rawBody ? { rawBody: plan.request.rawBody } : {}) });
      this.presence.set(op.operationId, probe);
    }
    return probe;
  }

  isMissing(exchange: Exchange): boolean {
    return exchange.response !== undefined && answersAsUnknownRoute(exchange.response, this.profile);
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
      const producer = producerOf(this.contract, op, param);
      if (!producer) throw new Unmet(`no described operation creates the record for {${param}}`);
      const random = new Random(`${this.config.seed}:${producer.operationId}:fixture:${trail.length}`);
      const body = await resolveTemplates(positiveBody(producer, this.examples, random), this.scope({}));
      const exchange = await this.call(producer, { pathParams: { ...ids }, body });
      trail.push(exchange);
      const id = createdIds(exchange.response?.json)[0];
      if (!is2xx(exchange) || !id) {
        throw new Unmet(`setup: ${producer.operationId} answered ${exchange.response?.status ?? exchange.error?.message} without a record id`);
      }
      ids[param] = id;
    }
    return ids;
  }

  private scope(steps: Record<string, unknown>) {
    return { unique: `${this.config.runId}-${randomBytes(3).toString('hex')}`, steps, otp: (tx: string) => this.readOtp(tx) };
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
    const result = await this.runPlannedCase(planned);
    if (result.outcome === 'failed') this.failedOperations.add(planned.operationId);
    return result;
  }

  /** Runs one planned case and says what happened. Never throws for the deployment's behaviour. */
  private async runPlannedCase(planned: PlannedCase): Promise<CaseResult> {
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

    const probe = await this.probe(op, planned);
    if (planned.kind === 'presence') {
      exchanges.push(probe);
      return this.judge(op, planned, probe, result);
    }
    if (probe.response && this.isMissing(probe)) {
      return result({ outcome: 'skipped', skipReason: 'the operation is missing from the deployment (see its presence case)' });
    }
    try {
      const steps = await this.runSetup(planned.request.setup, exchanges);
      const scope = this.scope(steps);
      const ids = planned.fixture === 'none' ? {} : await this.fixture(op, planned.fixture === 'fresh', exchanges);
      const pathParams = { ...this.randomIds(op), ...ids, ...planned.request.pathParams };
      const body = await resolveTemplates(planned.request.body, scope);
      const query = (await resolveTemplates(planned.request.query, scope)) as Record<string, unknown>;
      const request = { pathParams, query, body, auth: planned.request.auth, ...(planned.request.rawBody ? { rawBody: planned.request.rawBody } : {}) };
      if (planned.kind === 'lifecycle') return await this.lifecycle(op, planned, request, exchanges, result);
      const exchange = await this.call(op, request);
      exchanges.push(exchange);
      if (op.method === 'DELETE' && is2xx(exchange)) this.markDeleted(op, pathParams);
      return this.judge(op, planned, exchange, result);
    } catch (error) {
      if (error instanceof Unmet) return result({ outcome: 'skipped', skipReason: error.message });
      throw error;
    }
  }

  private randomIds(op: Operation): Record<string, string> {
    const random = new Random(`${this.config.seed}:${op.operationId}:ids`);
    return Object.fromEntries(pathParamNames(op).map((p) => [p, random.uuid()]));
  }

  private judge(
    op: Operation,
    planned: PlannedCase,
    exchange: Exchange,
    result: (over: Partial<CaseResult> & Pick<CaseResult, 'outcome'>) => CaseResult,
    lifecycle?: CheckContext['lifecycle'],
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
    const { checks, findings } = runChecks({
      exchange,
      operation: op,
      profile: this.profile,
      validator: this.validator,
      expectation: planned.expectation,
      expect: planned.expect,
      ...(lifecycle ? { lifecycle } : {}),
    });
    checks.unshift({ id: 'response-timeout', status: 'passed' });
    const failed = findings.some((f) => f.severity === 'error');
    const absent = findings.some((f) => f.check === 'operation-present' && f.severity === 'error');
    const outcome = absent ? 'missing' : failed ? 'failed' : 'passed';
    return result({ outcome, checks, findings });
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
    const action = await this.call(op, { ...request, ...(sent !== undefined ? { body: sent } : {}) });
    exchanges.push(action);
    if (!is2xx(action)) {
      return result({ outcome: 'skipped', skipReason: `${op.operationId} answered ${action.response?.status ?? action.error?.message} (see its positive case)` });
    }
    if (op.method === 'DELETE') this.markDeleted(op, request.pathParams);
    const after = await this.call(reader, { pathParams: request.pathParams });
    exchanges.push(after);
    if (!answered(after)) return result({ outcome: 'errored', errorMessage: after.error?.message ?? 'no response' });
    // The chain judges through the reader: a reader that does not conform cannot vouch for the update.
    const untrusted = [before, ...(op.method === 'PUT' ? [after] : [])].find((e) => !this.conforms(reader, e));
    if (untrusted) {
      return result({ outcome: 'skipped', skipReason: `${reader.operationId} does not conform (see its cases), so it cannot show whether ${op.operationId} worked` });
    }
    if (!answered(action)) return result({ outcome: 'errored', errorMessage: 'no response' });
    return this.judge(op, planned, action, result, { sent, readBack: after });
  }

  /** True when a successful exchange of the operation passes every check that applies to a success. */
  private conforms(op: Operation, exchange: Exchange): boolean {
    if (!answered(exchange)) return false;
    const { findings } = runChecks({ exchange, operation: op, profile: this.profile, validator: this.validator, expectation: 'success', expect: [] });
    return !findings.some((f) => f.severity === 'error');
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
