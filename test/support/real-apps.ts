/**
 * Helpers of the real-application tests: the published example apps that test/real-apps/install.sh builds
 * into the test cache and links under .venv-real-apps, started as child processes on 127.0.0.1, and the engine run against them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join } from 'node:path';
import { request } from 'undici';
import type { Finding, RunResults } from '../../src/runner/model.ts';
import { allFindings, requireResults, ROOT, runCli, tempDir } from './runs.ts';

export const VENVS = join(ROOT, '.venv-real-apps');
/**
 * Time limit of one app's start and engine run. Most runs take seconds; Django REST framework's takes about three
 * minutes (8,100 requests to a single-process development server, about 45 a second), more on a shared machine.
 */
export const RUN_TIMEOUT = 480_000;

/**
 * Installs the apps `names` (install.sh builds each once into the test cache, keyed by its pins, and links it
 * under VENVS; a cached build is only linked); returns why they cannot be had, or undefined. `tools` are the
 * commands a build needs (python3 is always checked), asked only when a build is missing.
 */
export function ensureInstalled(names: string[], tools: Array<{ command: string[]; why: string }> = []): string | undefined {
  const cached = spawnSync('bash', [join(ROOT, 'test/real-apps/install.sh'), '--check', VENVS, ...names], { stdio: 'pipe' });
  if (cached.status !== 0) {
    for (const tool of [{ command: ['python3', '-m', 'venv', '--help'], why: 'python3 with venv is not installed (.ci/run installs python3-venv)' }, ...tools]) {
      const probe = spawnSync(tool.command[0] ?? '', tool.command.slice(1), { stdio: 'ignore' });
      if (probe.status !== 0) return tool.why;
    }
  }
  const install = spawnSync('bash', [join(ROOT, 'test/real-apps/install.sh'), VENVS, ...names], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 1_800_000 });
  process.stderr.write(String(install.stderr));
  return install.status === 0 ? undefined : `could not install the example apps: ${String(install.stderr).trim().split('\n').at(-1)}`;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface App {
  /** Base URL of the app's API (what --base-url gets). */
  url: string;
  /** The OpenAPI description, saved to a file. */
  spec: string;
  stop(): Promise<void>;
}

export interface AppStart {
  name: string;
  command: string;
  args: (port: number) => string[];
  cwd: string;
  env?: Record<string, string>;
  /** The API's base path under http://127.0.0.1:PORT ('' or e.g. '/api'). */
  basePath?: string;
  /** Where the description comes from: a path under the base URL that serves it, or a file the app ships. */
  spec: { served: string } | { file: string };
  /** A path (under the base URL) that answers 200 once the app is up, when the description is a file. */
  ready?: string;
}

/** Starts an app on a free port of 127.0.0.1 and saves its description once it answers. */
export async function startApp(start: AppStart): Promise<App> {
  const port = await freePort();
  const child: ChildProcess = spawn(start.command, start.args(port), {
    cwd: start.cwd,
    env: { ...process.env, ...start.env },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}${start.basePath ?? ''}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const probe = 'served' in start.spec ? start.spec.served : (start.ready ?? '/');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await request(`${url}${probe}`);
      const text = await res.body.text();
      if (res.statusCode === 200) {
        const spec = join(await tempDir(), `${start.name}.openapi${'file' in start.spec ? start.spec.file.slice(start.spec.file.lastIndexOf('.')) : '.json'}`);
        if ('served' in start.spec) await writeFile(spec, text);
        else await copyFile(start.spec.file, spec);
        return { url, spec, stop };
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`${start.name} did not start`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The engine against an app: its description, its base URL, the given seed, the passed exchanges kept. With
 * KEEP_APP_RESULTS=<dir>, each run's results.json is kept there too (<description file>-seed<N>-<time>.json), to
 * replay what a run reported.
 */
export async function runEngine(app: App, seed = 1, extra: string[] = []): Promise<RunResults> {
  const run = await runCli(
    ['--spec', app.spec, '--base-url', app.url, '--token', 'real-apps-token', '--allow-irreversible', '--quiet', '--seed', String(seed), '--keep-passed-exchanges', '--timeout', '60000', ...extra],
    { killAfterMs: RUN_TIMEOUT - 20_000 },
  );
  const results = requireResults(run);
  const keep = process.env.KEEP_APP_RESULTS;
  if (keep) {
    await mkdir(keep, { recursive: true });
    await writeFile(join(keep, `${basename(app.spec).replace(/\.[^.]*$/, '')}-seed${seed}-${Date.now()}.json`), JSON.stringify(results));
  }
  return results;
}

/** "<operationId> <check>" of every error finding of the contract's own operations (scenario suites aside). */
export function found(results: RunResults): string[] {
  return bySeverity(results, 'error');
}

/** The warnings of a run, as "<operationId> <check>" (documented operations only), sorted, once each. */
export function warned(results: RunResults): string[] {
  return bySeverity(results, 'warning');
}

/** What the app accepted leniently, as "<operationId> <input class>" (documented operations only), sorted, once each. */
export function lenient(results: RunResults): string[] {
  const ops = new Set(results.operations.filter((o) => o.method !== null).map((o) => o.operationId));
  return [...new Set(allFindings(results).filter((f) => f.lenient && ops.has(f.operationId)).map((f) => `${f.operationId} ${f.inputClass}`))].sort();
}

function bySeverity(results: RunResults, severity: Finding['severity']): string[] {
  const ops = new Set(results.operations.filter((o) => o.method !== null).map((o) => o.operationId));
  return [
    ...new Set(
      allFindings(results)
        .filter((f: Finding) => f.severity === severity && ops.has(f.operationId))
        .map((f) => `${f.operationId} ${f.check}`),
    ),
  ].sort();
}

/** Requests the run sent to the app (every exchange of every case, passed ones included). */
export function requestsSent(results: RunResults): number {
  return results.operations.reduce((n, o) => n + o.cases.reduce((m, c) => m + c.exchanges.length, 0), 0);
}
