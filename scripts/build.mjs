/**
 * Builds the CLI into dist/runner/cli/: esbuild bundles src/ with the libraries it uses into a few ES modules
 * (one per CLI entry, plus shared chunks that each command loads on use), so that start-up resolves and reads a
 * handful of files instead of hundreds. Every output lies at the depth of src/runner/cli/, so paths relative to
 * import.meta.url (../../../contract/..., ./config.schema.json, ./templates/) keep working; the assets next to
 * the sources are copied beside the bundle. Runs on `npm ci` (prepare) and whenever bin/conformance.mjs finds
 * dist/ older than src/.
 *   node scripts/build.mjs
 */
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
/** Where the bundle goes: the depth of src/runner/cli/ below the package root. */
export const OUT = join(dist, 'runner', 'cli');

/** The modules run as programs: the CLI, its child-process helper, the request thread, the scenario suites' and the Pact verifier's processes. */
const ENTRIES = {
  main: 'cli.ts',
  children: 'runner/cli/children.ts',
  'verify-worker': 'runner/pact/verify-worker.ts',
  // The thread a run's requests are sent on (http/transport.ts).
  'transport-worker': 'runner/http/transport-worker.ts',
  // The scenario suites' process (execute/scenarios.ts).
  'scenarios-child': 'runner/execute/scenarios-child.ts',
  // What scenario suites import: the suites' worker loads it as built JavaScript (execute/scenarios.ts).
  testing: 'runner/testing/index.ts',
};

/**
 * Packages kept out of the bundle, loaded from node_modules as they are: the scenario engine (vitest, vite and
 * esbuild start workers and services from their own files), Pact (native core, CLI binaries), tsx, the OpenAPI
 * schema validator (reads its schemas from files beside it).
 */
const EXTERNAL = ['vitest', 'vitest/*', '@vitest/*', 'vite', 'esbuild', '@pact-foundation/*', 'tsx', 'tsx/*', 'playwright-core', '@seriousme/openapi-schema-validator'];

/** Files next to the sources that the code reads relative to import.meta.url (schemas, templates). */
function assets(dir) {
  const entries = readdirSync(dir, { withFileTypes: true });
  const hasSources = entries.some((e) => e.isFile() && e.name.endsWith('.ts'));
  return entries.flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return hasSources && !containsSources(p) ? [p] : assets(p);
    return hasSources && !e.name.endsWith('.ts') && !e.name.endsWith('.md') ? [p] : [];
  });
}

function containsSources(dir) {
  return readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? containsSources(join(dir, e.name)) : e.name.endsWith('.ts')));
}

export async function buildDist() {
  const { outputFiles } = await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, join(src, file)])),
    outdir: OUT,
    write: false,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    external: EXTERNAL,
    // Bundled CommonJS libraries call require() for Node's own modules.
    banner: { js: "import { createRequire as __conformanceRequire } from 'node:module';\nconst require = __conformanceRequire(import.meta.url);" },
  });
  mkdirSync(OUT, { recursive: true });
  // A CLI started meanwhile must find whole files: each is written aside and renamed into place, the chunks (named
  // by their content) before the entries that import them. Chunks of earlier builds stay a day for runs still
  // going (a run loads its report writers at the end), then go; `npm ci`/`npm pack` (prepare) keep none.
  const entries = new Set(Object.keys(ENTRIES).flatMap((name) => [`${name}.js`, `${name}.js.map`]));
  const ordered = [...outputFiles].sort((a, b) => Number(entries.has(basename(a.path))) - Number(entries.has(basename(b.path))));
  for (const file of ordered) {
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
  const written = new Set(outputFiles.map((f) => basename(f.path)));
  const dayAgo = process.env['npm_lifecycle_event'] === 'prepare' ? Infinity : Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(OUT)) {
    if (written.has(name) || !/\.js(\.map)?$/.test(name)) continue;
    if (!name.startsWith('chunk-') || statSync(join(OUT, name)).mtimeMs < dayAgo) rmSync(join(OUT, name), { force: true });
  }
  const copied = new Map();
  for (const asset of assets(src)) {
    const name = basename(asset);
    if (copied.has(name)) throw new Error(`build: ${relative(root, asset)} and ${relative(root, copied.get(name))} would both be dist/runner/cli/${name}`);
    copied.set(name, asset);
    cpSync(asset, join(OUT, name), { recursive: true });
  }
  // Left over from the one-file-per-module layout: nothing loads them any more.
  for (const stale of ['runner/checks', 'runner/execute', 'runner/http', 'runner/pact', 'runner/plan', 'runner/report', 'runner/spec', 'runner/testing', 'runner/model.js', 'runner/model.js.map', 'reference-service']) {
    rmSync(join(dist, stale), { recursive: true, force: true });
  }
  writeFileSync(join(dist, '.built'), `${new Date().toISOString()}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  await buildDist();
  process.stderr.write(`built dist/ in ${Math.round(performance.now() - started)} ms\n`);
}
