/**
 * The console's curl lines read back and pasted into a shell: each line under a failing finding states how many
 * requests answered which status; replayed against the same server, a line that needs no record made first must
 * answer that status.
 */
import { spawn, spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import type { CliRun } from './runs.ts';

export const HAS_CURL = spawnSync('curl', ['--version']).status === 0;

/** A console line under a failing finding: its count and status, whether it needs a record first, its curl line. */
export interface Line {
  operation: string;
  finding: string;
  status: number;
  needs?: string;
  curl: string;
}

const LINE = /^ {11}(\d+) requests? answered (\d{3})(?: · (needs a record the run made first[^·]*))? · (curl .+)$/;

/** The curl lines of the console's failing operations, each with the finding line above it and its operation. */
export function curlLines(stdout: string): Line[] {
  const section = stdout.split('Failed, missing, flaky and errored operations:\n')[1]?.split('\n\n')[0] ?? '';
  const out: Line[] = [];
  let operation = '';
  let finding = '';
  for (const line of section.split('\n')) {
    const op = /^ {2}\S+\s+(\S+)/.exec(line);
    if (op) operation = op[1]!;
    else if (/^ {11}\S+.*?: [a-z-]+: /.test(line) && !LINE.test(line)) finding = line.trim();
    const m = LINE.exec(line);
    if (m) out.push({ operation, finding, status: Number(m[2]), ...(m[3] ? { needs: m[3] } : {}), curl: m[4]! });
  }
  return out;
}

/** Runs a shell command (asynchronously: the server lives in this process), with no proxy and no curl config. */
export function shell(program: 'sh' | 'bash', command: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, ['-c', command], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/nonexistent-home', ...env }, timeout: 30_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What the curl line is answered now: the status alone. */
export async function replay(curl: string, env: Record<string, string> = {}): Promise<string> {
  const run = await shell('sh', `${curl} -sS -o /dev/null -w '%{http_code}'`, env);
  expect(run.stderr, curl).toBe('');
  return run.stdout;
}

/**
 * Replays every line of the run's console that needs no record made first against the server the run ran
 * against (still up), with `env` (the credential variables the lines name), and asserts that each answers the
 * status the line states. Returns how many lines were replayed.
 */
export async function expectLinesReplay(run: CliRun, env: Record<string, string> = {}): Promise<number> {
  if (!HAS_CURL) throw new Error('curl is not installed: the printed lines cannot be replayed');
  const lines = curlLines(run.stdout);
  // Every line of the section that states an answered status is one read here (a changed line format would
  // otherwise replay nothing and pass).
  const section = run.stdout.split('Failed, missing, flaky and errored operations:\n')[1]?.split('\n\n')[0] ?? '';
  const printed = section.split('\n').filter((l) => /^ {11}\d+ requests? answered \d{3}\b.* · curl /.test(l));
  expect(lines.length, `the curl lines read of the ${printed.length} printed\n${section}`).toBe(printed.length);
  const alone = lines.filter((l) => l.needs === undefined);
  for (const l of alone) expect(await replay(l.curl, env), `${l.operation}: ${l.finding}\n${l.curl}`).toBe(String(l.status));
  return alone.length;
}
