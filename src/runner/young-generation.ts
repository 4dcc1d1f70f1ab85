/**
 * The young generation of V8's heap, sized for the run. V8 doubles the young generation's semi-spaces while a
 * program allocates fast, up to 16 MiB each (32 MiB committed by Node 20 on 64 bits), and keeps them so: a run of
 * thousands of operations then holds some 50 MiB more than it needs (the young generation, and the old-generation
 * slack its larger scavenges leave). The maximum can only be set before the heap exists (--max-semi-space-size, a
 * flag each user would have to pass); the growth factor is read each time the space grows. bin/conformance.mjs
 * starts with a factor of 1 (the young generation stays at its initial 1 MiB while the CLI loads), and the run
 * gives V8 its own factor back before its contract is read, unless the contract is large. A contract of 2,770
 * operations (2.7 MB of YAML) against a correct server: a peak of about 265 MiB instead of 290-320, in
 * the same time. A small contract's run is faster with the larger young generation (the seed contract: about 4 %)
 * and its memory is no concern. A worker thread started after sets the factor again (v8-flags.ts).
 */
import { statSync } from 'node:fs';
import { setV8Flag } from './v8-flags.ts';

/** Local contract files this large (together) make a large run (the seed contracts: 41 KB; 2,770 operations: 2.7 MB). */
export const LARGE_CONTRACT_BYTES = 1 << 20;

/** V8's own growth factor (flag-definitions.h: semi_space_growth_factor). */
const V8_GROWTH = 2;

/** Before the contract is read: lets the young generation grow again unless the local contract files are large. */
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
  setV8Flag(`--semi-space-growth-factor=${large ? 1 : V8_GROWTH}`);
  return large;
}
