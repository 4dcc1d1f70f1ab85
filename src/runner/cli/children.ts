/**
 * No process outlives the CLI. The tools the run uses start helper processes of their own (vite's esbuild
 * service, started unreferenced, exits only when its stdin closes, that is after this process is gone, and is
 * then left for an init that may never reap it). Before the CLI exits it stops those services and waits until
 * every child of this process has ended and been reaped; what is still there after a grace period is killed.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Child process ids of this process (every thread's children; Linux /proc). Empty where /proc is absent. */
export function childPids(): number[] {
  const pids: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return pids;
  }
  for (const task of tasks) {
    try {
      for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/)) {
        if (pid) pids.push(Number(pid));
      }
    } catch {
      // the thread ended meanwhile
    }
  }
  return pids;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The child processes the calling thread started and has not reaped yet (Linux /proc; empty where it is absent). */
function threadChildren(): string[] {
  try {
    return readFileSync('/proc/thread-self/children', 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Waits (up to graceMs) until the child processes this thread started have ended and been reaped. A worker thread
 * calls it before it ends: only its own event loop reaps what it started, and a child that ends after the thread
 * is left a zombie that the CLI's last wait (endChildProcesses) can only wait out.
 */
export async function ownChildrenEnded(graceMs = 1_000): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (threadChildren().length > 0 && Date.now() < deadline) await sleep(10);
}

/** Stops the helper services the run started and waits (up to graceMs) for every child process to end. */
export async function endChildProcesses(graceMs = 3_000): Promise<void> {
  // No child at all (e.g. --help, or a run without vitest): no esbuild service either, nothing to load.
  if (childPids().length === 0) return;
  try {
    const esbuild = (await import('esbuild')) as { stop?: () => unknown };
    await esbuild.stop?.();
  } catch {
    // esbuild not loaded or not installed: nothing to stop
  }
  const deadline = Date.now() + graceMs;
  let killed = false;
  for (;;) {
    const pids = childPids();
    if (pids.length === 0) return;
    if (Date.now() > deadline) {
      if (killed) return;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      killed = true;
    }
    await sleep(25);
  }
}

/**
 * SIGINT/SIGTERM while nothing else handles them (before or after the run's own handler is installed):
 * end the helper processes and exit 2, instead of dying with them left behind.
 */
export function exitCleanlyOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return; // the run handles it: it writes partial reports and ends
      process.stderr.write(`\nconformance: interrupted (${signal})\n`);
      void endChildProcesses(1_000).finally(() => process.exit(2));
    };
    process.on(signal, onSignal);
  }
}
