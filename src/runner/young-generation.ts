/**
 * The young generation of V8's heap, held for a large run. V8 doubles the young generation's semi-spaces while a
 * program allocates fast, up to 16 MiB each (32 MiB committed by Node 20 on 64 bits), and keeps them so: a run of
 * thousands of operations then holds some 40 MiB more than it needs (the young generation, and the old-generation
 * slack its larger scavenges leave). The maximum can only be set before the heap exists (--max-semi-space-size, a
 * flag each user would have to pass); the growth factor is read each time the space grows, so a factor of 1, set
 * before a large contract is read, holds the young generation at the size the CLI's start left it (8 MiB). A
 * contract of 2,770 operations (2.7 MB of YAML) against a correct server: a peak of about 277 MiB instead of
 * 290-320, in the same time. A small contract is left alone: its run is faster with the larger young generation,
 * and its memory is no concern (holding it from the CLI's start, at 1 MiB, saved 15 MiB more at 2,770 operations
 * but cost the seed contract's run 25 ms of 1.35 s). A worker thread started after sets the factor again
 * (v8-flags.ts).
 */
import { statSync } from 'node:fs';
import { setV8Flag } from './v8-flags.ts';

/** Local contract files this large (together) make a large run (the seed contracts: 41 KB; 2,770 operations: 2.7 MB). */
export const LARGE_CONTRACT_BYTES = 1 << 20;

/** Before the contract is read: holds the young generation where it is if the local contract files are large. */
export function sizeYoungGeneration(sources: string[]): boolean {
  let bytes = 0;
  for (const source of sources) {
    if (/^https?:\/\//i.test(source)) continue;
    try {
      bytes += statSync(source).size;
    } catch {
      // the loader says what is wrong with it
    }
  }
  const large = bytes >= LARGE_CONTRACT_BYTES;
  if (large) setV8Flag('--semi-space-growth-factor=1');
  return large;
}
