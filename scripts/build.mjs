/**
 * Compiles src/ to dist/ (one JavaScript file per TypeScript file, same layout, so paths relative to
 * import.meta.url keep working) and copies the HTML report's templates. Runs on `npm ci` (prepare) and
 * whenever bin/conformance.mjs finds dist/ older than src/.
 *   node scripts/build.mjs
 */
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

/** Leaves every import as it is, except that a relative `.ts` import becomes `.js`. */
const keepImports = {
  name: 'keep-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const path = /^\.\.?\//.test(args.path) ? args.path.replace(/\.ts$/, '.js') : args.path;
      return { path, external: true };
    });
  },
};

export async function buildDist() {
  const files = walk(src);
  // Files are overwritten in place (never removed first), so a CLI started meanwhile finds a whole tree.
  await build({
    entryPoints: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    outdir: dist,
    outbase: src,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [keepImports],
  });
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    const to = join(dist, relative(src, f));
    mkdirSync(join(to, '..'), { recursive: true });
    cpSync(f, to);
  }
  writeFileSync(join(dist, '.built'), `${new Date().toISOString()}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  await buildDist();
  process.stderr.write(`built dist/ in ${Math.round(performance.now() - started)} ms\n`);
}
