/**
 * One full conformance run against the embedded reference service, in this process (vitest runs its suites in
 * worker threads of this process, so maxRSS covers the whole run). Prints one JSON line.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_SPECS, ROOT, runConformance } from '../src/runner/cli/run.ts';

const out = await mkdtemp(join(tmpdir(), 'conformance-bench-'));
const sink = { write: () => true } as unknown as NodeJS.WritableStream;
const started = performance.now();
const outcome = await runConformance({
  specs: DEFAULT_SPECS.map((s) => resolve(ROOT, s)),
  profile: resolve(ROOT, 'contract/profile.yaml'),
  examples: resolve(ROOT, 'contract/examples.yaml'),
  catalog: resolve(ROOT, 'contract/catalog.yaml'),
  waivers: resolve(ROOT, 'contract/waivers.yaml'),
  servers: {},
  timeoutMs: 10_000,
  concurrency: Number(process.env['BENCH_CONCURRENCY'] ?? 8),
  include: [],
  exclude: [],
  readOnly: false,
  allowIrreversible: false,
  out,
  seed: 1,
  failOn: 'error',
  quiet: true,
  stdout: sink,
  stderr: sink,
});
const wallMs = performance.now() - started;
const results = outcome.results;
const cases = results?.operations.reduce((n, o) => n + o.cases.length, 0) ?? 0;
const requests = results?.operations.reduce((n, o) => n + o.cases.reduce((m, c) => m + c.exchanges.length, 0), 0) ?? 0;
await rm(out, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ exitCode: outcome.exitCode, wallMs: Math.round(wallMs), maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024), cases, requests })}\n`,
);
