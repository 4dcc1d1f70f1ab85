/**
 * Honest verdicts: the gate never goes green on what it did not check. Each test runs the CLI (a child
 * process in its own process group) against a reference-service variant and reads every report back.
 */
import { existsSync } from 'node:fs';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { OPERATION_IDS, startReferenceService, type ReferenceService, type Variant } from '../../src/reference-service/index.ts';
import type { RunResults } from '../../src/runner/model.ts';
import { serialiseResults } from '../../src/runner/report/write.ts';
import { operation, pool, removeTemps, requireResults, resultsSchemaErrors, runCli, startVariant, tempDir, TOKEN, type CliRun } from '../support/runs.ts';

const limit = pool(2);
const RUN_TIMEOUT = 240_000;

afterAll(removeTemps);

/** The irreversible operations, and validate-reference-number, whose positive case needs one of them. */
const UNTESTED_BY_DEFAULT = [
  'create-user',
  'customer-refresh-cache',
  'get-foreign-trade-reference-number',
  'send-forget-password-otp',
  'validate-reference-number',
  'verify-forget-password-otp',
];

async function reportText(run: CliRun): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of ['results.json', 'junit.xml', 'index.html']) {
    const path = join(run.out, file);
    if (existsSync(path)) files[file] = await readFile(path, 'utf8');
  }
  return files;
}

/** Runs the CLI against a variant started with `token`; target flags given by `args(svc)`. */
function against(variant: Variant, token: string, args: (svc: ReferenceService) => string[], env: Record<string, string> = {}): Promise<CliRun> {
  return limit(async () => {
    const svc = await startReferenceService({ token, port: 0, variant });
    try {
      return await runCli([...args(svc), '--quiet'], { env, ownGroup: true });
    } finally {
      await svc.close();
    }
  });
}

const both = (svc: ReferenceService) => ['--base-url', svc.customerBaseUrl, '--foreign-trade-base-url', svc.foreignTradeBaseUrl];

describe('a default run against a deployment (no --allow-irreversible), with the one-letter token T', () => {
  // Passed cases keep their exchanges and curl lines, so every redacted header reaches the reports.
  const run = against({}, 'T', (svc) => [...both(svc), '--token', 'T', '--keep-passed-exchanges']);

  test(
    'the irreversible operations are untested with the reason, never passed; the rest pass; exit 0',
    async () => {
      const r = await run;
      const results = requireResults(r);
      expect(r.code, r.stderr).toBe(0);
      expect(resultsSchemaErrors(results)).toEqual([]);
      for (const id of UNTESTED_BY_DEFAULT) {
        const op = operation(results, id);
        expect(op.outcome, id).toBe('untested');
        expect(op.reason, id).toMatch(/irreversible/);
        expect(op.cases.find((c) => c.name === 'positive')?.outcome, id).toBe('skipped');
        expect(op.ran, id).toContain('presence');
      }
      expect(results.counts.passed).toBe(9);
      expect(results.counts.untested).toBe(6);
      expect(results.counts.failed).toBe(0);
      expect(results.verdict).toBe('conformant');
      expect(results.verdictLine).toBe(
        'conformant for 9 of 15 operations; 6 untested: irreversible side effects (pass --allow-irreversible against a disposable deployment)',
      );
      expect(r.stdout).toContain('Verdict: conformant for 9 of 15 operations; 6 untested');
      expect(r.stdout).toMatch(/Cases: \d+ ran · \d+ cases skipped/);
      const files = await reportText(r);
      expect(files['junit.xml']).toContain('<skipped message="untested: irreversible side effect');
      expect(files['index.html']).toContain('data-outcome="untested"');
      expect(files['index.html']).toContain('6 untested: irreversible side effects');
    },
    RUN_TIMEOUT,
  );

  test(
    "validate-reference-number's auth cases run without the generated reference they do not need",
    async () => {
      const op = operation(requireResults(await run), 'validate-reference-number');
      const auth = op.cases.filter((c) => c.kind === 'auth');
      expect(auth.length).toBeGreaterThanOrEqual(3);
      for (const c of auth) expect(c.outcome, c.name).toBe('passed');
      expect(op.ran).toEqual(expect.arrayContaining(['presence', 'auth']));
      // The positive case proper needs the generated reference: it did not run.
      expect(op.cases.find((c) => c.name === 'positive')?.outcome).toBe('skipped');
    },
    RUN_TIMEOUT,
  );

  test(
    'the token T is redacted by header name: "Bearer T" appears in no report, log or curl line',
    async () => {
      const r = await run;
      const files = await reportText(r);
      for (const [name, text] of Object.entries({ ...files, stdout: r.stdout, stderr: r.stderr })) {
        expect(text.includes('Bearer T"') || /Bearer T(?![A-Za-z0-9_-])/.test(text), name).toBe(false);
      }
      const curls = requireResults(r).operations.flatMap((o) => o.cases.map((c) => c.curl ?? '')).filter(Boolean);
      expect(curls.some((c) => c.includes('Bearer $CONFORMANCE_TOKEN'))).toBe(true);
    },
    RUN_TIMEOUT,
  );

  test('no process of the run is left in its process group', async () => {
    expect((await run).leftover).toEqual([]);
  }, RUN_TIMEOUT);
});

describe('configuration problems are named, not blamed on the service', () => {
  test(
    'a wrong token stops the run: "the deployment rejected the credentials", exit 2, reports written, nothing left behind',
    async () => {
      const r = await against({}, TOKEN, (svc) => [...both(svc), '--token', 'not-the-token-of-this-deployment']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^conformance: the deployment rejected the credentials \(401 on (\d+) of \1 calls\)/m);
      const results = requireResults(r);
      expect(results.verdict).toBe('incomplete');
      expect(results.stopped).toMatch(/rejected the credentials/);
      expect(results.counts.failed).toBe(0);
      expect(r.leftover).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  test(
    'a base URL without the service prefix: every operation missing is named as a wrong base URL, exit 2',
    async () => {
      const r = await against({}, TOKEN, (svc) => ['--base-url', svc.url, '--include', '/address-types', '--token', TOKEN]);
      expect(r.code).toBe(2);
      const results = requireResults(r);
      expect(results.verdict).toBe('incomplete');
      expect(r.stderr).toContain(`every operation of customer-service is missing: its base URL ${r.results?.target.services[0]?.baseUrl} is probably wrong (it answered 404`);
    },
    RUN_TIMEOUT,
  );
});

describe('an errored operation makes the run incomplete everywhere', () => {
  // A reply the HTTP client cannot read (Content-Length with Transfer-Encoding): the tool's problem, not the service's.
  const variant: Variant = {
    handlers: { 'customer-get-cache-key-list': () => ({ status: 200, headers: { 'transfer-encoding': 'chunked' }, body: '[]' }) },
  };
  // One service alone: only the customer base URL, no foreign-trade URL.
  const run = limit(async () => {
    const started = await startVariant(variant);
    try {
      return await runCli(['--base-url', started.svc.customerBaseUrl, '--token', TOKEN, '--include', 'customer-get-cache-key-list', '--quiet'], { ownGroup: true });
    } finally {
      await started.close();
    }
  });

  test(
    'results.json, JUnit, HTML and the exit code say incomplete; testing one service needs only its base URL',
    async () => {
      const r = await run;
      expect(r.code, r.stderr).toBe(2);
      const results = requireResults(r);
      expect(results.target.services.map((s) => s.id)).toEqual(['customer-service']);
      expect(operation(results, 'customer-get-cache-key-list').outcome).toBe('errored');
      expect(results.verdict).toBe('incomplete');
      expect(r.stderr).toContain('conformance: 1 operation errored (tool or network problems): the run cannot vouch for it');
      const files = await reportText(r);
      expect(files['junit.xml']).toContain('<property name="verdict" value="incomplete"/>');
      expect(files['index.html']).toContain('class="verdict v-incomplete"');
      expect(r.leftover).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  test(
    'merge of that run exits 2 as the run did; merges that are not one run are refused with one line, exit 2',
    async () => {
      const r = await run;
      const results = requireResults(r);
      const merged = await runCli(['merge', r.out]);
      expect(merged.code).toBe(2);
      expect(merged.results?.verdict).toBe('incomplete');

      /** A copy of the run's report directory as shard i/n, changed by `change`. */
      const shard = async (index: number, count: number, change: (x: RunResults) => void = () => {}): Promise<string> => {
        const dir = await tempDir();
        await cp(r.out, dir, { recursive: true });
        const copy: RunResults = { ...structuredClone(results), shard: { index, count } };
        change(copy);
        await writeFile(join(dir, 'results.json'), serialiseResults(copy));
        return dir;
      };
      const refused = async (dirs: string[], message: RegExp) => {
        const m = await runCli(['merge', ...dirs]);
        expect(m.code).toBe(2);
        const lines = m.stderr.split('\n').filter((l) => l.trim() !== '');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(message);
      };
      await refused([await shard(1, 3), await shard(2, 3)], /^conformance: cannot merge: shard 3\/3 missing/);
      await refused([await shard(1, 2), await shard(1, 2), await shard(2, 2)], /^conformance: cannot merge: shard 1\/2 given more than once/);
      await refused([await shard(1, 2), await shard(2, 2, (x) => (x.contract.hash = 'sha256:other'))], /^conformance: cannot merge: .* has contract hash/);
      await refused(
        [await shard(1, 2), await shard(2, 2, (x) => (x.target.services = [{ id: 'customer-service', baseUrl: 'http://127.0.0.1:1/customer-service' }]))],
        /^conformance: cannot merge: .* has targets/,
      );
      await refused([await shard(1, 2), await shard(2, 2, (x) => (x.seed = 99))], /^conformance: cannot merge: .* has seed 99/);
    },
    RUN_TIMEOUT,
  );
});

describe('hostile responses cannot turn a run green', () => {
  test(
    'a body nested 100,000 levels deep fails its case with a clear message (never skipped); the run exits 1',
    async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const variant: Variant = {
        handlers: { 'validate-reference-number': () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: deep }) },
      };
      // The foreign-trade service alone, with only its own base URL.
      const r = await against(variant, TOKEN, (svc) => [
        '--foreign-trade-base-url',
        svc.foreignTradeBaseUrl,
        '--token',
        TOKEN,
        '--include',
        'foreign-trade-service',
        '--allow-irreversible',
      ]);
      expect(r.code, r.stderr).toBe(1);
      const results = requireResults(r);
      const op = operation(results, 'validate-reference-number');
      expect(op.outcome).toBe('failed');
      // Shown in full in the first case that saw it (with its count); a later single-request case points to it
      // and still fails on it; coverage and fuzzing keep their own account.
      const full = 'Response 200: the JSON body is nested more than 512 levels deep; it cannot be validated.';
      const shown = op.cases.flatMap((c) => c.findings.filter((f) => f.message.startsWith(full)).map((f) => ({ kind: c.kind, severity: f.severity })));
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.every((f) => f.severity === 'error')).toBe(true);
      const positive = op.cases.find((c) => c.name === 'positive');
      expect(positive?.outcome).toBe('failed');
      expect(positive?.findings.some((f) => f.check === 'response-body-readable' && (f.message.startsWith(full) || f.message.startsWith('the same as in')))).toBe(true);
      expect(op.cases.filter((c) => c.kind !== 'coverage').flatMap((c) => c.findings.filter((f) => f.message.startsWith(full)))).toHaveLength(1);
      expect(operation(results, 'get-foreign-trade-reference-number').outcome).toBe('passed');
      expect(r.leftover).toEqual([]);
    },
    RUN_TIMEOUT,
  );
});

describe('no process outlives the CLI', () => {
  test(
    'interrupted by SIGTERM: partial reports, exit 2, and the process group is empty',
    async () => {
      let signalledAt = 0;
      const r = await limit(async () => {
        // Every operation hangs, so the signal always arrives while the run is still under way.
        const started = await startVariant({ handlers: Object.fromEntries(OPERATION_IDS.map((id) => [id, () => new Promise<never>(() => {})])) });
        try {
          const { args } = started.target('flag');
          return await runCli([...args, '--quiet', '--timeout', '60000'], {
            ownGroup: true,
            onSpawn: (child) => {
              setTimeout(() => {
                signalledAt = Date.now();
                child.kill('SIGTERM');
              }, 6_000);
            },
          });
        } finally {
          await started.close();
        }
      });
      expect(r.code).toBe(2);
      expect(r.leftover).toEqual([]);
      // The run waits on none of its hanging requests (each would take the 60 s --timeout).
      expect(Date.now() - signalledAt).toBeLessThan(30_000);
    },
    RUN_TIMEOUT,
  );
});
