/**
 * Deployments that misbehave as a whole cost bounded time and are named once: operations that hang on every
 * request stop being sent to after two timeouts each (the rest of the run goes on), and a deployment that stops
 * accepting connections mid-run is said to have stopped, after what and with what in flight, instead of leaving
 * dozens of cases errored; it is the deployment's defect (exit 1), never a tool problem.
 */
import { afterAll, expect, test } from 'vitest';
import type { ReferenceService } from '../../src/reference-service/index.ts';
import { startReferenceService } from '../../src/reference-service/index.ts';
import { expectReportsAgree, junitView } from '../support/reports-agree.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DESCRIBED, never, operation, outcomes, removeTemps, requireResults, resultsSchemaErrors, runCli, summary, tokenLeaks, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

const target = (svc: ReferenceService) => ['--base-url', svc.customerBaseUrl, '--foreign-trade-base-url', svc.foreignTradeBaseUrl, '--token', TOKEN, '--allow-irreversible', '--otp-source-url', `${svc.url}/__reference/otp/{transactionId}`];

test(
  'two operations that hang on every request: each reported by response-timeout after two requests, the others judged, in bounded time',
  async () => {
    const hanging = ['get-address-type-field-list', 'customer-refresh-cache'];
    const svc = await startReferenceService({ token: TOKEN, port: 0, variant: { handlers: Object.fromEntries(hanging.map((id) => [id, () => never()])) } });
    try {
      const run = await runCli([...target(svc), '--timeout', '3000', '--quiet']);
      const results = requireResults(run);
      expect(resultsSchemaErrors(results)).toEqual([]);
      expect(run.wallMs).toBeLessThan(45_000);
      expect(run.code, run.stderr).toBe(1);
      const byOutcome = outcomes(results);
      for (const id of DESCRIBED) expect(byOutcome[id], `${id}\n${summary(results).join('\n')}`).toBe(hanging.includes(id) ? 'failed' : 'passed');
      for (const id of hanging) {
        const op = operation(results, id);
        const timeouts = op.cases.flatMap((c) => c.findings).filter((f) => f.check === 'response-timeout');
        expect(timeouts.length, id).toBeGreaterThan(0);
        // The requests that timed out are at most those in flight when the second one did (--concurrency 8).
        const timedOut = op.cases.flatMap((c) => c.exchanges).filter((e) => e.error?.kind === 'timeout');
        expect(timedOut.length, id).toBeLessThanOrEqual(8 + 2);
      }
      // Once an operation timed out twice, its requests are not sent: each case that had one left says so, typed.
      const notSent = hanging.flatMap((id) => operation(results, id).cases.filter((c) => c.skipKind === 'timed-out'));
      expect(notSent.length).toBeGreaterThan(0);
      for (const c of notSent) expect(c.skipReason).toMatch(/^not sent: .* gave no answer within 3000 ms \(--timeout\) to \d+ requests/);
    } finally {
      await svc.close();
    }
  },
  120_000,
);

test(
  'a deployment that stops accepting connections mid-run is named once, the rest not run, and the run is not conformant',
  async () => {
    let svc: ReferenceService | undefined;
    // The deployment falls over on the first update of an address type field (a crash: every connection closed,
    // the port no longer listening).
    svc = await startReferenceService({
      token: TOKEN,
      port: 0,
      variant: {
        handlers: {
          'update-address-type-field': () => {
            void svc?.close();
            return never();
          },
        },
      },
    });
    try {
      // The customer service alone: the scenario suites (another client, whose requests this run does not see) do
      // not run, so the request that brings the deployment down is one of the run's own.
      const run = await runCli([...target(svc), '--timeout', '5000', '--include', 'customer-service'], { ownGroup: true });
      const results = requireResults(run);
      expect(resultsSchemaErrors(results)).toEqual([]);
      expect(await tokenLeaks(run)).toEqual([]);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
      expect(results.verdict).toBe('not-conformant');
      const down = results.targetDown;
      expect(down).toMatchObject({ service: expect.any(String), baseUrl: expect.stringContaining('127.0.0.1') });
      expect(down?.message).toMatch(/^the deployment stopped answering after [A-Z]+ http:\/\/127\.0\.0\.1:\d+\S* \(answered \d{3}\): connections to .* are refused; the requests? in flight then, the likely cause/);
      // The update that brought it down is named among the requests cut in flight, with its curl line.
      const update = down?.inFlight?.find((r) => r.method === 'PUT' && /\/address-types\/[^/]+\/fields\/[^/?]+$/.test(r.url));
      expect(update?.curl, JSON.stringify(down?.inFlight)).toMatch(/^curl .*-X PUT .*\/address-types\/[^/]+\/fields\/[^/']+'/);
      expect(down?.after?.curl).toMatch(/^curl /);
      expect(results.verdictLine).toMatch(/^not conformant: the deployment stopped answering after /);
      // No case is errored one by one: what came after is not run, with the reason.
      const cases = results.operations.filter((o) => o.method !== null).flatMap((o) => o.cases);
      expect(cases.filter((c) => c.outcome === 'errored').map((c) => `${c.name}: ${c.errorMessage}`)).toEqual([]);
      const notRun = cases.filter((c) => c.skipKind === 'target-down');
      expect(notRun.length).toBeGreaterThan(5);
      for (const c of notRun) expect(c.skipReason).toMatch(/^not run: the deployment stopped answering after /);
      // Said once in the console.
      expect(run.stdout.match(/The deployment stopped answering/g)?.length).toBe(1);
      expect(run.stdout).toMatch(/in flight then(, the likely cause| \(the likely cause among them\))/);
      // Nothing errored, the scenario suites' requests after the deployment fell over included.
      expect(results.counts.errored).toBe(0);
      expect(results.verdictLine).not.toMatch(/setup calls failed/);
      expect(run.leftover).toEqual([]);
      // The case whose request was in flight when it fell over fails on that operation, in every report: the
      // CI dashboard shows the failure, not every test green or skipped.
      const inFlight = operation(results, 'update-address-type-field');
      expect(inFlight.outcome, summary(results).join('\n')).toBe('failed');
      const dropped = inFlight.cases.flatMap((c) => c.findings).find((f) => f.check === 'not-a-server-error');
      expect(dropped?.message).toMatch(/the deployment stopped answering while this request was in flight/);
      const junit = junitView(await readFile(join(run.out, 'junit.xml'), 'utf8'), results);
      expect(junit.failures).toBeGreaterThanOrEqual(1);
      expect(junit.failing).toContain('customer-service update-address-type-field');
      await expectReportsAgree(run);
    } finally {
      await svc.close();
    }
  },
  120_000,
);

test(
  'with the scenario suites running beside the cases, what they could not send after the deployment fell over is not run either, never errored',
  async () => {
    let svc: ReferenceService | undefined;
    svc = await startReferenceService({ token: TOKEN, port: 0, variant: { handlers: { 'update-address-type-field': () => (void svc?.close(), never()) } } });
    try {
      const run = await runCli([...target(svc), '--timeout', '5000', '--quiet']);
      const results = requireResults(run);
      expect(run.code, run.stdout).toBe(1);
      expect(results.targetDown?.message).toMatch(/^the deployment stopped answering/);
      expect(results.counts.errored, run.stdout).toBe(0);
      const scenarios = results.operations.filter((o) => o.group === 'scenarios').flatMap((o) => o.cases);
      expect(scenarios.some((c) => c.skipKind === 'target-down')).toBe(true);
    } finally {
      await svc.close();
    }
  },
  120_000,
);
