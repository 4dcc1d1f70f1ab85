import { capRecorded, capResponse } from '../report/assemble.ts';
import { randomBytes } from 'node:crypto';
import { SchemaValidator } from '../checks/schema.ts';
import { defaultClientOptions } from '../http/client-options.ts';
import { GatewayClient } from '../http/gateway-client.ts';
import type { CaseResult, CatalogGroups, Contract, Exchange, Finding, LeftBehindRecord, Operation, TargetDown } from '../model.ts';
import { isSafe, pathParamNames, planOperation, type OperationPlan, type PlannedCase } from '../plan/cases.ts';
import { executionOrder, planOptionsOf } from '../plan/options.ts';
import { producerFor } from '../plan/resources.ts';
import type { Examples } from '../description/examples.ts';
import { loadExamples } from '../description/examples.ts';
import { loadContract } from '../description/load.ts';
import type { Profile } from '../description/profile.ts';
import { loadProfiles, profileFor, type Profiles } from '../description/profiles.ts';
import { Caller } from './caller.ts';
import { CaseRun, type CaseHost } from './case-run.ts';
import { CreatedRecords, withFindingCurls, withReproduction } from './chain.ts';
import { CleanUp } from './records/clean-up.ts';
import type { RunConfig } from './config.ts';
import { Fixtures } from './records/fixtures.ts';
import { issuedCredentials, redactFindingSecrets, redactFlowSecrets } from './flow-secrets.ts';
import { Evidence, judge, type JudgeInput } from './judge.ts';
import { freeString, pathSchema } from './records/path-values.ts';
import { runPhase } from './phases/index.ts';
import type { PhaseContext, PhaseJudging } from './phases/host.ts';
import { PresenceProofs } from './presence-proofs.ts';
import { askCatalogGroups } from './catalog-groups.ts';
import type { Catalog } from '../description/catalog.ts';
import { RequestBuilder, type CallRequest } from './request-builder.ts';
import { selectOperations } from './select.ts';
import { SetupSteps } from './setup-steps.ts';
import { Skip } from './skip.ts';
import { ValuePool } from './records/value-pool.ts';
import { Slots } from './slots.ts';
import { MadeRecords, withRecordJson } from './records/made.ts';
import { identityCredentials } from './identities.ts';
import type { RefusedCredential } from './diagnose.ts';

export { responseLocation } from './judge.ts';
export { TIMEOUTS_PER_OPERATION } from './caller.ts';
export { otpValueOf } from './setup-steps.ts';

/**
 * From this many selected operations a run sends its requests on a worker thread (transport.ts): the planning and
 * judging of many operations keep this thread busy, and sending beside them on another core is faster (2,770
 * operations against a fast local server: 56 s instead of 64, medians of three alternated runs; 80 operations: 6.2
 * s instead of 6.0, within the spread). A smaller run waits on its answers more than it works, and the hand-over to
 * the thread and back is time added to every one (the seed's 22 operations: 3.0 s instead of 2.9).
 */
export const WORKER_FROM_OPERATIONS = 50;

/** The kinds of case a path value the route took may run (runsOnRouteValues). */
const ROUTE_VALUE_KINDS = new Set(['positive', 'negative', 'auth', 'coverage']);

export type { Presence } from './phases/host.ts';

/**
 * One conformance run against one deployment: ties its collaborators together and turns each case into a
 * CaseResult. The caller (caller.ts) sends, the presence proofs (presence-proofs.ts) say what is served, the
 * fixtures (records/fixtures.ts) make and find the records cases need, the clean-up (records/clean-up.ts) keeps the ledger of
 * what the run made and deletes it at the end; the session judges every answer with the one judge, keeps the
 * values it sees in a value pool, and hands the phases (execute/phases/) a context of these parts.
 */
export class Session implements CaseHost, PhaseJudging {
  readonly validator: SchemaValidator;
  /** The profile of the contract's first service (each operation is judged by profileOf). */
  readonly profile: Profile;
  readonly builder: RequestBuilder;
  readonly pool = new ValuePool();
  /** The secrets the run obtained out of band (one-time passwords read from the OTP source): raw, never reported. */
  readonly outOfBand = new Set<string>();
  private readonly client: GatewayClient;
  private readonly created = new CreatedRecords();
  /** Every record a create of the run made, whichever case sent it (records/made.ts). */
  readonly made: MadeRecords;
  private readonly byId: Map<string, Operation>;
  readonly caller: Caller;
  readonly presence: PresenceProofs;
  readonly fixtures: Fixtures;
  readonly ledger: CleanUp;
  /** What the phases are handed: the run's parts by name. */
  private readonly context: PhaseContext;
  /** What operations answered to calls made by other operations' cases (setup calls, reads, clean-up). */
  private readonly sideEvidence = new Map<string, { evidence: Evidence; started: number }>();
  /** The operations this run (and shard) tests: only their answers to other cases' calls are judged. */
  private selectedIds: Set<string> | undefined;

  private constructor(
    readonly config: RunConfig,
    readonly contract: Contract,
    readonly profiles: Profiles,
    readonly examples: Examples,
  ) {
    /** Connections the pool keeps per origin. */
    const connections = Math.max(2, config.concurrency);
    this.client = new GatewayClient({
      timeoutMs: config.timeoutMs,
      bodyCapBytes: config.bodyCapBytes,
      connections,
      client: config.client ?? defaultClientOptions(config.runId, randomBytes(16).toString('hex')),
      authHeader: profileFor(profiles, contract.services[0]?.id ?? '').auth.header,
      token: { token: config.token },
      ...(config.auth ? { schemeCredentials: config.auth } : {}),
      ...(config.identities?.length ? { identityCredentials: identityCredentials(config.identities) } : {}),
      credentialHeaders: [...new Set(contract.operations.flatMap((o) => (o.auth ?? []).flatMap((s) => (s.kind === 'apiKey' && s.in === 'header' ? [s.parameter] : []))))],
      onToken: (token) => (config.token = token),
      ...(config.obtained?.secrets.length ? { secrets: config.obtained.secrets } : {}),
      ...(config.obtained?.path ? { renewedAt: config.obtained.path } : {}),
      sendOn: selectOperations(contract.operations, config).length >= WORKER_FROM_OPERATIONS ? 'worker' : 'this-thread',
    });
    const slots = new Slots(config.concurrency);
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
    const profileOf = (op: Operation) => this.profileOf(op);
    const { client, builder, pool } = this;
    this.ledger = new CleanUp({ config, contract, profileOf, url: (op, pathParams) => this.url(op, pathParams), call: (op, request) => this.caller.call(op, request), side: (op, exchange) => this.side(op, exchange), follow: (op, pathParams) => this.caller.followKeys(op, pathParams) });
    this.made = new MadeRecords(contract, profileOf);
    this.caller = new Caller({ config, client, builder, slots, connections, profileOf, operationOf: (id) => this.byId.get(id), record: (op, exchange, pathParams, body) => this.record(op, exchange, pathParams, body) });
    const call = (op: Operation, request: CallRequest) => this.caller.call(op, request);
    this.presence = new PresenceProofs({
      config, contract, pool, client, builder, caseHost: this, profileOf, call,
      fixture: (op, fresh, run) => this.fixtures.fixture(op, fresh, run),
      forgetFixture: (operationId) => this.fixtures.forget(operationId),
      selected: (op) => this.selected(op),
    });
    const steps = new SetupSteps({ config, examples, pool, profile: this.profile, client, operation: (id) => this.operation(id), learned: (secret) => this.outOfBand.add(secret) });
    this.fixtures = new Fixtures({ config, contract, pool, made: this.made, steps, profileOf, looksUnknown: (op, exchange) => this.presence.looksUnknown(op, exchange), routeTaken: (op) => this.presence.routeTaken(op) });
    this.validator = new SchemaValidator(contract.services.flatMap((s) => (s.validationDocument ? [s.validationDocument] : [])));
    this.context = { config, contract, examples, pool, caller: this.caller, presence: this.presence, fixtures: this.fixtures, ledger: this.ledger, judging: this };
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
    this.caller.abortInFlight();
  }

  /** The plans of the operations selected by --include/--exclude/--shard, in canonical order. */
  plans(): OperationPlan[] {
    const options = planOptionsOf(this.config);
    return executionOrder(selectOperations(this.contract.operations, this.config)).map((op) => planOperation(this.contract, op, this.profileOf(op), this.examples, options));
  }

  operation(operationId: string): Operation {
    const op = this.byId.get(operationId);
    if (!op) throw new Error(`The contract describes no operation ${operationId}.`);
    return op;
  }

  url(op: Operation, pathParams: Record<string, string>, query: Record<string, unknown> = {}): string {
    return this.builder.url(op, pathParams, query);
  }

  /** Sends one request of an operation with the run's token (the caller: caller.ts). */
  call(op: Operation, request: CallRequest): Promise<Exchange> {
    return this.caller.call(op, request);
  }

  /** The catalog's groups the contract describes no path of, each asked at its prefix (catalog-groups.ts). */
  askCatalogGroups(catalog: Catalog | undefined): Promise<CatalogGroups | undefined> {
    const { builder } = this;
    return askCatalogGroups(
      {
        contract: this.contract,
        baseUrls: this.config.baseUrls,
        send: (op, url) => this.client.send({ method: 'GET', url, headers: { ...builder.headers('valid', false, op), ...builder.credentials(op, 'valid').headers } }),
        looksUnknown: (op, exchange) => this.presence.looksUnknown(op, exchange),
      },
      catalog,
    );
  }

  /** The first origin that stopped answering, if any. */
  get targetDown(): TargetDown | undefined {
    return this.caller.targetDown;
  }

  /** The security schemes whose credential the deployment refused on every call of the run that carried it. */
  get refusedCredentials(): RefusedCredential[] {
    return this.caller.refusedCredentials;
  }

  /** Whether the run (and shard) tests the operation. */
  private selected(op: Operation): boolean {
    this.selectedIds ??= new Set(selectOperations(this.contract.operations, this.config).map((o) => o.operationId));
    return this.selectedIds.has(op.operationId);
  }

  /**
   * Whatever a create answered with success goes into the cleanup ledger and the run's made records, whichever case
   * sent it; its values into the pool.
   */
  private record(op: Operation, answered: Exchange, pathParams: Record<string, string>, body: unknown): void {
    const exchange = withRecordJson(answered);
    this.created.note(exchange, (id) => this.ledger.records.undoCall(op, pathParams, id));
    this.ledger.records.note(op, exchange, pathParams);
    this.made.note(op, exchange, pathParams, body);
    this.pool.harvest(op, exchange);
  }

  judgeInput(op: Operation): Pick<JudgeInput, 'profile' | 'validator' | 'timeoutMs' | 'bodyCapBytes'> {
    return { profile: this.profileOf(op), validator: this.validator, timeoutMs: this.config.timeoutMs, bodyCapBytes: this.config.bodyCapBytes };
  }

  /**
   * An answer of an operation to a call another operation's case made: judged for that operation, when the
   * run tests it (an operation left out by --include/--exclude/--shard is not reported on).
   */
  side(op: Operation, exchange: Exchange, more: Finding[] = [], extra: Pick<JudgeInput, 'note'> = {}): void {
    if (!this.selected(op)) return;
    // A missing operation's answers, or those of one whose presence no record could prove, are a gateway's.
    const presence = this.presence.stateOf(op.operationId);
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
      const presence = this.presence.stateOf(operationId);
      if (presence === 'missing' || presence === 'unverified') continue;
      // Each finding with the curl line of the call that showed it.
      out.push([
        operationId,
        withoutSecrets(
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
          [],
        ),
      ]);
    }
    this.sideEvidence.clear();
    return out;
  }

  /** Deletes what the run made and did not delete itself (records/clean-up.ts), then closes the run's connections. */
  async cleanup(): Promise<{ deleted: number; failed: number; leftBehind: LeftBehindRecord[] }> {
    const result = await this.ledger.cleanup();
    await this.client.close();
    return result;
  }

  /**
   * Lets go of what the session keeps for an operation whose cases have all finished: its presence probe (the
   * whole exchange, body included) and its shared fixture. Memory then does not grow with the operations run.
   */
  release(operationId: string): void {
    this.presence.release(operationId);
    this.fixtures.forget(operationId);
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
      result = planned.skip && !(await this.runsOnRouteValues(planned)) ? run.skipped(planned.skip, planned.skipKind) : await runPhase(this.context, run, secrets);
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      result = run.skipped(error.message, error.kind);
    }
    // The records this case made are done with: another case may take one (MadeRecords.take).
    this.made.settle(run.writes);
    result = withoutSecrets(result, secrets);
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
    const probe = await this.presence.probe(op, planned);
    if (probe.response) await this.presence.presenceOf(op, probe);
    const taken = this.presence.routeTaken(op);
    return taken !== undefined && names.every((name) => name in taken);
  }

  /** True when a successful exchange of the operation passes every check that applies to a success. */
  conforms(op: Operation, exchange: Exchange): boolean {
    const judged = judge({ operation: op, exchange, ...this.judgeInput(op), intent: 'success' });
    return judged.outcome === 'passed';
  }
}

export type { Finding };

/**
 * The case with no secret left in its exchanges and findings: the flow's own (`secrets`) and every credential the
 * API issued in its answers (a registration of an account the run made up answers that account's token).
 */
function withoutSecrets(result: CaseResult, secrets: readonly string[]): CaseResult {
  const all = [...secrets, ...issuedCredentials(result.exchanges)];
  redactFlowSecrets(result.exchanges, all);
  return all.length > 0 ? { ...result, findings: redactFindingSecrets(result.findings, all) } : result;
}
