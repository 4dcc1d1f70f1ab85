/**
 * The generated conformance suite: one test per operation x case, named `<operationId> › <case>` so names
 * are stable across runs. The plan comes from the contract (and contract/examples.yaml); the run's options
 * come from the CLI. Records the run creates are deleted after the last test, newest first.
 */
import { afterAll, describe, test } from 'vitest';
import { testName } from '../../src/runner/plan/cases.ts';
import { recordCase, runConfig, session } from '../../src/runner/testing/index.ts';

const config = runConfig();
const s = await session();
const plans = s.plans();

afterAll(async () => {
  await s.cleanup();
});

const groups = new Map<string, typeof plans>();
for (const plan of plans) {
  const key = `${plan.operation.service} ${plan.operation.group}`;
  groups.set(key, [...(groups.get(key) ?? []), plan]);
}

// Each request may wait up to --timeout; a case sends a handful (setup, fixture, the call, read-backs).
const caseTimeout = config.timeoutMs * 8 + 5_000;

for (const [group, groupPlans] of groups) {
  describe.concurrent(group, () => {
    for (const plan of groupPlans) {
      for (const planned of plan.cases) {
        test(
          testName(planned),
          async ({ task, skip }) => {
            const result = await s.runCase(planned);
            recordCase(task, planned.operationId, result);
            if (result.outcome === 'skipped') skip(result.skipReason);
            if (result.outcome === 'errored') throw new Error(`errored: ${result.errorMessage}`);
            const errors = result.findings.filter((f) => f.severity === 'error');
            if (result.outcome !== 'passed') {
              throw new Error(`${result.outcome}: ${errors.map((f) => `[${f.check}] ${f.message}`).join('; ')}`);
            }
          },
          caseTimeout,
        );
      }
    }
  });
}
