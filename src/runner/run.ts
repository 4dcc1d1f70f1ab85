/**
 * A conformance run as its stages (src/runner/stages/): the inputs judged, the local inputs loaded, the targets
 * and credentials resolved, the plan made, the cases executed, the results judged and reported. Each stage takes
 * what the ones before it gave and nothing else; the network (the run's own dispatcher, probes, the reference
 * deployment) is opened first and closed last.
 */
import { openSpool, type CaseSpool } from './report/case-spool.ts';
import { checkInputs } from './stages/inputs.ts';
import { loadLocalInputs } from './stages/local-inputs.ts';
import { RunInterrupted, RunNetwork } from './stages/network.ts';
import { resolveTargets } from './stages/targets.ts';
import { planRun } from './stages/plan.ts';
import { checkCredentials, executeRun } from './stages/execute.ts';
import { concludeRun, rejectedResults, type ResultsContext } from './stages/results.ts';
import type { RunOptions, RunOutcome } from './stages/types.ts';

export { ROOT } from './cli/paths.ts';
export type { RunOptions, RunOutcome } from './stages/types.ts';
export { primaryService, withBaseUrl } from './stages/targets.ts';

/** Runs the conformance suites against a deployment (or the embedded reference service) and writes reports. */
export async function runConformance(options: RunOptions): Promise<RunOutcome> {
  const reporters = options.reporters ?? [];
  const inputs = checkInputs(options);
  // Probes of the targets the run surely needs, and the reference deployment, leave while the contract loads.
  const network = new RunNetwork(options, inputs);
  let spool: CaseSpool | undefined;
  try {
    const local = await loadLocalInputs(options, (line) => reporters.forEach((r) => r.notice?.(line)));
    const targets = await resolveTargets(options, inputs, local, network);
    const plan = await planRun(options, inputs, local, targets, network);
    const startedAt = new Date();
    // Each case goes to disk as it finishes (report/case-spool.ts); the reporters read it back as they write.
    spool = openSpool(options.out);
    const ctx: ResultsContext = { options, inputs, local, plan, embedded: network.usesEmbedded, startedAt, spool, reporters };
    const rejected = await checkCredentials(inputs, local, targets, plan, network, options.timeoutMs);
    if (rejected) return await rejectedResults(ctx, targets, rejected);
    const executed = await executeRun(options, local, targets, plan, spool, reporters);
    return await concludeRun(ctx, targets, executed);
  } catch (error) {
    if (error instanceof RunInterrupted) return { exitCode: 2, message: 'interrupted before any case ran: nothing was judged and no report was written' };
    throw error;
  } finally {
    spool?.close(false);
    await network.close();
  }
}
