/**
 * The command line with the installed packs (src/packs/index.ts): the entry bin/conformance.mjs runs (bundled as
 * dist/runner/cli/main.js). The engine's own entry, src/runner/cli/main.ts, knows no pack.
 */
import { main as engineMain } from './runner/cli/main.ts';
import { INSTALLED_PACKS } from './packs/index.ts';

export function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return engineMain(argv, env, INSTALLED_PACKS);
}
