/** The packs the command line knows (src/runner/pack.ts); `--pack <module>` adds others for a run. */
import type { Pack } from '../runner/pack.ts';
import { customerPack } from './customer/index.ts';

export const INSTALLED_PACKS: readonly Pack[] = [customerPack];
