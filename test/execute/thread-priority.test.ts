/**
 * The scenario suites' thread lowers its own priority (execute/thread-priority.ts): on Linux the nice value of that
 * thread alone changes, never the process's or another thread's.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { SUITES_NICE } from '../../src/runner/execute/thread-priority.ts';
import { ROOT } from '../support/runs.ts';

/** A thread's nice value as the kernel reports it (field 19 of /proc/<pid>/task/<tid>/stat). */
const niceOf = (tid: number): number => Number(readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[16]);

test.runIf(process.platform === 'linux')('a thread lowers its own priority and no other thread\'s; the process\'s main thread is never changed', async () => {
  const threadSelf = () => Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]);
  const before = niceOf(threadSelf());
  // A thread of its own, loading the module as this file does (tsx), reports its id and what the call answered.
  const worker = new Worker(
    `import('tsx/esm/api').then(async ({ register }) => { register(); const { parentPort } = await import('node:worker_threads'); const { readFileSync } = await import('node:fs');
       const { lowerThisThreadPriority } = await import(${JSON.stringify(new URL('../../src/runner/execute/thread-priority.ts', import.meta.url).href)});
       const tid = Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]);
       const lowered = lowerThisThreadPriority(); const again = lowerThisThreadPriority();
       parentPort.postMessage({ tid, lowered, again }); setTimeout(() => {}, 2000); parentPort.once('message', () => process.exit(0)); });`,
    { eval: true },
  );
  const { tid, lowered, again } = await new Promise<{ tid: number; lowered: boolean; again: boolean }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    expect(lowered).toBe(true);
    // Never raised or set twice: already at that value.
    expect(again).toBe(false);
    expect(niceOf(tid)).toBe(SUITES_NICE);
    expect(niceOf(threadSelf())).toBe(before);
    expect(niceOf(process.pid)).toBe(0);
  } finally {
    worker.postMessage('end');
    await worker.terminate();
  }
});

test.runIf(process.platform === 'linux')('called on a process\'s main thread it changes nothing: there the call would reach the whole process', async () => {
  const script = `const { lowerThisThreadPriority } = await import(${JSON.stringify(new URL('../../src/runner/execute/thread-priority.ts', import.meta.url).href)});
    const { getPriority } = await import('node:os');
    const lowered = lowerThisThreadPriority();
    process.stdout.write(JSON.stringify({ lowered, nice: getPriority(process.pid) }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
  expect(JSON.parse(stdout)).toEqual({ lowered: false, nice: 0 });
});
