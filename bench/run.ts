/**
 * Benchmark: N full conformance runs against the embedded reference service, each in a fresh Node process.
 * Reports the median wall time, the spread and peak memory, and writes bench/results/latest.json.
 *   npm run bench            (5 runs)
 *   BENCH_RUNS=9 npm run bench
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const runs = Number(process.env['BENCH_RUNS'] ?? 5);

interface Sample {
  exitCode: number;
  wallMs: number;
  maxRssMiB: number;
  cases: number;
  requests: number;
}

const samples: Sample[] = [];
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  const line = execFileSync(process.execPath, ['--import', 'tsx', 'bench/one-run.ts'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const sample = JSON.parse(line.trim().split('\n').at(-1) ?? '{}') as Sample;
  samples.push(sample);
  process.stdout.write(`run ${i + 1}/${runs}: ${sample.wallMs} ms in-process, ${Math.round(performance.now() - started)} ms with process start, ${sample.maxRssMiB} MiB peak RSS, exit ${sample.exitCode}\n`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
};
const wall = samples.map((s) => s.wallMs);
const summary = {
  date: new Date().toISOString(),
  node: process.version,
  runs,
  medianWallMs: median(wall),
  minWallMs: Math.min(...wall),
  maxWallMs: Math.max(...wall),
  medianMaxRssMiB: median(samples.map((s) => s.maxRssMiB)),
  cases: samples[0]?.cases,
  requests: samples[0]?.requests,
  allExitedZero: samples.every((s) => s.exitCode === 0),
};
mkdirSync(`${root}bench/results`, { recursive: true });
writeFileSync(`${root}bench/results/latest.json`, `${JSON.stringify({ summary, samples }, null, 2)}\n`);
process.stdout.write(`\n${JSON.stringify(summary, null, 2)}\n`);
