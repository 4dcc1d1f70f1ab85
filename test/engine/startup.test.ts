/**
 * Start-up and what a run keeps: `--help` runs the compiled CLI without the scenario engine or the Pact
 * library; a description that passed validation is only re-validated when its bytes change; a run keeps the
 * exchanges of passed cases only when asked (--keep-passed-exchanges).
 */
import { spawnSync } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { loadDescription } from '../../src/runner/spec/load.ts';
import { BIN, removeTemps, requireResults, ROOT, runCli, tempDir } from './support.ts';

afterAll(removeTemps);

describe('start-up', () => {
  test('--help runs compiled JavaScript and loads neither vitest nor the Pact library', async () => {
    const dir = await tempDir();
    const hooks = join(dir, 'hooks.mjs');
    await writeFile(hooks, "import { writeSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); writeSync(2, `LOADED ${r.url}\\n`); return r; }\n");
    const register = join(dir, 'register.mjs');
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const root = pathToFileURL(ROOT).href;
    for (const args of [['--help'], ['run', '--help']]) {
      const run = spawnSync(process.execPath, ['--import', register, BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(args.length === 1 ? 'merge' : '--keep-passed-exchanges');
      const local = [...run.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!).filter((u) => u.startsWith(root)).map((u) => u.slice(root.length));
      expect(local).toContain('dist/runner/cli/main.js');
      expect(local.filter((u) => u.startsWith('src/') || u.endsWith('.ts'))).toEqual([]);
      // What only a run needs stays unloaded: the scenario engine and the Pact library.
      const heavy = local.filter((u) => /^node_modules\/(vitest|vite|@vitest|@pact-foundation)\//.test(u));
      expect(heavy).toEqual([]);
    }
  });

  test('a description is validated again as soon as its content changes', async () => {
    const dir = await tempDir();
    const file = join(dir, 'api.openapi.yaml');
    await copyFile(join(ROOT, 'contract/foreign-trade-service.openapi.yaml'), file);
    const first = await loadDescription(file);
    const second = await loadDescription(file);
    expect(second.api).toEqual(first.api);
    // Same file name, one byte different and invalid: the cache must not vouch for it.
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/^openapi: (.*)$/m, 'openapi: $1\ninfo: 42'));
    await expect(loadDescription(file)).rejects.toThrow(/api\.openapi\.yaml/);
  });
});

describe('what a run keeps', () => {
  test('passed cases keep their summary (checks, curl) and no exchanges unless --keep-passed-exchanges', async () => {
    const flags = ['--include', 'customer-get-cache-key-list', '--quiet'];
    const [lean, full] = await Promise.all([runCli(flags), runCli([...flags, '--keep-passed-exchanges'])]);
    expect(lean.code, lean.stderr).toBe(0);
    expect(full.code, full.stderr).toBe(0);
    const cases = (run: typeof lean) => requireResults(run).operations.find((o) => o.operationId === 'customer-get-cache-key-list')!.cases;
    const passed = cases(lean).filter((c) => c.outcome === 'passed');
    expect(passed.length).toBeGreaterThan(2);
    for (const c of passed) {
      expect(c.exchanges, c.name).toEqual([]);
      expect(c.checks.length, c.name).toBeGreaterThan(0);
      expect(c.curl, c.name).toMatch(/^curl /);
    }
    expect(cases(full).filter((c) => c.outcome === 'passed').every((c) => c.exchanges.length > 0)).toBe(true);
    expect(cases(full).map((c) => [c.name, c.outcome])).toEqual(cases(lean).map((c) => [c.name, c.outcome]));
  });
});
