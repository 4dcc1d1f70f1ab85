/**
 * A secret seen anywhere: the one-time password the Customer kits' forgot-password flow reads from the OTP source is
 * looked for in every answer of the run, not only in its own case's. A deployment whose foreign-trade validation
 * answers carry every one-time password issued so far (in a header no contract declares) is found on that operation,
 * by secret-not-exposed, under seeds 1 to 3 and at concurrency 1 and 8 alike; the secret never reaches a report. The
 * reference deployment gets no such finding.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { Reply, Variant } from '../../src/reference-service/index.ts';
import type { RunResults } from '../../src/runner/model.ts';
import { allFindings, pool, removeTemps, requireResults, resultsSchemaErrors, runCli, startVariant, summary, tokenLeaks, type CliRun } from '../support/runs.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const limit = pool(2);
const RUN_TIMEOUT = 300_000;

afterAll(removeTemps);

/** The reference service, or one whose validate-reference-number answers carry the one-time passwords issued so far. */
function leaking(issued: string[], otpFor: () => ((tx: string) => string | undefined) | undefined, learned: string[]): Variant {
  const transactions: string[] = [];
  return {
    handlers: {
      // The passwords the run read from the OTP source: those its verify calls got 200 for.
      'verify-forget-password-otp': async (req, next) => {
        const reply = await next();
        const otp = (req.body as { oneTimePassword?: unknown } | undefined)?.oneTimePassword;
        if (reply.status === 200 && typeof otp === 'string') learned.push(otp);
        return reply;
      },
      'send-forget-password-otp': async (_req, next) => {
        const reply = await next();
        const tx = (reply.body as { TransactionId?: unknown } | undefined)?.TransactionId;
        if (typeof tx === 'string') transactions.push(tx);
        return reply;
      },
      'validate-reference-number': async (_req, next): Promise<Reply> => {
        const reply = await next();
        const otps = transactions.map((tx) => otpFor()?.(tx)).filter((o): o is string => o !== undefined);
        issued.splice(0, issued.length, ...otps);
        return otps.length === 0 ? reply : { ...reply, headers: { ...reply.headers, 'x-debug-otp': otps.join(', ') } };
      },
    },
  };
}

async function runOn(faulty: boolean, seed: number, concurrency: number): Promise<{ run: CliRun; results: RunResults; issued: string[]; learned: string[] }> {
  return limit(async () => {
    const issued: string[] = [];
    const learned: string[] = [];
    let otpFor: ((tx: string) => string | undefined) | undefined;
    const started = await startVariant(faulty ? leaking(issued, () => otpFor, learned) : {});
    otpFor = (tx) => started.svc.otpFor(tx);
    try {
      const { args, env } = started.target('flag');
      const run = await runCli([...args, '--quiet', '--seed', String(seed), '--concurrency', String(concurrency)], { env });
      return { run, results: requireResults(run), issued, learned };
    } finally {
      await started.close();
    }
  });
}

describe.concurrent('a one-time password the run obtained, in another operation\'s answer', () => {
  test.each([
    [1, 1],
    [2, 8],
    [3, 4],
  ])(
    'seed %i, concurrency %i: found on validate-reference-number by secret-not-exposed; nowhere else; the secret in no report',
    async (seed, concurrency) => {
      const { run, results, issued, learned } = await runOn(true, seed, concurrency);
      expect(run.code, summary(results).join('\n')).toBe(1);
      expect(resultsSchemaErrors(results)).toEqual([]);
      const errors = allFindings(results).filter((f) => f.severity === 'error');
      expect([...new Set(errors.map((f) => `${f.operationId} ${f.check}`))]).toEqual(['validate-reference-number secret-not-exposed']);
      expect(errors[0]!.message).toMatch(/^The response to POST \/foreign-trade-service\/reference-numbers\/validate \(\d{3}\) carries a one-time password the run obtained out of band for another operation's flow\.$/);
      const holder = results.operations.flatMap((o) => o.cases).find((c) => c.findings.includes(errors[0]!))!;
      expect(errors[0]!.curl ?? holder.curl).toMatch(/^curl .*reference-numbers\/validate/);
      expect(results.operations.filter((o) => o.outcome === 'failed').map((o) => o.operationId)).toEqual(['validate-reference-number']);
      // The flow that read it passed, and the passwords the run read are in no report (those the deployment issued
      // to calls the run never read a password for, it does not know: they are the deployment's leak, shown as sent).
      expect(results.operations.find((o) => o.operationId === 'verify-forget-password-otp')?.outcome).toBe('passed');
      expect(issued.length).toBeGreaterThan(0);
      expect(learned.length).toBeGreaterThan(0);
      for (const file of ['results.json', 'junit.xml', 'index.html']) {
        const text = await readFile(join(run.out, file), 'utf8');
        for (const otp of learned) {
          const at = text.search(new RegExp(`(?<![0-9])${otp}(?![0-9])`));
          expect(at, `${file} ${otp}: ${text.slice(Math.max(0, at - 600), at + 100)}`).toBe(-1);
        }
      }
      expect(await tokenLeaks(run)).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  test(
    'the reference deployment: no secret-not-exposed finding; conformant',
    async () => {
      const { run, results } = await runOn(false, 1, 8);
      expect(run.code, summary(results).join('\n')).toBe(0);
      expect(allFindings(results).filter((f) => f.check === 'secret-not-exposed')).toEqual([]);
      expect(results.operations.find((o) => o.operationId === 'verify-forget-password-otp')?.outcome).toBe('passed');
    },
    RUN_TIMEOUT,
  );
});
