/**
 * The engine over a corpus of real public descriptions nobody here wrote (test/corpus/corpus.yaml: every
 * OpenAPI 3.1 description of the pinned collection and a selection of recursive ones). Each is loaded,
 * planned and run case by case against two local catch-all servers (every route 404, every route 200 with
 * `{}`): no case may throw, none may hang, memory stays bounded. The entries marked `cli` also go through the
 * CLI as a user runs it: exit code 0 or 1 (2 when the run names a configuration problem: every route 404 is
 * what a wrong base URL looks like), never a stack trace, all three reports written.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunConfig } from '../../src/runner/execute/config.ts';
import { Session } from '../../src/runner/execute/session.ts';
import type { CaseResult, Contract } from '../../src/runner/model.ts';
import { ContractError } from '../../src/runner/description/errors.ts';
import { loadContract } from '../../src/runner/description/load.ts';
import { removeTemps, resultsSchemaErrors, ROOT, runCli } from '../support/runs.ts';
import { corpusDir, readCorpus, type Corpus } from './fetch.ts';
import { cannotRun } from '../support/cannot-run.ts';

const corpus: Corpus = await readCorpus();
let dir = '';
let unavailable = '';

interface CatchAll {
  url: string;
  requests: number;
  close(): Promise<void>;
}

/** A server that answers every request the same way. */
async function catchAll(status: number, body: string, type: string): Promise<CatchAll> {
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': type }).end(body));
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const servers: Record<'all-404' | 'all-200', CatchAll> = {} as never;

beforeAll(async () => {
  try {
    dir = await corpusDir(corpus);
  } catch (error) {
    if (process.env['CI']) throw error;
    unavailable = `corpus not available (${(error as Error).message.split('\n')[0]})`;
    console.warn(unavailable);
  }
  servers['all-404'] = await catchAll(404, 'Not Found', 'text/plain');
  servers['all-200'] = await catchAll(200, '{}', 'application/json');
}, 600_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s?.close()));
  await removeTemps();
  if (figures.specs > 0) console.log(renderFigures());
});

const figures = {
  specs: 0,
  operations: 0,
  planned: 0,
  byOutcome: {} as Record<string, number>,
  skipReasons: {} as Record<string, number>,
  erroredReasons: {} as Record<string, number>,
  crashes: 0,
  peakRssMb: 0,
  peakHeapMb: 0,
  slowest: { file: '', ms: 0 },
};

function renderFigures(): string {
  const lines = [
    `corpus: ${figures.specs} descriptions, ${figures.operations} operations, ${figures.planned} cases planned per server, crashes ${figures.crashes}`,
    `peak memory: rss ${figures.peakRssMb} MB, heap ${figures.peakHeapMb} MB; slowest description ${figures.slowest.file} (${figures.slowest.ms} ms, both servers)`,
    `case outcomes (both servers): ${JSON.stringify(figures.byOutcome)}`,
    'skipped cases by reason (both servers):',
    ...Object.entries(figures.skipReasons).sort((a, b) => b[1] - a[1]).map(([r, n]) => `  ${n}  ${r}`),
    'errored cases by reason (both servers):',
    ...Object.entries(figures.erroredReasons).sort((a, b) => b[1] - a[1]).map(([r, n]) => `  ${n}  ${r}`),
  ];
  return lines.join('\n');
}

/** A reason with the varying parts (ids, numbers, names in braces or quotes) taken out, to count alike reasons. */
function reasonKind(reason: string): string {
  return reason
    .replace(/^setup: .+? answered \d+/, 'setup: <producer> answered N')
    .replace(/^.+ does not conform \(see its cases\), so it cannot show whether .+ worked$/, '<reader> does not conform, so it cannot show whether <writer> worked')
    .replace(/\{[^}]*\}/g, '{…}')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\/tmp\/\S+|\S*node_modules\S*/g, '<file>')
    .replace(/\b\d+\b/g, 'N')
    .slice(0, 140);
}

function sample(): void {
  const { rss, heapUsed } = process.memoryUsage();
  figures.peakRssMb = Math.max(figures.peakRssMb, Math.round(rss / 1e6));
  figures.peakHeapMb = Math.max(figures.peakHeapMb, Math.round(heapUsed / 1e6));
}

function config(contract: Contract, baseUrl: string, file: string): RunConfig {
  return {
    contractFiles: [file],
    profileFile: join(ROOT, 'contract/profile.yaml'),
    examplesFile: join(ROOT, 'contract/examples.yaml'),
    baseUrls: Object.fromEntries(contract.services.map((s) => [s.id, baseUrl])),
    token: 'corpus-token',
    timeoutMs: 5_000,
    concurrency: 16,
    bodyCapBytes: 1024 * 1024,
    readOnly: false,
    allowIrreversible: false,
    seed: 1,
    include: [],
    exclude: [],
    runId: 'corpus',
  };
}

/** Runs every planned case of the contract against one server; a case that throws is a crash. */
async function runAll(contract: Contract, baseUrl: string, file: string): Promise<CaseResult[]> {
  const session = await Session.forContract(config(contract, baseUrl, file), contract);
  const cases = session.plans().flatMap((p) => p.cases);
  const results: CaseResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const planned = cases[next++]!;
      results.push(await session.runCase(planned));
    }
  };
  try {
    await Promise.all(Array.from({ length: 16 }, worker));
  } finally {
    await session.cleanup();
  }
  return results;
}

const HANG_MS = 90_000;

function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what} did not finish within ${HANG_MS} ms`)), HANG_MS);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

describe.skipIf(corpus.specs.length === 0)('corpus of real descriptions', () => {
  test('the selection is pinned and holds every kind it promises', () => {
    expect(corpus.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(corpus.integrity).toMatch(/^sha512-/);
    expect(corpus.specs.filter((s) => s.openapi.startsWith('3.1')).length).toBeGreaterThanOrEqual(20);
    expect(corpus.specs.filter((s) => s.recursive).length).toBeGreaterThanOrEqual(15);
    expect(new Set(corpus.specs.map((s) => s.file)).size).toBe(corpus.specs.length);
  });

  test.for(corpus.specs.map((s) => [s.file, s] as const))('%s: loads, plans and runs against catch-all servers', async ([file, entry], { skip }) => {
    if (unavailable) cannotRun(skip, unavailable);
    const path = join(dir, file);
    const started = performance.now();
    let contract: Contract;
    try {
      contract = await loadContract([path]);
    } catch (error) {
      // A description the loader rejects is a one-line contract error, never anything else.
      expect(error).toBeInstanceOf(ContractError);
      expect((error as Error).message).not.toContain('\n');
      expect(entry.invalid, `${file} was rejected: ${(error as Error).message}`).toBe(true);
      return;
    }
    expect(entry.invalid ?? false).toBe(false);
    expect(contract.services[0]?.openapi).toBe(entry.openapi);
    figures.specs++;
    figures.operations += contract.operations.length;
    for (const name of ['all-404', 'all-200'] as const) {
      let results: CaseResult[];
      try {
        results = await withDeadline(runAll(contract, servers[name].url, path), `${file} against ${name}`);
      } catch (error) {
        figures.crashes++;
        throw error;
      }
      sample();
      if (name === 'all-404') figures.planned += results.length;
      for (const r of results) {
        figures.byOutcome[r.outcome] = (figures.byOutcome[r.outcome] ?? 0) + 1;
        if (r.outcome === 'skipped') figures.skipReasons[reasonKind(r.skipReason ?? '')] = (figures.skipReasons[reasonKind(r.skipReason ?? '')] ?? 0) + 1;
        if (r.outcome === 'errored') figures.erroredReasons[reasonKind(r.errorMessage ?? '')] = (figures.erroredReasons[reasonKind(r.errorMessage ?? '')] ?? 0) + 1;
      }
      // Against a server that knows no route, nothing the service is blamed for can pass.
      if (name === 'all-404') expect(results.filter((r) => r.kind === 'positive' && r.outcome === 'passed')).toEqual([]);
    }
    const ms = Math.round(performance.now() - started);
    if (ms > figures.slowest.ms) figures.slowest = { file, ms };
    expect(figures.peakHeapMb).toBeLessThan(2_000);
  });

  const cli = corpus.specs.filter((s) => s.cli);
  test.for(cli.flatMap((s) => (['all-404', 'all-200'] as const).map((server) => [s.file, server] as const)))(
    '%s through the CLI against %s: exit 0 or 1 (2 only for a named configuration problem), reports written, no stack trace',
    async ([file, server], { skip }) => {
      if (unavailable) cannotRun(skip, unavailable);
      const contract = await loadContract([join(dir, file)]);
      const serverFlags = contract.services.flatMap((s) => ['--server', `${s.id}=${servers[server].url}`]);
      const run = await runCli(['--spec', join(dir, file), ...serverFlags, '--token', 'corpus-token', '--quiet', '--timeout', '5000'], {
        env: { NODE_OPTIONS: '--max-old-space-size=1024' },
        killAfterMs: 240_000,
      });
      expect(run.signal, run.stderr).toBeNull();
      // Every route 404 is what a wrong base URL looks like: the run says so and stops (exit 2), never a crash.
      const allowed = server === 'all-404' ? [1, 2] : [0, 1];
      expect(allowed, `exit ${run.code}: ${run.stderr.slice(0, 500)}`).toContain(run.code);
      if (run.code === 2) expect(run.results?.stopped).toMatch(/base URL/);
      expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      for (const report of ['results.json', 'junit.xml', 'index.html']) expect(existsSync(join(run.out, report)), report).toBe(true);
      expect(resultsSchemaErrors(run.results)).toEqual([]);
      expect(run.results?.coverage.catalogTotal).toBe(contract.operations.length);
      expect(run.results?.operations.filter((o) => o.outcome === 'not-described')).toEqual([]);
    },
  );
});
