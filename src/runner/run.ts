import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { request } from './http/undici.ts';
import { RUN_ID_HEADER, type ClientOptions } from './http/client-options.ts';
import { buildDispatcher } from './http/dispatcher.ts';
import { collectNow, limitHeapGrowth } from './http/large-bodies.ts';
import { runTokenCommand, TokenCommandError } from './http/token-command.ts';
import { CHECKS } from './checks/registry.ts';
import type { RunConfig } from './execute/config.ts';
import { runScenarios, type ScenarioRun } from './execute/scenarios.ts';
import { schedule, type Scheduler } from './execute/scheduler.ts';
import { matchesSelector, selectOperations } from './execute/select.ts';
import { Session, WORKER_FROM_OPERATIONS } from './execute/session.ts';
import { executionOrder, planOptionsOf } from './plan/options.ts';
import type { AuthScheme, CaseResult, Contract, Operation, OperationResult, RunResults } from './model.ts';
import { defaultFuzzExamples, defaultSequences, planOperation } from './plan/cases.ts';
import { assembleOperations, compactCase } from './report/assemble.ts';
import { SharedValues } from './report/case-memory.ts';
import { openSpool, type CaseSpool } from './report/case-spool.ts';
import { limitEvidence } from './report/evidence-limit.ts';
import { reportFinished, type Reporter } from './report/reporter.ts';
import { countOutcomes, exitCodeOf, summarise } from './report/outcomes.ts';
import { contractHash } from './report/run-identity.ts';
import { diagnoseResults, preflightCredentials, preflightOperations } from './execute/diagnose.ts';
import { applyWaivers, loadWaivers, localDate, type Waiver } from './report/waivers.ts';
import { baselineExitCode, baselineLine, compareWithBaseline } from './report/baseline.ts';
import { coverage, loadCatalog, notDescribedResults, type Catalog } from './description/catalog.ts';
import { InputError } from './description/errors.ts';
import { loadExamples } from './description/examples.ts';
import { loadContract, loadDescription, describe as describeApi } from './description/load.ts';
import { loadProfiles, profileFor, type Profiles } from './description/profiles.ts';
import type { Profile } from './description/profile.ts';
import { baseUrlOptionOf, fromPacks, packsFor, type Pack, type PackReference } from './pack.ts';
import { later, ReachabilityProbes, surelyNeeded } from './cli/early-probes.ts';
import { ROOT, toolIdentity } from './cli/paths.ts';
import { baseUrlProblem } from './cli/base-url.ts';

export { ROOT } from './cli/paths.ts';

export interface RunOptions {
  specs: string[];
  /** The packs the run may draw on (src/runner/pack.ts): only those whose services the contract holds apply. */
  packs?: readonly Pack[];
  /** Profile file or 'generic' (default: the profile of the pack that applies, else the generic one). */
  profile?: string;
  /** Examples, catalog, waivers (default: the applying pack's, else none). */
  examples?: string;
  catalog?: string;
  waivers?: string;
  /** --base-url: the contract's only service, else the applying pack's primary one, else the contract's first. */
  baseUrl?: string;
  /** Base URL per service id. No base URL at all: the applying pack's reference deployment. */
  servers: Record<string, string>;
  token?: string;
  /** Credentials by security scheme name (--auth NAME=value): an apiKey's key, basic's user:password, a bearer token. */
  auth?: Record<string, string>;
  timeoutMs: number;
  /** Bytes of each answer read and judged (--max-body-size; default 1 MiB). */
  maxBodyBytes?: number;
  concurrency: number;
  include: string[];
  exclude: string[];
  readOnly: boolean;
  allowIrreversible: boolean;
  otpSourceUrl?: string;
  out: string;
  seed: number;
  maxExamples?: number;
  fuzzExamples?: number;
  /** Sequences of the stateful phase per operation (default: 3, fewer past 3,000 in a run, at least 1). */
  sequences?: number;
  shard?: { index: number; count: number };
  failOn: 'error' | 'warning';
  /** --fail-on untested: an untested operation fails the run. */
  failOnUntested?: boolean;
  quiet: boolean;
  deploymentSpec?: string;
  /** results.json of an earlier run (or its directory): fail only on what is new against it. */
  baseline?: string;
  /** Keep the exchanges of passed cases in the reports (default: a passed case keeps only its summary). */
  keepPassedExchanges?: boolean;
  /** Headers, proxy, TLS, retries, rate limit, token command, run id (see http/client-options.ts). */
  client?: ClientOptions;
  /** Unique id of the run, sent with every request. */
  runId?: string;
  /** Stop running cases once this many operations have failed. */
  maxFailures?: number;
  /** Directories of the user's own scenario suites, run with the bundled ones. */
  suites?: string[];
  /** Who hears of the run: progress, notices, the final results (report/reporter.ts), in order. */
  reporters?: Reporter[];
  /** Aborted: the run stops starting cases, cleans up and reports what was measured (interrupted). */
  signal?: AbortSignal;
}

export interface RunOutcome {
  exitCode: 0 | 1 | 2;
  /**
   * The final results, as the reporters had them: the curl lines and reproduction scripts of the generated cases
   * were on disk (the reporters read them back, report/case-spool.ts) and are gone with the spool file.
   */
  results?: RunResults;
  message?: string;
}

const TOOL = toolIdentity();

/** Bytes of each answer read and judged unless --max-body-size says otherwise. */
const DEFAULT_BODY_CAP = 1024 * 1024;

/** Cases between two full collections during a run. */
const COLLECT_EVERY = 10_000;

/** Runs the conformance suites against a deployment (or the embedded reference service) and writes reports. */
export async function runConformance(options: RunOptions): Promise<RunOutcome> {
  const reporters = options.reporters ?? [];
  // What can be judged without the contract is judged before it loads (a malformed base URL, no token), and the
  // reachability probe of each target the run surely needs leaves meanwhile (cli/early-probes.ts).
  const packs = options.packs ?? [];
  const given = Object.keys(options.servers).length > 0 || options.baseUrl !== undefined;
  if (given) {
    if (options.baseUrl !== undefined) {
      const bad = baseUrlProblem(options.baseUrl);
      if (bad) throw new InputError(`--base-url: ${bad}`);
    }
    for (const [id, url] of Object.entries(options.servers)) {
      const bad = baseUrlProblem(url);
      if (bad) throw new InputError(`${baseUrlOptionOf(packs, id, undefined)}: ${bad}`);
    }
  }
  // The embedded service is on this machine: never through a proxy, never with the user's token command.
  const client: ClientOptions | undefined =
    !given && options.client ? { ...options.client, httpProxy: '', httpsProxy: '', tokenCommand: undefined } as ClientOptions : options.client;
  if (client && client.tokenCommand === undefined) delete client.tokenCommand;
  let embedded: PackReference | undefined;
  let starting: Promise<PackReference> | undefined;
  let dispatcher: Dispatcher | undefined;
  let spool: CaseSpool | undefined;
  const config0RunId = options.runId ?? `conf${Date.now().toString(36)}`;
  // Aborted before a case runs (while probing, starting the reference deployment, checking the credentials): the
  // run waits on none of it. Once cases run, the scheduler stops starting them (below) and the reports are written.
  const abortedEarly = new Promise<never>((_resolve, reject) => {
    if (options.signal?.aborted) reject(new RunInterrupted());
    options.signal?.addEventListener('abort', () => reject(new RunInterrupted()), { once: true });
  });
  abortedEarly.catch(() => undefined);
  const early = <T>(step: Promise<T>): Promise<T> => Promise.race([step, abortedEarly]);
  try {
    dispatcher = buildClientDispatcher({ ...options, ...(client ? { client } : {}) });
    const probes = new ReachabilityProbes((url) => assertReachable(url, options.timeoutMs, dispatcher!, probeHeaders(client, config0RunId)));
    const embeddedToken = given ? undefined : randomBytes(24).toString('base64url');
    let fromCommand: Promise<string> | undefined;
    // The pack whose default contract this is (no --spec) is known before the contract loads.
    const owner = packs.find((p) => p.startReference && (p.contracts ?? []).length > 0 && (p.contracts ?? []).every((c) => options.specs.includes(c)));
    if (given) {
      for (const [id, url] of Object.entries(options.servers)) if (surelyNeeded(id, options)) probes.start(url);
      if (options.baseUrl !== undefined && options.include.length === 0 && options.exclude.length === 0) probes.start(options.baseUrl);
      if (!options.token && client?.tokenCommand) fromCommand = later(initialToken(client.tokenCommand));
    } else if (owner) {
      // No base URL: the pack's reference deployment starts while the contract loads (closed below if unused).
      starting = later(startReference(owner, embeddedToken!, probes));
    }

    // The local inputs are read and judged before the probes' answers are looked at: a missing file, bad YAML, a
    // Swagger 2.0 file or a dangling $ref is said as such whatever the network does (an unreachable target only
    // once everything local is right). The probes are under way meanwhile.
    const contract = await loadContract(options.specs);
    for (const warning of contract.services.flatMap((s) => s.warnings ?? [])) for (const r of reporters) r.notice?.(`conformance: warning: ${warning}`);
    // A pack applies only to its own contracts: nothing of it shows in a run of another description.
    const applying = packsFor(packs, contract.services);
    const profileFile = options.profile ?? fromPacks(applying, 'profile') ?? 'generic';
    const examplesFile = options.examples ?? fromPacks(applying, 'examples');
    const catalogFile = options.catalog ?? fromPacks(applying, 'catalog');
    const waiversFile = options.waivers ?? fromPacks(applying, 'waivers');
    const profiles = await loadProfiles(profileFile, contract);
    const examples = await loadExamples(examplesFile);
    const catalog: Catalog | undefined = catalogFile ? await loadCatalog(catalogFile) : undefined;
    const waivers: Waiver[] = waiversFile ? await loadWaivers(waiversFile, { knownChecks: [...CHECKS.keys(), 'response-timeout'] }) : [];
    const baseline = options.baseline ? await (await import('./report/baseline-file.ts')).readBaseline(options.baseline) : undefined;
    // A deployment description on disk is a local input too; one behind a URL is fetched once the target answered.
    const localDeploymentDiff = options.deploymentSpec && !/^https?:\/\//i.test(options.deploymentSpec) ? await diffDeployment(contract, options.deploymentSpec) : undefined;
    for (const pattern of [...options.include, ...options.exclude]) {
      if (!contract.operations.some((o) => matchesSelector(o, pattern))) {
        throw new InputError(`--include/--exclude "${pattern}" matches no operation of the contract (selectors: operationId, group, service, tag:NAME, method, path glob)`);
      }
    }

    let token = options.token;
    const primary = primaryService(contract, applying);
    let servers = withBaseUrl(options.servers, options.baseUrl, primary);
    let otpSourceUrl = options.otpSourceUrl;
    let allowIrreversible = options.allowIrreversible;
    const reference = owner ?? applying.find((p) => p.startReference);
    if (!given && !reference) {
      throw new InputError('no base URL: pass --base-url <url> (or --server <id>=<url>); no reference deployment serves this contract');
    }
    if (!given) {
      embedded = await early(starting ?? startReference(reference!, embeddedToken!, probes));
      token = embeddedToken;
      servers = { ...embedded.baseUrls };
      if (embedded.otpSourceUrl) otpSourceUrl ??= embedded.otpSourceUrl;
      allowIrreversible = true;
    }
    // Credentials only where a selected operation needs them (checked below, once the selection is known).
    const schemeAuth = given ? (options.auth ?? {}) : {};
    const unknownSchemes = Object.keys(schemeAuth).filter((name) => !contract.operations.some((o) => (o.auth ?? []).some((s) => s.name === name)));
    if (unknownSchemes.length > 0) {
      const known = [...new Set(contract.operations.flatMap((o) => (o.auth ?? []).map((s) => s.name)))];
      throw new InputError(`--auth names no security scheme the contract's operations use: ${unknownSchemes.join(', ')} (${known.length > 0 ? `schemes: ${known.join(', ')}` : 'they declare none the tool can send'})`);
    }
    // Only the services the selection touches need a base URL (--include <service> runs alone).
    const needed = contract.services.filter((s) =>
      contract.operations.some(
        (o) =>
          o.service === s.id &&
          (options.include.length === 0 || options.include.some((p) => matchesSelector(o, p))) &&
          !options.exclude.some((p) => matchesSelector(o, p)),
      ),
    );
    for (const service of needed) {
      if (!servers[service.id]) {
        const named = baseUrlOptionOf(applying, service.id, undefined);
        throw new InputError(`no base URL for service "${service.id}": pass --server ${service.id}=<url>${named.startsWith('--server') ? '' : ` (or ${named})`}${service.id === primary ? ' (or --base-url)' : ''}`);
      }
    }
    const unknown = Object.keys(servers).filter((id) => !contract.services.some((s) => s.id === id));
    if (unknown.length > 0) throw new InputError(`--server names no service of the contract: ${unknown.join(', ')}`);
    // The credentials the selection needs, before the network is waited on.
    const chosen = selectOperations(contract.operations, { include: options.include, exclude: options.exclude, ...(options.shard ? { shard: options.shard } : {}) });
    if (!token && fromCommand && chosen.some((op) => wantsToken(op, profileFor(profiles, op.service), schemeAuth))) token = await early(fromCommand);
    const missingCredential = token ? undefined : credentialMissing(chosen, profiles, schemeAuth);
    if (missingCredential) throw new InputError(missingCredential);
    await early(Promise.all(needed.map((s) => probes.result(servers[s.id]!))));

    const otpFields = fromPacks(applying, 'otpFields');
    const config: RunConfig = {
      contractFiles: options.specs,
      profileFile: profileFile,
      ...(examplesFile ? { examplesFile } : {}),
      ...(otpFields ? { otpFields } : {}),
      baseUrls: servers,
      token: token ?? '',
      ...(Object.keys(schemeAuth).length > 0 ? { auth: schemeAuth } : {}),
      timeoutMs: options.timeoutMs,
      concurrency: options.concurrency,
      bodyCapBytes: options.maxBodyBytes ?? DEFAULT_BODY_CAP,
      readOnly: options.readOnly,
      allowIrreversible,
      ...(otpSourceUrl ? { otpSourceUrl } : {}),
      seed: options.seed,
      ...(options.maxExamples !== undefined ? { maxExamples: options.maxExamples } : {}),
      ...(options.fuzzExamples !== undefined ? { fuzzExamples: options.fuzzExamples } : {}),
      ...(options.sequences !== undefined ? { sequences: options.sequences } : {}),
      include: options.include,
      exclude: options.exclude,
      ...(options.shard ? { shard: options.shard } : {}),
      runId: config0RunId,
      ...(client ? { client } : {}),
      ...(options.maxFailures ? { maxFailures: options.maxFailures } : {}),
    };
    // The same selection as `chosen` above (config takes its include, exclude and shard from the options).
    const selected = chosen;
    // Without --fuzz-examples or --sequences: the default budgets of the whole selection (every shard draws as one
    // run would).
    if (config.fuzzExamples === undefined || config.sequences === undefined) {
      const { shard: _shard, ...unsharded } = config;
      const whole = config.shard ? selectOperations(contract.operations, unsharded) : selected;
      config.fuzzExamples ??= defaultFuzzExamples(whole);
      config.sequences ??= defaultSequences(contract, whole);
    }
    const planOptions = planOptionsOf({ ...options, allowIrreversible, otpSourceUrl });
    // Each operation is planned when the scheduler reaches it, and its plan let go once its cases have started.
    const plans = (function* () {
      for (const op of executionOrder(selected)) yield planOperation(contract, op, profileFor(profiles, op.service), examples, planOptions);
    })();
    const deploymentDiff = options.deploymentSpec ? (localDeploymentDiff ?? (await early(diffDeployment(contract, options.deploymentSpec)))) : undefined;

    const startedAt = new Date();
    // Each case goes to disk as it finishes (report/case-spool.ts); memory keeps its summary, and the reporters
    // read back the curl lines and reproduction scripts as they write (the file stays until they are done).
    spool = openSpool(options.out);
    /** The final results from the built ones (synchronous: what it made on the way is garbage once it returns). */
    const judge = (built: RunResults): RunResults => {
      collectNow();
      const checked = built.stopped ? built : { ...built, ...(diagnoseResults(built) ? { stopped: diagnoseResults(built) } : {}) };
      // Each failure shown with its evidence a bounded number of times, read back from the spool.
      const diagnosed = { ...checked, operations: limitEvidence(checked.operations, { ...(spool ? { full: (c: CaseResult) => spool!.full(c), recorded: (c: CaseResult) => spool!.recorded(c) } : {}), unlimited: options.keepPassedExchanges ?? false }) };
      // Hashed at the end, not before the first case (a quarter of a second at 2,770 operations).
      let summarised = summarise(applyWaivers({ ...diagnosed, contract: { ...diagnosed.contract, hash: contractHash(contract) } }, waivers, localDate()));
      if (baseline && options.baseline) summarised = { ...summarised, baseline: compareWithBaseline(summarised, baseline, options.baseline) };
      return summarised;
    };
    // The results are built by `build` and judged in one synchronous step, so that while the reports are written
    // memory holds the final results only, not also the case summaries and copies they were made from.
    const finish = async (build: () => RunResults): Promise<RunResults> => {
      const summarised = judge(build());
      collectNow();
      await reportFinished(reporters, summarised, client ? [`Run id: ${client.runId} (header ${RUN_ID_HEADER}; traceparent trace id ${client.traceId})`] : []);
      spool?.close(true);
      return summarised;
    };
    // Credentials the deployment rejects across the board: stop before the run (reports still written).
    const preflight = (t: string) =>
      preflightCredentials({ operations: preflightOperations(contract, selected).filter((o) => (o.auth ?? []).every((s) => schemeAuth[s.name] === undefined)), baseUrls: servers, token: t, profile: profileFor(profiles, selected[0]?.service ?? contract.services[0]?.id ?? ''), timeoutMs: options.timeoutMs, dispatcher: dispatcher!, headers: probeHeaders(client, config0RunId) });
    let rejected = token ? await early(preflight(token)) : undefined;
    if (rejected && client?.tokenCommand) {
      // An expired token given with --token-command: ask the command for a fresh one before giving up.
      const fresh = await early(initialToken(client.tokenCommand));
      if (fresh !== token) {
        rejected = await early(preflight(fresh));
        if (!rejected) config.token = token = fresh;
      }
    }
    if (rejected) {
      const operations: OperationResult[] = selected.map((op) => ({
        operationId: op.operationId, method: op.method, path: op.path, group: op.group, service: op.service,
        outcome: 'skipped', reason: 'not run: the deployment rejected the credentials', durationMs: 0, cases: [],
      }));
      const final = await finish(() => ({ ...buildResults({ operations, contract, catalog, config, options, embedded: embedded !== undefined, startedAt, interrupted: false, deploymentDiff }), stopped: rejected }));
      return { exitCode: exitCodeOf(final.verdict), results: final, message: `${rejected}; reports written` };
    }
    for (const r of reporters) r.started?.(selected.length);
    // The case summaries stay until the reports: the heap grows by half what survives, not by as much again.
    limitHeapGrowth();
    const keep = options.keepPassedExchanges ?? false;
    // Generated cases: the engine's own scheduler. Results are kept compact as they arrive, in plan order.
    const generated = new Map<string, CaseResult[]>(selected.map((op) => [op.operationId, []]));
    // Tens of thousands of case summaries stay in memory until the reports: equal texts and check lists held once.
    const sharedValues = new SharedValues();
    let doneOperations = 0;
    let casesSeen = 0;
    let failingOperations = 0;
    // Made when the cases start (its request thread with it) and let go of once they are done: it holds what the
    // cases needed (the validators, the records the run created, the value pool), not what the reports need.
    let session: Session | undefined;
    const startCases = (runner: Session): Scheduler => schedule(runner, plans, options.concurrency, {
      onCase: (operationId, index, result) => {
        // The case summaries are what stays; everything else a case made is garbage: collected every few
        // thousand cases rather than left to pile up before V8 decides to (the heap would grow to twice the live set).
        if (++casesSeen % COLLECT_EVERY === 0) collectNow();
        const compact = sharedValues.caseResult(compactCase(result, keep));
        const list = generated.get(operationId) ?? [];
        generated.set(operationId, list);
        const at = index < 0 ? list.length : index;
        list[at] = spool ? spool.add(operationId, at, compact) : compact;
      },
      onOperationDone: (operationId, failing) => {
        doneOperations++;
        if (failing) failingOperations++;
        for (const r of reporters) r.operationDone?.(operationId, { done: doneOperations, failing: failingOperations });
      },
    });
    // Scenario suites (vitest) only in a full, unsharded selection; vitest is loaded only then.
    // Only the suites of the packs that apply, and the user's own; no suite, no worker.
    const scenarios = options.include.length === 0 && options.exclude.length === 0 && (!options.shard || options.shard.index === 1);
    const suiteGlobs = [
      ...applying.flatMap((p) => (p.suites ? p.suites.include.map((g) => `${p.suites!.root.replace(/\\/g, '/').replace(/\/?$/, '/')}${g}`) : [])),
      ...(options.suites ?? []).map((d) => `${d.replace(/\\/g, '/')}/**/*.test.{ts,js,mjs}`),
    ];
    // A large run runs the suites first, in a process of their own that ends before its cases start, and collects
    // what loading the contract left before: vitest's memory is never on top of the cases' (2,770 operations:
    // 375 MiB at the peak with the suites beside the cases in this process). A small run runs them here, beside its cases.
    const withSuites = scenarios && suiteGlobs.length > 0;
    const suitesFirst = withSuites && selected.length >= WORKER_FROM_OPERATIONS;
    if (suitesFirst) collectNow(true);
    const scenarioRun: ScenarioRun | undefined = withSuites
      ? runScenarios({ root: ROOT, config, contract, include: suiteGlobs, exclude: applying.flatMap((p) => p.suites?.exclude ?? []) }, suitesFirst)
      : undefined;
    let scheduler: Scheduler | undefined;

    let interrupted = false;
    const onAbort = () => {
      interrupted = true;
      scheduler?.interrupt();
      scenarioRun?.cancel();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    let scenarioOutcome: Awaited<ScenarioRun['done']> = { cases: new Map(), errors: [], interrupted: false };
    let leftBehind: RunResults['leftBehind'] = [];
    let targetDown: RunResults['targetDown'];
    try {
      const suitesDone = scenarioRun?.done.catch((error: unknown) => ({
        cases: new Map<string, CaseResult[]>(),
        errors: [`the scenario suites could not run: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`],
        interrupted: false,
      }));
      if (suitesFirst) await suitesDone;
      session = Session.from(config, contract, profiles, examples);
      scheduler = startCases(session);
      if (interrupted) scheduler.interrupt();
      const [scheduled, fromScenarios] = await Promise.all([scheduler.done, suitesDone]);
      if (fromScenarios) scenarioOutcome = fromScenarios;
      interrupted ||= scheduled.interrupted || scenarioOutcome.interrupted;
      leftBehind = scheduled.cleanup.leftBehind ?? [];
      targetDown = session?.targetDown;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      scheduler = undefined;
      session = undefined;
    }

    const final = await finish(() => {
      // One results model: generated cases first, then what the scenario suites recorded per operation.
      const cases = new Map<string, CaseResult[]>();
      for (const [operationId, list] of generated) {
        const kept = list.filter((c) => c !== undefined);
        if (kept.length > 0) cases.set(operationId, kept);
      }
      generated.clear();
      for (const [operationId, list] of scenarioOutcome.cases) {
        // The scenario suites' errors after the deployment stopped answering are that, not tool problems.
        const ran = targetDown ? list.map((c) => (c.outcome === 'errored' ? { ...c, outcome: 'skipped' as const, skipKind: 'target-down' as const, skipReason: `not run: ${targetDown!.message.split(': connections')[0]}` } : c)) : list;
        cases.set(operationId, [...(cases.get(operationId) ?? []), ...ran.map((c) => compactCase(c, keep))]);
      }
      const operations = assembleOperations({ operations: selected, allOperations: contract.operations, cases, interrupted });
      const built = buildResults({ operations, contract, catalog, config, options, embedded: embedded !== undefined, startedAt, interrupted, deploymentDiff });
      return { ...built, ...(leftBehind.length > 0 ? { leftBehind } : {}), ...(targetDown ? { targetDown } : {}) };
    });
    const endErrors = scenarioOutcome.errors;
    if (endErrors.length > 0 && final.operations.every((o) => o.cases.length === 0)) {
      return { exitCode: 2, results: final, message: `the suites could not run: ${endErrors[0]}` };
    }
    if (options.maxFailures && final.operations.some((o) => o.cases.some((c) => c.skipReason?.startsWith('not run: --max-failures')))) {
      for (const r of reporters) r.notice?.(`conformance: stopped after ${options.maxFailures} failed operation(s) (--max-failures); the cases after that were not run`);
    }
    // Against a baseline, only what is new fails a not-conformant run (report/baseline.ts).
    const gate = baselineExitCode(final, final.baseline);
    if (gate !== undefined && final.baseline) {
      return { exitCode: gate, results: final, ...(gate === 0 ? { message: `not conformant, but nothing new: ${baselineLine(final.baseline)}` } : {}) };
    }
    // One verdict everywhere: the exit code is the verdict's (report/outcomes.ts).
    const exitCode = exitCodeOf(final.verdict);
    if (exitCode === 2) return { exitCode, results: final, message: `${(final.verdictLine ?? final.verdict).replace(/^incomplete: /, '')}; reports written` };
    return { exitCode, results: final };
  } catch (error) {
    if (error instanceof RunInterrupted) return { exitCode: 2, message: 'interrupted before any case ran: nothing was judged and no report was written' };
    throw error;
  } finally {
    spool?.close(false);
    // Interrupted: the requests still in flight (a probe, a credentials check) are dropped, not waited for.
    await (options.signal?.aborted ? dispatcher?.destroy() : dispatcher?.close());
    // Started for a run that stopped before using it: closed all the same.
    embedded ??= await starting?.catch(() => undefined);
    await embedded?.close();
  }
}

/** The run was aborted before any case ran. */
class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
}

/** The dispatcher of the CLI's own requests (the reachability probe): same proxy and TLS as the suites. */
function buildClientDispatcher(options: RunOptions) {
  try {
    return buildDispatcher(options.client ?? { headers: [], httpProxy: '', httpsProxy: '', noProxy: '', insecure: false, retries: 0, rateLimit: 0, runId: '', traceId: '' }, { timeoutMs: options.timeoutMs, connections: 2 });
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

/** The user's headers and the run id go with the reachability probe too (a gateway may require them). */
function probeHeaders(client: ClientOptions | undefined, runId: string): Record<string, string> {
  const headers: Record<string, string> = Object.fromEntries((client?.headers ?? []).filter((h) => h.name.toLowerCase() !== 'authorization').map((h) => [h.name, h.value]));
  headers[RUN_ID_HEADER] = runId;
  if (client?.traceId) headers['traceparent'] = `00-${client.traceId}-${randomBytes(8).toString('hex')}-01`;
  return headers;
}

async function initialToken(command: string): Promise<string> {
  try {
    return (await runTokenCommand(command)).token;
  } catch (error) {
    if (error instanceof TokenCommandError) throw new InputError(error.message);
    throw error;
  }
}

function buildResults(input: {
  operations: OperationResult[];
  contract: Contract;
  catalog: Catalog | undefined;
  config: RunConfig;
  options: RunOptions;
  embedded: boolean;
  startedAt: Date;
  interrupted: boolean;
  deploymentDiff: RunResults['deploymentDiff'];
}): RunResults {
  const finishedAt = new Date();
  const first = input.contract.services[0];
  const operations = [...input.operations, ...notDescribedResults(input.catalog, input.contract)];
  const results: RunResults = {
    schemaVersion: 2,
    tool: TOOL,
    contract: { title: first?.title ?? '', version: first?.version ?? '', files: input.contract.services.map((s) => s.file) },
    target: { embedded: input.embedded, services: Object.entries(input.config.baseUrls).map(([id, baseUrl]) => ({ id, baseUrl })) },
    startedAt: input.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - input.startedAt.getTime(),
    verdict: 'conformant',
    interrupted: input.interrupted,
    failOn: input.options.failOn,
    ...(input.options.failOnUntested ? { failOnUntested: true } : {}),
    seed: input.options.seed,
    ...(input.options.shard ? { shard: input.options.shard } : {}),
    coverage: coverage(input.catalog, input.contract, 0),
    counts: countOutcomes([]),
    operations,
    ...(input.deploymentDiff ? { deploymentDiff: input.deploymentDiff } : {}),
    expiredWaivers: [],
  };
  return results;
}

/** The service `--base-url` names: the contract's only one, else the applying pack's primary one, else the first. */
export function primaryService(contract: Pick<Contract, 'services'>, applying: readonly Pack[]): string | undefined {
  if (contract.services.length === 1) return contract.services[0]?.id;
  const declared = applying.map((p) => p.primaryService).find((id) => id !== undefined && contract.services.some((s) => s.id === id));
  return declared ?? contract.services[0]?.id;
}

/** The base URLs per service with `--base-url` given to the primary service (an explicit --server wins). */
export function withBaseUrl(servers: Record<string, string>, baseUrl: string | undefined, primary: string | undefined): Record<string, string> {
  if (baseUrl === undefined || primary === undefined || servers[primary] !== undefined) return servers;
  return { ...servers, [primary]: baseUrl };
}

/** Starts a pack's reference deployment and probes each of its base URLs meanwhile. */
async function startReference(pack: Pack, token: string, probes: ReachabilityProbes): Promise<PackReference> {
  const service = await pack.startReference!({ token });
  for (const url of Object.values(service.baseUrls)) probes.start(url);
  return service;
}


function parseBaseUrl(baseUrl: string): URL {
  try {
    return new URL(baseUrl);
  } catch {
    throw new InputError(`not a URL: ${baseUrl}`);
  }
}

/** A target that refuses connections is a run that cannot happen (exit 2), not 300 errored cases. */
async function assertReachable(baseUrl: string, timeoutMs: number, dispatcher: Dispatcher, headers: Record<string, string>): Promise<void> {
  const url = parseBaseUrl(baseUrl);
  try {
    const res = await request(url, { dispatcher, headers, method: 'HEAD', headersTimeout: Math.min(timeoutMs, 10_000), bodyTimeout: Math.min(timeoutMs, 10_000) });
    await res.body.dump();
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as Error).name;
    if (/TIMEOUT/i.test(code)) return; // slow, not unreachable: the cases will time out with their own reports
    throw new InputError(`target unreachable: ${url.origin} (${code})`);
  }
}

/** Operations the deployment's own description lists that the contract lacks (informational), and the reverse. */
async function diffDeployment(contract: Contract, source: string): Promise<NonNullable<RunResults['deploymentDiff']>> {
  const { api } = await loadDescription(source);
  const { service, operations } = describeApi(api, source);
  // A deployment's description covers one service: compare it with that service's part of the contract.
  const sameService = contract.operations.filter((o) => o.service === service.id);
  const compared = sameService.length > 0 ? sameService : contract.operations;
  const key = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;
  const served = new Set(operations.map((o) => key(o.method, o.path)));
  const described = new Set(compared.map((o) => key(o.method, o.path)));
  return {
    extra: operations
      .filter((o) => !described.has(key(o.method, o.path)))
      .map((o) => ({ method: o.method, path: o.path, operationId: o.operationId })),
    lacking: compared.filter((o) => !served.has(key(o.method, o.path))).map((o) => o.operationId),
  };
}

/** True when the operation may be sent the run's token: it declares a scheme without a credential of its own, or takes the profile's header. */
function wantsToken(op: Operation, profile: Profile, schemeAuth: Record<string, string>): boolean {
  if (op.auth && op.auth.length > 0) return op.auth.some((s) => schemeAuth[s.name] === undefined);
  return op.credentialed !== false || profile.auth.everyOperation === true;
}

/**
 * Without a token: the first credential a selected operation cannot do without, said as the one-line error that
 * names how to give it; undefined when none is missing (no operation requires credentials, or --auth gives them).
 */
function credentialMissing(selected: Operation[], profiles: Profiles, schemeAuth: Record<string, string>): string | undefined {
  const missing = new Map<string, { scheme?: AuthScheme; count: number }>();
  for (const op of selected) {
    const profile = profileFor(profiles, op.service);
    if (!op.secured && !profile.auth.everyOperation) continue;
    if (op.auth && op.auth.length > 0) {
      for (const scheme of op.auth) {
        if (schemeAuth[scheme.name] !== undefined) continue;
        const entry = missing.get(scheme.name) ?? { scheme, count: 0 };
        entry.count++;
        missing.set(scheme.name, entry);
      }
    } else {
      const entry = missing.get('') ?? { count: 0 };
      entry.count++;
      missing.set('', entry);
    }
  }
  const [name, first] = [...missing.entries()].find(([, e]) => e.scheme === undefined || e.scheme.kind === 'bearer') ?? [...missing.entries()][0] ?? [];
  if (!first) return undefined;
  const token = 'no bearer token: set CONFORMANCE_TOKEN (or pass --token or --token-command)';
  if (!first.scheme || first.scheme.kind === 'bearer') return missing.size === 1 || !first.scheme ? token : `${token}; or --auth ${name}=<token>`;
  const s = first.scheme;
  const where = s.kind === 'apiKey' ? `apiKey in ${s.in} ${s.parameter}` : s.kind;
  const value = s.kind === 'basic' ? '<user>:<password>' : '<value>';
  return `no credentials for security scheme "${name}" (${where}), which ${first.count} selected operation${first.count === 1 ? '' : 's'} require${first.count === 1 ? 's' : ''}: pass --auth ${name}=${value} (or set CONFORMANCE_AUTH="${name}=${value}"; CONFORMANCE_TOKEN serves every scheme without one)`;
}
