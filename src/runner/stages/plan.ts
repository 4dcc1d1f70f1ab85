/**
 * Stage 4, the plan: the run's configuration (what the session and the scenario suites run with), the budgets of
 * the whole selection, and the plans, made one operation at a time as the scheduler reaches it.
 */
import type { RunConfig } from '../execute/config.ts';
import { selectOperations } from '../execute/select.ts';
import { profileFor } from '../description/profiles.ts';
import type { RunResults } from '../model.ts';
import { fromPacks } from '../pack.ts';
import { defaultFuzzExamples, defaultSequences, planOperation, type OperationPlan } from '../plan/cases.ts';
import { executionOrder, planOptionsOf } from '../plan/options.ts';
import type { Inputs } from './inputs.ts';
import { diffDeployment, type LocalInputs } from './local-inputs.ts';
import type { RunNetwork } from './network.ts';
import type { Targets } from './targets.ts';
import type { RunOptions } from './types.ts';

/** Bytes of each answer read and judged unless --max-body-size says otherwise. */
const DEFAULT_BODY_CAP = 1024 * 1024;

export interface RunPlan {
  config: RunConfig;
  /** Each operation's plan, made when the scheduler reaches it and let go once its cases have started. */
  plans: Iterable<OperationPlan>;
  deploymentDiff: RunResults['deploymentDiff'];
}

export async function planRun(options: RunOptions, inputs: Inputs, local: LocalInputs, targets: Targets, network: RunNetwork): Promise<RunPlan> {
  const { contract, profiles, examples } = local;
  const { selected, allowIrreversible, otpSourceUrl } = targets;
  const otpFields = fromPacks(local.applying, 'otpFields');
  const config: RunConfig = {
    contractFiles: options.specs,
    profileFile: local.profileFile,
    ...(local.examplesFile ? { examplesFile: local.examplesFile } : {}),
    ...(otpFields ? { otpFields } : {}),
    baseUrls: targets.servers,
    token: targets.token ?? '',
    ...(Object.keys(targets.schemeAuth).length > 0 ? { auth: targets.schemeAuth } : {}),
    ...((targets.identities ?? options.identities)?.length ? { identities: targets.identities ?? options.identities } : {}),
    ...(targets.obtained ? { obtained: targets.obtained } : {}),
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
    runId: inputs.runId,
    ...(inputs.client ? { client: inputs.client } : {}),
    ...(options.maxFailures ? { maxFailures: options.maxFailures } : {}),
  };
  // Without --fuzz-examples or --sequences: the budgets of the whole selection (every shard draws as one run would).
  if (config.fuzzExamples === undefined || config.sequences === undefined) {
    const { shard: _shard, ...unsharded } = config;
    const whole = config.shard ? selectOperations(contract.operations, unsharded) : selected;
    config.fuzzExamples ??= defaultFuzzExamples(whole);
    config.sequences ??= defaultSequences(contract, whole);
  }
  const planOptions = planOptionsOf({ ...options, allowIrreversible, otpSourceUrl });
  const plans = (function* () {
    for (const op of executionOrder(selected)) yield planOperation(contract, op, profileFor(profiles, op.service), examples, planOptions);
  })();
  const deploymentDiff = options.deploymentSpec ? (local.deploymentDiff ?? (await network.early(diffDeployment(contract, options.deploymentSpec)))) : undefined;
  return { config, plans, deploymentDiff };
}
