/**
 * Large answers are garbage as soon as they are judged (a case keeps 64 KiB of one), but V8 sizes its heap by
 * what survives, not by what passes through: a run against a server answering megabytes grows by hundreds of
 * megabytes of dead text before a full collection. The client counts the bytes of large answers it read and,
 * past a budget, asks for a full collection; a run of ordinary answers never does.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { setV8Flag } from '../v8-flags.ts';

/** An answer at least this large counts (decoded bytes read plus the text made of them). */
const LARGE = 128 * 1024;
/**
 * Bytes of large answers between two collections. An answer counted at twice its size allocates about twice that
 * again (the chunks read, the buffer they are joined into, its text, the strings parsed from it), and each answer
 * in flight survives a scavenge or two: at 32 MiB, a run against a server answering 1 MiB to everything held
 * 40-60 MiB more before the collection came (seed contract: 240-255 MiB peak, at 16 MiB 230-236; 800
 * operations: 252-257, at 16 MiB 216-217, in no more time). At 8 MiB the seed contract peaks at 203-228 MiB over
 * ten runs (16 MiB: 216-245, over 250 MB in a third of them, while the scenario suites start beside the cases);
 * 80 operations answered 1 MiB each take 36-42 s instead of 34 s, and 14 MiB less.
 */
const BUDGET = 8 * 1024 * 1024;

let collect: (() => void) | null | undefined;
let since = 0;

function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    // The collector of a fresh context once the flag is set: the process keeps its own globals as they were.
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as () => void;
  } catch {
    collect = null;
  }
  return collect;
}

/** Notes an answer of `bytes` (read, decoded); collects once the large ones passed the budget (then says true). */
export function noteAnswer(bytes: number): boolean {
  if (bytes < LARGE) return false;
  since += bytes;
  if (since < BUDGET) return false;
  since = 0;
  collector()?.();
  return true;
}

/** Below this many bytes in use, collectNow leaves the heap to V8. */
const SMALL_HEAP = 96 * 1024 * 1024;

/**
 * One full collection now: between the run's phases (what the cases left is garbage). `giveBack`: two, before the
 * scenario suites' process starts, so that what loading the contract left is collected and its pages returned to
 * the system. The plain call: Node 20's collector reads no option object, and a call with V8's
 * (`{ type: 'major', flavor: 'last-resort' }`) collected nothing. After loading a contract of 2,770 operations:
 * 87 MB used and 187 MiB resident before; one collection leaves 29 MB used in a heap of 107 MB (185 MiB
 * resident), a second one shrinks the heap to 63 MB (177 MiB): the run's peak is 272 MiB instead of 315.
 */
export function collectNow(giveBack = false): void {
  since = 0;
  // A small heap is not worth a full collection (a run of the seed contract made five at its end: about 0.1 s).
  if (!giveBack && v8.getHeapStatistics().used_heap_size < SMALL_HEAP) return;
  const gc = collector();
  gc?.();
  // The pages a collection freed are given back to the system only by the one after it.
  if (giveBack) gc?.();
}

/**
 * After each full collection V8 lets the heap grow to about twice what survived before it collects again (more
 * when collections are quick). A run keeps a large live set (the case summaries until the reports, the
 * description, the validators), so the process would hold twice that: growth is kept to 30 % of what survived.
 * The extra collections are mostly concurrent marking (2,770 operations against `200 {}`: 52.1 and 55.0 s
 * against 58.1 s at 50 %); a run of 2,770 operations against a correct server peaked at 267 MiB, at 50 % at 281
 * MiB (the request thread's heap on top of the main one: transport.ts). The flag applies from the next collection
 * on, and a V8 without it ignores it.
 */
export function limitHeapGrowth(): void {
  try {
    setV8Flag('--heap-growing-percent=30');
  } catch {
    // not settable here: V8's own growth
  }
}
