#!/usr/bin/env node
// Entry point of `npm run conformance` and the package bin: runs the compiled JavaScript in dist/ (built by
// `npm ci` through the prepare script). A checkout whose src/ is newer than dist/ is rebuilt first (esbuild,
// about a second), so the CLI never runs stale code and never transpiles at run time.
import { readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

let builtAt = 0;
try {
  builtAt = statSync(new URL('dist/.built', root)).mtimeMs;
} catch {
  // not built yet
}
if (builtAt === 0 || (!process.env['CONFORMANCE_SKIP_BUILD_CHECK'] && newest(new URL('src/', root)) > builtAt)) {
  const { buildDist } = await import('../scripts/build.mjs');
  await buildDist();
}
const { endChildProcesses, exitCleanlyOnSignals } = await import('../dist/runner/cli/children.js');
exitCleanlyOnSignals();
const { main } = await import('../dist/runner/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
// No process outlives the CLI: helper services are stopped and every child reaped before exit.
await endChildProcesses();
