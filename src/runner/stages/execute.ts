/**
 * Stage 5, the execution: the credentials checked against the deployment once, then the generated cases in the
 * engine's scheduler and the scenario suites (vitest), each case's summary kept as it arrives and its full result
 * spooled to disk.
 */
import { preflightCredentials, preflightOperations, type RefusedCredential } from '../execute/diagnose.ts';
import { runScenarios, type ScenarioRun } from '../execute/scenarios.ts';
import { schedule, type Scheduler } from '../execute/scheduler.ts';
import { Session, WORKER_FROM_OPERATIONS } from '../execute/session.ts';
import { SecretWatch, WATCH_CHARS, withExposure } from '../execute/secret-watch.ts';
import { profileFor } from '../description/profiles.ts';
import { collectNow, limitHeapGrowth } from '../http/large-bodies.ts';
import type { CaseResult, RunResults } from '../model.ts';
import { compactCase } from '../report/assemble.ts';
import { findingsInSource, movesByFile } from '../description/source-pointers.ts';
import { SharedValues } from '../report/case-memory.ts';
import { withTexts, type CaseSpool } from '../report/case-spool.ts';
import type { Reporter } from '../report/reporter.ts';
import { ROOT } from '../cli/paths.ts';
import { dirname } from 'node:path';
import { initialToken, type RunNetwork } from './network.ts';
import type { Inputs } from './inputs.ts';
import type { LocalInputs } from './local-inputs.ts';
import type { RunPlan } from './plan.ts';
import type { Targets } from './targets.ts';
import type { RunOptions } from './types.ts';

/** Cases between two full collections during a run. */
const COLLECT_EVERY = 10_000;

export interface Executed {
  interrupted: boolean;
  /** The generated cases' summaries per operation, in plan order. */
  generated: Map<string, CaseResult[]>;
  scenarios: Awaited<ScenarioRun['done']>;
  leftBehind: NonNullable<RunResults['leftBehind']>;
  targetDown: RunResults['targetDown'];
  /** The security schemes whose credential the deployment refused on every call that carried it. */
  refusedCredentials: RefusedCredential[];
  /** The catalog's groups the contract describes no path of, asked at their prefixes (execute/catalog-groups.ts). */
  catalogGroups?: RunResults['catalogGroups'];
}

/**
 * The out-of-band secrets the run obtained, searched for in every kept answer once all cases are done: each case
 * whose answer carries one fails with its finding, its exchanges redacted (its summary spooled again).
 */
function exposeSecrets(watch: SecretWatch, session: Session, generated: Map<string, CaseResult[]>, spool: CaseSpool | undefined, keep: boolean, reporters: readonly Reporter[]): void {
  const secrets = [...session.outOfBand];
  for (const { operationId, index, finding } of watch.exposures(secrets, (id) => session.contract.operations.find((o) => o.operationId === id))) {
    const list = generated.get(operationId);
    const current = list?.[index];
    if (!list || !current) continue;
    const updated = compactCase(withExposure(spool ? withTexts(spool.full(current)) : current, finding, secrets), keep);
    list[index] = spool ? spool.add(operationId, index, updated) : updated;
  }
  if (watch.skipped > 0) for (const r of reporters) r.notice?.(`conformance: ${watch.skipped} answers were not searched for the one-time passwords the run obtained (past ${WATCH_CHARS / 1024 / 1024} MiB of answers kept)`);
}

/**
 * Credentials the deployment rejects across the board: the reason, said before any case runs (undefined: accepted,
 * or nothing to check). An expired token given with --token-command is asked for again first.
 */
export async function checkCredentials(inputs: Inputs, local: LocalInputs, targets: Targets, plan: RunPlan, network: RunNetwork, timeoutMs: number): Promise<string | undefined> {
  const { contract, profiles } = local;
  const { selected, schemeAuth, servers } = targets;
  const preflight = (token: string) =>
    preflightCredentials({
      operations: preflightOperations(contract, selected).filter((o) => (o.auth ?? []).every((s) => schemeAuth[s.name] === undefined)),
      baseUrls: servers,
      token,
      profile: profileFor(profiles, selected[0]?.service ?? contract.services[0]?.id ?? ''),
      timeoutMs,
      dispatcher: network.dispatcher,
      headers: network.probeHeaders(),
    });
  const token = targets.token;
  let rejected = token ? await network.early(preflight(token)) : undefined;
  if (rejected && inputs.client?.tokenCommand) {
    const fresh = await network.early(initialToken(inputs.client.tokenCommand));
    if (fresh !== token) {
      rejected = await network.early(preflight(fresh));
      if (!rejected) plan.config.token = fresh;
    }
  }
  return rejected;
}

export async function executeRun(options: RunOptions, local: LocalInputs, targets: Targets, plan: RunPlan, spool: CaseSpool | undefined, reporters: readonly Reporter[]): Promise<Executed> {
  const { contract, profiles, examples, applying } = local;
  const { selected } = targets;
  const { config } = plan;
  for (const r of reporters) r.started?.(selected.length);
  // The case summaries of a large run stay until the reports: the heap grows by a part of what survives, not by
  // as much again. A small run keeps V8's own growth (fewer collections).
  if (selected.length >= WORKER_FROM_OPERATIONS) limitHeapGrowth();
  const keep = options.keepPassedExchanges ?? false;
  const generated = new Map<string, CaseResult[]>(selected.map((op) => [op.operationId, []]));
  // Tens of thousands of case summaries stay in memory until the reports: equal texts and check lists held once.
  const sharedValues = new SharedValues();
  // Findings point into the file the user gave (a Swagger 2.0 description is run as its conversion).
  const inSource = movesByFile(contract.services);
  let doneOperations = 0;
  let casesSeen = 0;
  let failingOperations = 0;
  // Where the run can obtain a secret out of band (an OTP source), every case's answers are kept to be searched for
  // it at the end, whatever order the cases ran in (execute/secret-watch.ts).
  const watch = config.otpSourceUrl ? new SecretWatch(WATCH_CHARS, spool ? dirname(spool.file) : undefined) : undefined;
  const startCases = (session: Session): Scheduler =>
    schedule(session, plan.plans, options.concurrency, {
      onCase: (operationId, index, result) => {
        // What a case made besides its summary is garbage: collected every few thousand cases, not left to pile up.
        if (++casesSeen % COLLECT_EVERY === 0) collectNow();
        const compact = sharedValues.caseResult(compactCase(findingsInSource(result, inSource), keep));
        const list = generated.get(operationId) ?? [];
        generated.set(operationId, list);
        const at = index < 0 ? list.length : index;
        watch?.keep(operationId, at, result);
        list[at] = spool ? spool.add(operationId, at, compact) : compact;
      },
      onOperationDone: (operationId, failing) => {
        doneOperations++;
        if (failing) failingOperations++;
        for (const r of reporters) r.operationDone?.(operationId, { done: doneOperations, failing: failingOperations });
      },
    });
  // Scenario suites (vitest) only in a full, unsharded selection: those of the packs that apply, and the user's own.
  const scenarios = options.include.length === 0 && options.exclude.length === 0 && (!options.shard || options.shard.index === 1);
  const suiteGlobs = [
    ...applying.flatMap((p) => (p.suites ? p.suites.include.map((g) => `${p.suites!.root.replace(/\\/g, '/').replace(/\/?$/, '/')}${g}`) : [])),
    ...(options.suites ?? []).map((d) => `${d.replace(/\\/g, '/')}/**/*.test.{ts,js,mjs}`),
  ];
  // A large run runs the suites first, in a process of their own that ends before its cases start, and collects
  // what loading the contract left before: vitest's memory is never on top of the cases' (2,770 operations:
  // 375 MiB at the peak with the suites beside the cases in this process). A small run runs them on a thread, beside its cases.
  const withSuites = scenarios && suiteGlobs.length > 0;
  const suitesFirst = withSuites && selected.length >= WORKER_FROM_OPERATIONS;
  if (suitesFirst) collectNow(true);
  const scenarioRun: ScenarioRun | undefined = withSuites
    ? runScenarios({ root: ROOT, config, contract, include: suiteGlobs, exclude: applying.flatMap((p) => p.suites?.exclude ?? []) }, suitesFirst)
    : undefined;

  let scheduler: Scheduler | undefined;
  let session: Session | undefined;
  let interrupted = false;
  const onAbort = () => {
    interrupted = true;
    scheduler?.interrupt();
    scenarioRun?.cancel();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const suitesDone = scenarioRun?.done.catch((error: unknown) => ({
      cases: new Map<string, CaseResult[]>(),
      errors: [`the scenario suites could not run: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`],
      interrupted: false,
    }));
    if (suitesFirst) await suitesDone;
    // Made when the cases start (its request thread with it) and let go of once they are done: it holds what the
    // cases needed (the validators, the records the run created, the value pool), not what the reports need.
    session = Session.from(config, contract, profiles, examples);
    // The catalog's undescribed groups, asked once before the cases (a few GETs): in an unsharded run or its first shard.
    const groups = !interrupted && (!options.shard || options.shard.index === 1) ? await session.askCatalogGroups(local.catalog) : undefined;
    scheduler = startCases(session);
    if (interrupted) scheduler.interrupt();
    const [scheduled, fromScenarios] = await Promise.all([scheduler.done, suitesDone]);
    const scenarioOutcome: Awaited<ScenarioRun['done']> = fromScenarios ?? { cases: new Map(), errors: [], interrupted: false };
    if (watch) exposeSecrets(watch, session, generated, spool, keep, reporters);
    for (const note of scenarioOutcome.notes ?? []) for (const r of reporters) r.notice?.(note);
    return {
      interrupted: interrupted || scheduled.interrupted || scenarioOutcome.interrupted,
      generated,
      scenarios: scenarioOutcome,
      leftBehind: scheduled.cleanup.leftBehind ?? [],
      targetDown: session.targetDown,
      refusedCredentials: session.refusedCredentials,
      ...(groups ? { catalogGroups: groups } : {}),
    };
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    watch?.close();
  }
}
