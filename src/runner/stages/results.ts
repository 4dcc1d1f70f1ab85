/**
 * Stage 6, results and verdict: one results model (the generated cases, then what the scenario suites recorded),
 * judged in one synchronous step (diagnosis, evidence limits, waivers, the baseline), handed to the reporters, and
 * mapped to the exit code.
 */
import { diagnoseResults, refusedCredentialMessage, untestedForRefusedCredentials } from '../execute/diagnose.ts';
import type { RunConfig } from '../execute/config.ts';
import { collectNow } from '../http/large-bodies.ts';
import { RUN_ID_HEADER } from '../http/client-options.ts';
import { coverage, notDescribedResults, type Catalog } from '../description/catalog.ts';
import type { CaseResult, Contract, OperationResult, RunResults } from '../model.ts';
import { assembleOperations, compactCase } from '../report/assemble.ts';
import { findingsInSource, movesByFile } from '../description/source-pointers.ts';
import { baselineExitCode, baselineLine, compareWithBaseline } from '../report/baseline.ts';
import type { CaseSpool } from '../report/case-spool.ts';
import { limitEvidence } from '../report/evidence-limit.ts';
import { countOutcomes, exitCodeOf, summarise } from '../report/outcomes.ts';
import { reportFinished, type Reporter } from '../report/reporter.ts';
import { contractHash } from '../report/run-identity.ts';
import { applyWaivers, localDate } from '../report/waivers.ts';
import { toolIdentity } from '../cli/paths.ts';
import type { Executed } from './execute.ts';
import type { Inputs } from './inputs.ts';
import type { LocalInputs } from './local-inputs.ts';
import type { RunPlan } from './plan.ts';
import type { Targets } from './targets.ts';
import type { RunOptions, RunOutcome } from './types.ts';

const TOOL = toolIdentity();

/** What the results are made of besides the cases. */
export interface ResultsContext {
  options: RunOptions;
  inputs: Inputs;
  local: LocalInputs;
  plan: RunPlan;
  embedded: boolean;
  startedAt: Date;
  spool: CaseSpool | undefined;
  reporters: readonly Reporter[];
}

/** The results when the deployment rejected the credentials: every selected operation not run, the reports written. */
export async function rejectedResults(ctx: ResultsContext, targets: Targets, rejected: string): Promise<RunOutcome> {
  const operations: OperationResult[] = targets.selected.map((op) => ({
    operationId: op.operationId, method: op.method, path: op.path, group: op.group, service: op.service,
    outcome: 'skipped', reason: 'not run: the deployment rejected the credentials', durationMs: 0, cases: [],
  }));
  const final = await finish(ctx, () => ({ ...buildResults(ctx, operations, false), stopped: rejected }));
  return { exitCode: exitCodeOf(final.verdict), results: final, message: `${rejected}; reports written` };
}

export async function concludeRun(ctx: ResultsContext, targets: Targets, executed: Executed): Promise<RunOutcome> {
  const { options, local } = ctx;
  const keep = options.keepPassedExchanges ?? false;
  const { targetDown, leftBehind, interrupted } = executed;
  const final = await finish(ctx, () => {
    const generated = new Map<string, CaseResult[]>();
    for (const [operationId, list] of executed.generated) {
      const kept = list.filter((c) => c !== undefined);
      if (kept.length > 0) generated.set(operationId, kept);
    }
    executed.generated.clear();
    // A credential the deployment refused on every call that carried it: a configuration problem, said once per
    // scheme; the operations that need it are untested with that reason, not failed (execute/diagnose.ts).
    const refused = executed.refusedCredentials;
    const cases = untestedForRefusedCredentials(generated, targets.selected, refused);
    const inSource = movesByFile(local.contract.services);
    for (const [operationId, list] of executed.scenarios.cases) {
      // The scenario suites' errors after the deployment stopped answering are that, not tool problems.
      const ran = targetDown ? list.map((c) => (c.outcome === 'errored' ? { ...c, outcome: 'skipped' as const, skipKind: 'target-down' as const, skipReason: `not run: ${targetDown.message.split(': connections')[0]}` } : c)) : list;
      cases.set(operationId, [...(cases.get(operationId) ?? []), ...ran.map((c) => compactCase(findingsInSource(c, inSource), keep))]);
    }
    const operations = assembleOperations({ operations: targets.selected, allOperations: local.contract.operations, cases, interrupted });
    const built = buildResults(ctx, operations, interrupted);
    return {
      ...built,
      ...(leftBehind.length > 0 ? { leftBehind } : {}),
      ...(targetDown ? { targetDown } : {}),
      ...(executed.catalogGroups ? { catalogGroups: executed.catalogGroups } : {}),
      ...(refused.length > 0 ? { stopped: refused.map(refusedCredentialMessage).join('; ') } : {}),
    };
  });
  const endErrors = executed.scenarios.errors;
  if (endErrors.length > 0 && final.operations.every((o) => o.cases.length === 0)) {
    return { exitCode: 2, results: final, message: `the suites could not run: ${endErrors[0]}` };
  }
  if (options.maxFailures && final.operations.some((o) => o.cases.some((c) => c.skipReason?.startsWith('not run: --max-failures')))) {
    for (const r of ctx.reporters) r.notice?.(`conformance: stopped after ${options.maxFailures} failed operation(s) (--max-failures); the cases after that were not run`);
  }
  // Against a baseline, only what is new fails a not-conformant run (report/baseline.ts).
  const gate = baselineExitCode(final, final.baseline);
  if (gate !== undefined && final.baseline) {
    return { exitCode: gate, results: final, ...(gate === 0 ? { message: `not conformant, but nothing new: ${baselineLine(final.baseline)}` } : {}) };
  }
  const exitCode = exitCodeOf(final.verdict);
  if (exitCode === 2) return { exitCode, results: final, message: `${(final.verdictLine ?? final.verdict).replace(/^incomplete: /, '')}; reports written` };
  return { exitCode, results: final };
}

/**
 * The results built by `build` and judged in one synchronous step, so that while the reports are written memory
 * holds the final results only, not also the case summaries and copies they were made from.
 */
async function finish(ctx: ResultsContext, build: () => RunResults): Promise<RunResults> {
  const summarised = judge(ctx, build());
  collectNow();
  const client = ctx.inputs.client;
  await reportFinished(ctx.reporters, summarised, client ? [`Run id: ${client.runId} (header ${RUN_ID_HEADER}; traceparent trace id ${client.traceId})`] : []);
  ctx.spool?.close(true);
  return summarised;
}

function judge(ctx: ResultsContext, built: RunResults): RunResults {
  const { options, local, spool } = ctx;
  collectNow();
  const checked = built.stopped ? built : { ...built, ...(diagnoseResults(built) ? { stopped: diagnoseResults(built) } : {}) };
  // Each failure shown with its evidence a bounded number of times, read back from the spool.
  const diagnosed = { ...checked, operations: limitEvidence(checked.operations, { ...(spool ? { full: (c: CaseResult) => spool.full(c), recorded: (c: CaseResult) => spool.recorded(c) } : {}), unlimited: options.keepPassedExchanges ?? false }) };
  // Hashed at the end, not before the first case (a quarter of a second at 2,770 operations).
  let summarised = summarise(applyWaivers({ ...diagnosed, contract: { ...diagnosed.contract, hash: contractHash(local.contract) } }, local.waivers, localDate()));
  if (local.baseline && options.baseline) summarised = { ...summarised, baseline: compareWithBaseline(summarised, local.baseline, options.baseline) };
  return summarised;
}

function buildResults(ctx: ResultsContext, operationResults: OperationResult[], interrupted: boolean): RunResults {
  const { options, local, plan } = ctx;
  const contract: Contract = local.contract;
  const catalog: Catalog | undefined = local.catalog;
  const config: RunConfig = plan.config;
  const finishedAt = new Date();
  const first = contract.services[0];
  const operations = [...operationResults, ...notDescribedResults(catalog, contract)];
  return {
    schemaVersion: 2,
    tool: TOOL,
    contract: { title: first?.title ?? '', version: first?.version ?? '', files: contract.services.map((s) => s.file) },
    target: { embedded: ctx.embedded, services: Object.entries(config.baseUrls).map(([id, baseUrl]) => ({ id, baseUrl })) },
    startedAt: ctx.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - ctx.startedAt.getTime(),
    verdict: 'conformant',
    interrupted,
    failOn: options.failOn,
    ...(options.failOnUntested ? { failOnUntested: true } : {}),
    seed: options.seed,
    ...(options.shard ? { shard: options.shard } : {}),
    coverage: coverage(catalog, contract, 0),
    counts: countOutcomes([]),
    operations,
    ...(plan.deploymentDiff ? { deploymentDiff: plan.deploymentDiff } : {}),
    ...(options.compatibility ? { compatibility: options.compatibility } : {}),
    expiredWaivers: [],
  };
}
