/**
 * Scenario suites (the test files of the packs that apply, and the user's own) run in vitest, loaded only when a run selects them. Their case results
 * come back per operationId, to be joined with the generated cases into one results model.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fork } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CliOptions, Reporter, Vitest } from 'vitest/node';
import type { CaseResult, Contract } from '../model.ts';
import type { RunConfig } from './config.ts';
import { suitePoolOptions } from './in-thread-pool.ts';

export interface ScenarioRun {
  /** Cancel the scenarios (an interrupted run). */
  cancel(): void;
  readonly done: Promise<{ cases: Map<string, CaseResult[]>; errors: string[]; interrupted: boolean; notes?: string[] }>;
}

const nothing = (): void => undefined;

/** Each operation's description file: a suite's worker loads only the files holding the operations it names. */
function operationFiles(contract: Contract): Record<string, string> {
  const files = new Map(contract.services.map((s) => [s.id, s.file]));
  return Object.fromEntries(contract.operations.map((o) => [o.operationId, files.get(o.service) ?? '']));
}

/** What the suites' process is given (by IPC: the configuration holds the credentials, never an argument). */
export interface ScenarioInput {
  root: string;
  config: RunConfig;
  operationFiles: Record<string, string>;
  include: string[];
  exclude?: string[];
}

const COMPILED = import.meta.url.endsWith('.js');
const CHILD = fileURLToPath(new URL(COMPILED ? './scenarios-child.js' : './scenarios-child.ts', import.meta.url));
const require = createRequire(import.meta.url);

/**
 * Runs the suites on a thread of this process, or in a process of their own (`ownProcess`, a large run, which runs
 * them before its cases): either way vitest, vite and what they load (an es-module-lexer of 16 MB, their code, the
 * suites' sessions) leave with it when the suites end instead of staying with the run to its reports. A process
 * costs a second Node (the seed run: 270-285 MiB for both, 185-195 in one; 194-205 with the thread).
 */
export function runScenarios(input: { root: string; config: RunConfig; contract: Contract; include: string[]; exclude?: string[] }, ownProcess: boolean): ScenarioRun {
  const { contract, ...rest } = input;
  const message: ScenarioInput = { ...rest, operationFiles: operationFiles(contract) };
  return ownProcess ? inProcess(message) : onThread(message);
}

/** How long the suites' process may take to end once it has answered. */
const ANSWERED_EXIT_MS = 5_000;

function inProcess(message: ScenarioInput): ScenarioRun {
  const child = fork(CHILD, [], {
    // A young generation of 2 MB (V8's default grows to 16): the suites' process starts while the run's own holds the
    // loaded contract, and the two together are the peak of a large run (a contract of 2,770 operations with its
    // suites against all-404: 254-257 MiB instead of 265-276, in no more time).
    execArgv: ['--max-semi-space-size=2', ...(COMPILED ? [] : ['--import', pathToFileURL(require.resolve('tsx')).href])],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const done = new Promise<Awaited<ScenarioRun['done']>>((resolve, reject) => {
    let answer: ChildAnswer | undefined;
    let stuck: NodeJS.Timeout | undefined;
    let ended = false;
    child.on('message', (m: ChildAnswer) => {
      answer = m;
      // Answered, the process ends: one that does not within a few seconds is ended, never waited for.
      stuck = setTimeout(() => {
        ended = true;
        child.kill('SIGKILL');
      }, ANSWERED_EXIT_MS);
      stuck.unref();
    });
    child.on('error', (e) => reject(e));
    child.on('exit', (code, signal) => {
      clearTimeout(stuck);
      const stopped = `conformance: warning: the scenario suites' process had not ended ${ANSWERED_EXIT_MS / 1000} s after it answered; it was stopped (its results stand)`;
      if (answer && 'outcome' in answer) resolve(ended ? { ...answer.outcome, notes: [stopped] } : answer.outcome);
      else reject(new Error(answer?.error ?? `their process ended without results (${signal ?? `exit ${code}`})`));
    });
  });
  child.send(message);
  return {
    cancel() {
      if (child.connected) child.send('cancel');
    },
    done,
  };
}

/**
 * The suites on a thread of this process: vitest, vite and the module graph they load stay off the run's own
 * thread, which plans, sends and judges the generated cases meanwhile, and leave with the thread when the suites
 * end. (Loaded on the run's own thread, vitest held a default run's cases back: on two cores, against a deployment
 * in its own process, 1.74-1.83 s a run instead of 1.61-1.68.)
 */
function onThread(message: ScenarioInput): ScenarioRun {
  const tsx = COMPILED ? '' : pathToFileURL(join(dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
  const worker = COMPILED
    ? new Worker(CHILD)
    : new Worker(`import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(CHILD).href)}); })`, { eval: true });
  const done = new Promise<Awaited<ScenarioRun['done']>>((resolve, reject) => {
    let answer: ChildAnswer | undefined;
    worker.on('message', (m: ChildAnswer) => {
      answer = m;
      void worker.terminate();
    });
    worker.on('error', (e) => reject(e));
    worker.on('exit', (code) => {
      if (answer && 'outcome' in answer) resolve(answer.outcome);
      else reject(new Error(answer?.error ?? `their thread ended without results (exit ${code})`));
    });
  });
  worker.postMessage(message);
  return {
    cancel: () => worker.postMessage('cancel'),
    done,
  };
}

/** What the suites' process answers. */
export type ChildAnswer = { outcome: Awaited<ScenarioRun['done']> } | { error: string };

/** Runs the suites in this process. */
export function runScenariosHere(input: ScenarioInput): ScenarioRun {
  let cancelled = false;
  let cancel: () => void = () => undefined;
  const done = (async () => {
    const [{ createVitest }, { ConformanceCollector }, pool] = await Promise.all([import('vitest/node'), import('../report/vitest-reporter.ts'), suitePoolOptions()]);
    let gathered: { cases: Map<string, CaseResult[]>; errors: string[]; interrupted: boolean } = { cases: new Map(), errors: [], interrupted: false };
    const collector = new ConformanceCollector({
      operations: [],
      allOperations: [],
      plannedCases: {},
      onEnd: (operations, end) => {
        gathered = { cases: new Map(operations.map((o) => [o.operationId, o.cases])), errors: end.errors, interrupted: end.reason === 'interrupted' };
      },
    });
    const vitest = await createSuitesVitest(createVitest, input, collector, pool);
    cancel = () => void vitest.cancelCurrentRun('keyboard-input');
    try {
      if (!cancelled) await vitest.start();
    } finally {
      // The run keeps this object until its end: it must not keep vitest (and its module graph) with it. A
      // function made in this scope would (it holds this scope's variables, vitest among them).
      cancel = nothing;
      await vitest.close();
      await stopTransformService();
    }
    return { ...gathered, interrupted: gathered.interrupted || cancelled };
  })();
  return {
    cancel() {
      cancelled = true;
      cancel();
    },
    done,
  };
}

/**
 * vitest made for the suites, without the SIGINT/SIGTERM listeners it installs: they exit the process at once,
 * and an interrupt must still write the reports.
 */
async function createSuitesVitest(createVitest: typeof import('vitest/node').createVitest, input: ScenarioInput, collector: Reporter, pool: Awaited<ReturnType<typeof suitePoolOptions>>): Promise<Vitest> {
  const signalListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  // vitest installs SIGINT/SIGTERM listeners that exit the process at once; while it starts, keep them from
  // being installed at all (an interrupt then must still write the reports), and remove any left afterwards.
  const restore = { on: process.on, once: process.once };
  process.on = skipSignals(restore.on);
  process.once = skipSignals(restore.once);
  const vitest = await createVitest('test', suitesOptions(input, collector, pool), { logLevel: 'silent', server: { watch: null }, ...builtTesting() }).finally(() => {
    process.on = restore.on;
    process.once = restore.once;
  });
  // vitest adds listeners that exit the process at once on SIGINT/SIGTERM; drop them so the run can end
  // cleanly and write its reports with what was measured.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const listener of process.listeners(signal)) {
      if (!signalListeners[signal].includes(listener)) process.off(signal, listener);
    }
  }
  return vitest;
}

/** A process.on (or once) that installs no SIGINT or SIGTERM listener. */
function skipSignals(register: typeof process.on): typeof process.on {
  return function (this: NodeJS.Process, event: string | symbol, listener: (...args: unknown[]) => void) {
    if (event === 'SIGINT' || event === 'SIGTERM') return this;
    return register.call(this, event, listener);
  } as typeof process.on;
}

/** vitest's options for the suites: their files, the run's configuration provided to them, their timeouts and pool. */
function suitesOptions(input: ScenarioInput, collector: Reporter, pool: Awaited<ReturnType<typeof suitePoolOptions>>): CliOptions {
  return {
    config: false,
    root: input.root,
    watch: false,
    include: input.include,
    exclude: [...(input.exclude ?? []), '**/node_modules/**'],
    reporters: [collector],
    provide: { conformance: input.config, conformanceOperations: input.operationFiles },
    maxConcurrency: input.config.concurrency,
    testTimeout: input.config.timeoutMs * 8 + 5_000,
    hookTimeout: input.config.timeoutMs * 40 + 10_000,
    passWithNoTests: true,
    // The suites run in this thread or process, one file after another (in-thread-pool.ts), else on vitest's threads.
    ...pool,
    // The suite files of a worker share one module graph: the engine (and its session: one per worker,
    // testing/index.ts) is imported once, not once per file (about 0.5 s of a default run's 2 s).
    isolate: false,
    fileParallelism: true,
    ...builtTestingExternal(),
  };
}

/**
 * Run from the built CLI, a suite's import of `src/runner/testing/index.ts` is the built module beside it, which
 * the suites' worker loads as Node loads any package (not through vite's transform): the engine's sources are
 * not transformed again on every run (about 0.8 s of the scenario phase).
 */
function builtTestingFile(): string | undefined {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const built = join(here, 'testing.js');
  return /[\\/]dist[\\/]runner[\\/]cli[\\/]$/.test(here) && existsSync(built) ? built : undefined;
}

function builtTesting(): { resolve?: { alias: Array<{ find: RegExp; replacement: string }> } } {
  const built = builtTestingFile();
  return built ? { resolve: { alias: [{ find: /^.*[\\/]src[\\/]runner[\\/]testing[\\/]index\.ts$/, replacement: built }] } } : {};
}

function builtTestingExternal(): { server?: { deps: { external: RegExp[] } } } {
  return builtTestingFile() ? { server: { deps: { external: [/[\\/]dist[\\/]runner[\\/]cli[\\/][^\\/]+\.js$/] } } } : {};
}

/**
 * vite transforms the suites through esbuild's service, a child process of its own (about 17 MB) that would
 * otherwise live on through the reports until the CLI ends: once the suites are done it is stopped (esbuild
 * starts it again if anything else asks for a transform).
 */
async function stopTransformService(): Promise<void> {
  try {
    const esbuild = (await import('esbuild')) as { stop?: () => unknown };
    await esbuild.stop?.();
  } catch {
    // esbuild not installed: nothing was started
  }
}
