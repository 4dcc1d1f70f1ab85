/**
 * The scenario suites' thread gives way to the run's own thread: on two cores, the suites' start (vitest and
 * vite loading, about 0.3 s of CPU) and their calls took the core the run's cases needed, and the run waited for
 * CPU rather than for answers (the seed run against a deployment in its own process: the run's thread 1.2 s busy
 * beside the suites, 0.84 s without them). With a lower priority the suites take what the run leaves (the run:
 * 1.34 → 1.29 s); they now end a little after its cases, which then wait for them (up to about 0.1 s).
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value the suites' thread takes (0 is the default, 19 the lowest priority). */
export const SUITES_NICE = 10;

/**
 * Lowers the calling thread's priority to `nice` (never raises it). Only on Linux, where a thread's nice value is
 * its own and `/proc/thread-self` names the thread; elsewhere the same call would reach the whole process, so
 * nothing is changed. Answers whether the priority was lowered.
 */
export function lowerThisThreadPriority(nice: number = SUITES_NICE): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return false;
    if (getPriority(tid) >= nice) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}
