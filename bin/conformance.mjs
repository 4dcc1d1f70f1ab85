#!/usr/bin/env node
// Entry point of `npm run conformance` and the package bin: runs the bundled JavaScript in dist/ (built by `npm ci`
// through the prepare script, and shipped built in the package). In a git checkout whose src/ is newer than dist/
// the bundle is rebuilt first (esbuild, a few seconds), so the CLI never runs stale code and never transpiles at
// run time; an installed package (no .git) runs what it shipped without looking at its sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Newest modification time of the files under dir (about 130 files: a few milliseconds). */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

let builtAt = 0;
try {
  builtAt = statSync(`${root}dist/.built`).mtimeMs;
} catch {
  // not built yet
}
const checkout = !process.env['CONFORMANCE_SKIP_BUILD_CHECK'] && existsSync(`${root}.git`);
if (builtAt === 0 || (checkout && newest(`${root}src`) > builtAt)) {
  const { buildDist } = await import('../scripts/build.mjs');
  await buildDist();
}
const { endChildProcesses, exitCleanlyOnSignals } = await import('../dist/runner/cli/children.js');
exitCleanlyOnSignals();
const { main } = await import('../dist/runner/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
// No process outlives the CLI: helper services are stopped and every child reaped before exit.
await endChildProcesses();
