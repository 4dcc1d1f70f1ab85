/**
 * Start-up and what a run keeps: `--help`, `--version` and every command's help run the bundled CLI and load only
 * commander and the command-line definitions; a run loads no scenario engine, Pact or reference service it does not
 * use; a description that passed validation is only re-validated when its bytes change; a run keeps the
 * exchanges of passed cases only when asked (--keep-passed-exchanges).
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, test } from 'vitest';
import { startReferenceService } from '../../src/reference-service/index.ts';
import { surelyNeeded } from '../../src/runner/cli/early-probes.ts';
import { loadDescription } from '../../src/runner/description/load.ts';
import { BIN, removeTemps, requireResults, ROOT, runCli, tempDir, TOKEN } from '../support/runs.ts';

afterAll(removeTemps);

/**
 * The source files and packages a CLI invocation loads, as the original sources of the bundle files it imported
 * (each dist file's source map names the modules bundled into it), and the local files it imported.
 */
async function loadedSources(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string; files: string[]; sources: string[] }> {
  const dir = await tempDir();
  const hooks = join(dir, 'hooks.mjs');
  await writeFile(hooks, "import { writeSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); writeSync(2, `LOADED ${r.url}\\n`); return r; }\n");
  const register = join(dir, 'register.mjs');
  await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  // Asynchronous: a target served by this process must keep answering while the CLI runs.
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, ['--import', register, BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', fail);
    child.once('close', (status) => done({ status, stdout, stderr }));
  });
  const root = pathToFileURL(ROOT).href;
  const files = [...new Set([...run.stderr.matchAll(/^LOADED (\S+)$/gm)].map((m) => m[1]!).filter((u) => u.startsWith(root)).map((u) => u.slice(root.length)))];
  const sources = new Set<string>();
  for (const file of files.filter((f) => f.startsWith('dist/') && f.endsWith('.js'))) {
    const map = JSON.parse(await readFile(join(ROOT, `${file}.map`), 'utf8')) as { sources: string[] };
    for (const source of map.sources) sources.add(relative(ROOT, resolve(ROOT, dirname(file), source)).replace(/\\/g, '/'));
  }
  for (const file of files.filter((f) => !f.startsWith('dist/'))) sources.add(file);
  return { status: run.status, stdout: run.stdout, stderr: run.stderr.replace(/^LOADED .*\n/gm, ''), files, sources: [...sources].sort() };
}

/** What help and version may load: commander and the command-line definitions, nothing of the engine. */
const LIGHT = /^(node_modules\/commander\/|src\/runner\/cli\/|src\/cli\.ts$|src\/packs\/index\.ts$|src\/packs\/[^/]+\/index\.ts$|src\/runner\/description\/errors\.ts$|src\/runner\/pack\.ts$|src\/runner\/pact\/errors\.ts$|src\/runner\/http\/client-options\.ts$|src\/runner\/execute\/identities\.ts$|src\/runner\/model\/identity\.ts$|bin\/conformance\.mjs$)/;

describe('start-up', () => {
  test('--help runs compiled JavaScript and loads neither vitest nor the Pact library', async () => {
    for (const args of [['--help'], ['run', '--help']]) {
      const run = await loadedSources(args);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain(args.length === 1 ? 'merge' : '--keep-passed-exchanges');
      expect(run.files).toContain('dist/runner/cli/main.js');
      expect(run.files.filter((u) => u.startsWith('src/') || u.endsWith('.ts'))).toEqual([]);
      // What only a run needs stays unloaded: the scenario engine and the Pact library.
      const heavy = run.sources.filter((u) => /^node_modules\/(vitest|vite|@vitest|@pact-foundation)\//.test(u));
      expect(heavy).toEqual([]);
    }
  });

  test('help and --version of every command load only commander and the command-line definitions', async () => {
    const commands = [['--version'], ['--help'], ['run', '--help'], ['plan', '--help'], ['config', '--help'], ['merge', '--help'], ['pact', '--help'], ['pact', 'check', '--help'], ['pact', 'verify', '--help'], ['pact', 'states', '--help'], ['pact', 'convert', '--help'], ['pact', 'publish', '--help'], ['pact', 'can-i-deploy', '--help'], ['pact', 'record-deployment', '--help']];
    const version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    for (const args of commands) {
      const run = await loadedSources(args);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      if (args[0] === '--version') expect(run.stdout.trim()).toBe(version);
      else expect(run.stdout, args.join(' ')).toMatch(new RegExp(`^Usage: conformance${args.length > 1 ? ` ${args.slice(0, -1).join(' ')}` : ''}`));
      // Bundled: a few files, no package resolved from node_modules.
      expect(run.files.filter((f) => f.startsWith('node_modules/')), args.join(' ')).toEqual([]);
      expect(run.sources.filter((s) => !LIGHT.test(s)), args.join(' ')).toEqual([]);
      expect(run.sources, args.join(' ')).toContain('src/runner/cli/run-options.ts');
    }
  });

  test('a run loads the engine but not what it does not use: no scenario engine, Pact or reference service when none is needed', async () => {
    const target = await startReferenceService({ token: TOKEN });
    try {
      const out = await tempDir();
      const args = ['--include', 'address-types', '--base-url', target.customerBaseUrl, '--quiet', '--out', out];
      // The inputs known valid (a first run reads a waiver file with the YAML reader that names lines): the
      // cache holds a few hundred verdicts, and the other tests of a full run may have pushed these out.
      await loadedSources(args, { CONFORMANCE_TOKEN: TOKEN, NO_COLOR: '1' });
      const run = await loadedSources(args, { CONFORMANCE_TOKEN: TOKEN, NO_COLOR: '1' });
      expect(run.status, run.stderr).toBe(0);
      expect(run.sources).toContain('src/runner/execute/scheduler.ts');
      expect(run.sources).toContain('src/runner/description/load.ts');
      expect(run.sources.filter((s) => /^(node_modules\/(vitest|vite|@vitest|@pact-foundation|yaml)\/|src\/reference-service\/|src\/runner\/pact\/(verify|check|broker))/.test(s))).toEqual([]);
      // undici's pools, proxy agent and request, not its entry point (fetch, WebSocket, EventSource, mocks, caches).
      expect(run.sources).toContain('node_modules/undici/lib/dispatcher/agent.js');
      expect(run.sources.filter((s) => /^node_modules\/undici\/(index\.js|lib\/(web\/(fetch\/index|websocket|eventsource|cache)|mock|cache|interceptor)\/?)/.test(s))).toEqual([]);
    } finally {
      await target.close();
    }
  });

  test('a first run (nothing validated before) validates every input from the bundle, and names the line of a bad waiver', async () => {
    const fresh = { CONFORMANCE_NO_CACHE: '1' };
    const run = await runCli(['--include', 'address-types', '--quiet'], { env: fresh });
    expect(run.code, run.stderr).toBe(0);
    expect(requireResults(run).verdict).toBe('conformant');
    const dir = await tempDir();
    const waivers = join(dir, 'waivers.yaml');
    await writeFile(waivers, '- operationId: create-address-type\n  check: no-such-check\n  reason: known\n  expires: 2030-01-01\n');
    const bad = await runCli(['--include', 'address-types', '--quiet', '--waivers', waivers], { env: fresh });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^conformance: .*waivers\.yaml:2: waiver 1: unknown check "no-such-check"/);
    const config = join(dir, 'conformance.config.yaml');
    await writeFile(config, 'timeout: soon\n');
    const badConfig = await runCli(['config', '--config', config], { env: fresh, noOut: true });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr.trim()).toBe(`conformance: ${config}: timeout: must be integer`);
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

describe('before the contract loads', () => {
  test('whether a token is needed is known from the contract: a broken one is said first, a missing token once the selection needs it', async () => {
    const dir = await tempDir();
    // The description is broken: no token is asked for (the contract may declare no security at all).
    const spec = join(dir, 'broken.openapi.yaml');
    await writeFile(spec, 'openapi: 3.0.3\ninfo: 42\n');
    const run = await runCli(['--spec', spec, '--base-url', 'http://127.0.0.1:9/pets']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^conformance: .*broken\.openapi\.yaml: .*not a valid Openapi API definition$/);
    // The Customer contract declares security on every operation: no token, no run (before any network).
    const secured = await runCli(['--spec', join(ROOT, 'contract/customer-service.openapi.yaml'), '--base-url', 'http://127.0.0.1:9/customer-service']);
    expect(secured.code).toBe(2);
    expect(secured.stderr.trim()).toBe('conformance: no bearer token: set CONFORMANCE_TOKEN (or pass --token or --token-command)');
    const url = await runCli(['--spec', spec, '--base-url', 'not a url'], { env: { CONFORMANCE_TOKEN: TOKEN } });
    expect(url.code).toBe(2);
    expect(url.stderr.trim()).toBe("error: option '--base-url <url>' argument 'not a url' is invalid. a base URL must be an http:// or https:// URL (this is not a URL)");
  });

  test('the reachability probe leaves while the contract is still loading; an unreachable target is said only once the description has been read', async () => {
    // The description is a named pipe that gets content only once the probe has reached the target (or after
    // 20 s): a run that loaded the contract before probing would send the probe only afterwards. The target takes
    // each connection and closes it at once (unreachable), and that is said only after the description was read:
    // a broken description must never hide behind the network.
    const dir = await tempDir();
    const spec = join(dir, 'customer.openapi.yaml');
    const made = spawnSync('mkfifo', [spec]);
    expect(made.status, String(made.stderr)).toBe(0);
    const text = await readFile(join(ROOT, 'contract/customer-service.openapi.yaml'));
    const events: string[] = [];
    const target = createNetServer((socket) => {
      if (!events.includes('probe arrived')) events.push('probe arrived');
      socket.destroy();
    });
    await new Promise<void>((done) => target.listen(0, '127.0.0.1', done));
    const port = (target.address() as AddressInfo).port;
    let exited = false;
    let stderr = '';
    const child = spawn(process.execPath, [BIN, '--spec', spec, '--base-url', `http://127.0.0.1:${port}/customer-service`, '--out', dir], {
      cwd: ROOT,
      env: { ...process.env, CONFORMANCE_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('target unreachable') && !events.includes('said unreachable')) events.push('said unreachable');
    });
    const code = new Promise<number | null>((done) => child.once('close', (c) => ((exited = true), done(c))));
    try {
      const giveUp = Date.now() + 20_000;
      while (!exited && events.length === 0 && Date.now() < giveUp) await delay(10);
      // Time enough for a run that judged the probe first to say so.
      await delay(300);
      events.push('description served');
      // Whoever opens the pipe to read gets the description, until the CLI has ended.
      while (!exited) {
        try {
          const fd = openSync(spec, constants.O_WRONLY | constants.O_NONBLOCK);
          // The whole description to each reader: a pipe takes 64 KiB at a time, the rest once it is read.
          let offset = 0;
          while (offset < text.length) {
            try {
              offset += writeSync(fd, text, offset);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') break;
              await delay(1);
            }
          }
          closeSync(fd);
        } catch {
          // no reader now
        }
        await delay(10);
      }
      expect(await code, stderr).toBe(2);
      expect(stderr.trim()).toMatch(new RegExp(`^conformance: target unreachable: http://127\\.0\\.0\\.1:${port} \\([A-Z_]+\\)$`));
      expect(events).toEqual(['probe arrived', 'description served', 'said unreachable']);
    } finally {
      child.kill();
      await new Promise<void>((done) => target.close(() => done()));
    }
  });

  test('a probe goes out early only to a service the run needs whatever the contract holds', () => {
    expect(surelyNeeded('customer-service', { include: [], exclude: [] })).toBe(true);
    expect(surelyNeeded('customer-service', { include: ['customer-service'], exclude: [] })).toBe(true);
    expect(surelyNeeded('customer-service', { include: ['service:customer-service'], exclude: [] })).toBe(true);
    expect(surelyNeeded('customer-service', { include: ['address-types'], exclude: [] })).toBe(false);
    expect(surelyNeeded('foreign-trade-service', { include: ['customer-service'], exclude: [] })).toBe(false);
    expect(surelyNeeded('customer-service', { include: [], exclude: ['GET'] })).toBe(false);
  });
});

describe('what a run keeps', () => {
  test('passed cases keep their summary (name, outcome, duration; passed checks counted per operation) and no exchanges or curl unless --keep-passed-exchanges', async () => {
    const flags = ['--include', 'customer-get-cache-key-list', '--quiet'];
    const [lean, full] = await Promise.all([runCli(flags), runCli([...flags, '--keep-passed-exchanges'])]);
    expect(lean.code, lean.stderr).toBe(0);
    expect(full.code, full.stderr).toBe(0);
    const cases = (run: typeof lean) => requireResults(run).operations.find((o) => o.operationId === 'customer-get-cache-key-list')!.cases;
    const passed = cases(lean).filter((c) => c.outcome === 'passed');
    expect(passed.length).toBeGreaterThan(2);
    for (const c of passed) {
      expect(c.exchanges, c.name).toEqual([]);
      expect(c.checks.filter((k) => k.status === 'passed'), c.name).toEqual([]);
      expect(c.curl, c.name).toBeUndefined();
    }
    const counted = requireResults(lean).operations.find((o) => o.operationId === 'customer-get-cache-key-list')!.passedChecks ?? {};
    expect(Object.values(counted).reduce((n, x) => n + x, 0)).toBeGreaterThanOrEqual(passed.length);
    expect(cases(full).filter((c) => c.outcome === 'passed').every((c) => c.exchanges.length > 0 && c.curl?.startsWith('curl '))).toBe(true);
    expect(cases(full).map((c) => [c.name, c.outcome])).toEqual(cases(lean).map((c) => [c.name, c.outcome]));
  });
});

/** A port that was free a moment ago and is closed now. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}
