/**
 * Benchmark of the conformance CLI as users run it (node bin/conformance.mjs, a child process), with
 * the servers in this process so that requests can be counted and the CLI's own process tree measured:
 *   (a) full runs: against the embedded reference service (the default run), the reference service started
 *       here, and a plain stub that answers every request with 200 {};
 *       and Dredd (installed on first use, bench/peers.ts) on the same reference deployment, paired and alternated;
 *       the seed contract under hostile bodies (2 GiB gzip, 1 GiB plain, JSON nested 100,000 deep, 1 MiB JSON);
 *   (b) synthetic contracts of N operations made from the address-type operations, against the stub (MiB per
 *       1,000 operations at each size), and at the largest N the server shapes: 404 to everything, a correct
 *       reference-like server, 1 MiB to everything; Schemathesis (PyPI, a venv) on the same contract and stub;
 *   (c) the raw ceiling: undici alone against the same stub at the same concurrency, and the suite's ratio;
 *   plus `--help` (time and RSS) and the time from spawning the CLI until its first request reaches the target
 *   (counted here for the bench's own servers, and by bench/first-request.mjs, preloaded, for the embedded one).
 * Every goal of the performance section is printed last with what was measured next to it.
 * Peak RSS is the sum over the CLI process and all its descendants, sampled from /proc every 20 ms.
 *   npm run bench     BENCH_RUNS=3 (median of runs)   BENCH_SIZES=80,800,2770   BENCH_ST_MAX_EXAMPLES=10   BENCH_FULL=1
 *                     BENCH_SECTIONS=deployment,customer   BENCH_CUSTOMER_SHAPES=reference-like   BENCH_KEEP=1
 *                     BENCH_CPU_PROF=<dir> (a CPU profile of each of our runs)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { parse as parseYaml } from 'yaml';
import { gzipSync } from 'node:zlib';
import { startReferenceService } from '../src/reference-service/index.ts';
import { customerLikeContract, syntheticContract } from './synthetic-contract.ts';
import * as peers from './peers.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(root, 'bin/conformance.mjs');
const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
const SIZES = (process.env['BENCH_SIZES'] ?? '80,800,2770').split(',').map(Number);
/** Only the Customer contract's server shapes whose label holds one of these (e.g. `reference-like`): all by default. */
const CUSTOMER_SHAPES = process.env['BENCH_CUSTOMER_SHAPES']?.split(',');
const CONCURRENCY = 8;
/** The parts of the bench to run (all by default): help, seed, deployment, hostile, synthetic, customer, schemathesis, ceiling. */
const SECTIONS = new Set((process.env['BENCH_SECTIONS'] ?? 'help,seed,deployment,hostile,synthetic,customer,schemathesis,ceiling').split(','));
const TOKEN = 'bench-token-0123456789abcdef';
const work = join(tmpdir(), `conformance-bench-${process.pid}`);
/** Where the peers are installed on first use (kept between benches). */
const cache = join(root, 'node_modules/.cache/conformance-bench');
mkdirSync(work, { recursive: true });

// ---------------------------------------------------------------------------------------------------------
// Counting every request any server of this process receives (the reference service and the stubs).
let served = 0;
let firstServedAt = 0;
let lastServedAt = 0;
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
  if (event === 'request') {
    served++;
    lastServedAt = performance.timeOrigin + performance.now();
    if (firstServedAt === 0) firstServedAt = lastServedAt;
  }
  return (emit as (this: http.Server, event: string, ...rest: unknown[]) => boolean).call(this, event, ...args);
} as typeof emit;

/** 2 GiB of zeros as a gzip body of about 2 MB: one member of 64 MiB, repeated (gzip members concatenate). */
function gzipBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: 32 }, () => member));
}

type StubMode = 'ok' | 'not-found' | 'gzip-bomb' | 'mebibyte' | 'plain-gib' | 'deep-json';

/**
 * A server that answers every request the same way: `200 {}`, `404`, 1 MiB of JSON, or a hostile body (2 GiB
 * of zeros gzip-compressed, 1 GiB of plain bytes streamed, JSON nested 100,000 deep).
 */
async function stub(mode: StubMode): Promise<{ url: string; close: () => Promise<void> }> {
  const body: Buffer = Buffer.from(
    mode === 'ok' ? '{}'
      : mode === 'not-found' ? 'Not Found'
        : mode === 'mebibyte' ? JSON.stringify({ data: 'x'.repeat(1024 * 1024 - 12) })
          : mode === 'deep-json' ? `${'['.repeat(100_000)}${']'.repeat(100_000)}`
            : '',
  );
  const bomb = mode === 'gzip-bomb' ? gzipBomb() : undefined;
  const headers: Record<string, string | number> =
    mode === 'not-found' ? { 'content-type': 'text/plain' }
      : mode === 'gzip-bomb' ? { 'content-type': 'application/json', 'content-encoding': 'gzip' }
        : { 'content-type': 'application/json' };
  const GIB = 1024 ** 3;
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.on('error', () => undefined);
      if (mode === 'plain-gib') {
        // 1 GiB streamed as the client reads it; a client that stops reading closes the connection.
        res.writeHead(200, { ...headers, 'content-length': GIB });
        let sent = 0;
        const more = () => {
          while (sent < GIB) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        more();
        return;
      }
      const payload = bomb ?? body;
      res.writeHead(mode === 'not-found' ? 404 : 200, { ...headers, 'content-length': payload.length });
      res.end(payload);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Process-tree RSS from /proc.

function children(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(ppid, [...(map.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone
    }
  }
  return map;
}

function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function treeRssMiB(pid: number): number {
  const tree = children();
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += rssKiB(p);
    stack.push(...(tree.get(p) ?? []));
  }
  return total / 1024;
}

interface Sample {
  exit: number | null;
  wallMs: number;
  requests: number;
  peakRssMiB: number;
  firstRequestMs: number | undefined;
  reportBytes: number;
  /** User + system CPU seconds of the CLI and its children (from /usr/bin/time), when available. */
  cpuSeconds: number | undefined;
  /** Requests per second between the first and the last request (the execution phase, without start-up and reports). */
  steadyRps: number | undefined;
  stderr: string;
}

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** The requests a deployment in its own process has received (bench/count-requests.mjs, preloaded there). */
async function countOf(base: string): Promise<number> {
  const res = await fetch(`${base}/__bench/requests`);
  return Number(await res.text());
}

/**
 * The reference service as a deployment of its own: `npm run reference-service` in a child process (its own
 * event loop and CPU, as a staging deployment is), counting its requests for the bench.
 */
async function ownProcessDeployment(): Promise<{ url: string; customerBaseUrl: string; foreignTradeBaseUrl: string; close: () => Promise<void> }> {
  const child = spawn('npm', ['run', '--silent', 'reference-service', '--', '--port', '0', '--token', TOKEN], {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${pathToFileURL(join(root, 'bench/count-requests.mjs')).href}`.trim() },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`the reference service exited (${code}) before listening`)));
  });
  const url = /listening on (\S+)/.exec(line)?.[1];
  if (!url) throw new Error(`the reference service said: ${line.trim()}`);
  return {
    url,
    customerBaseUrl: `${url}/customer-service`,
    foreignTradeBaseUrl: `${url}/foreign-trade-service`,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

/** Runs the CLI with these arguments (or, with `peer`, that program with them) and measures it. */
async function runCli(args: string[], env: Record<string, string> = {}, peer?: string[], how: { npm?: boolean; countAt?: string } = {}): Promise<Sample> {
  const out = join(work, `out-${Math.random().toString(36).slice(2)}`);
  served = 0;
  firstServedAt = 0;
  lastServedAt = 0;
  const timeFile = join(work, `time-${Math.random().toString(36).slice(2)}`);
  // The embedded reference service answers inside the CLI: a preloaded hook there notes its first request.
  const firstFile = join(work, `first-${Math.random().toString(36).slice(2)}`);
  const nodeOptions = `${process.env['NODE_OPTIONS'] ?? ''} --import=${pathToFileURL(join(root, 'bench/first-request.mjs')).href}`.trim();
  const own = [...args, ...(args.includes('--help') ? [] : ['--out', out, '--quiet', '--concurrency', String(CONCURRENCY)])];
  // As users run it from the checkout: `npm run conformance -- …` (npm's own start included).
  // BENCH_CPU_PROF=<dir>: each of our runs writes a V8 CPU profile there (node --cpu-prof), to see where its time goes.
  const profile = process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`] : [];
  const command = peer ? [...peer, ...args] : how.npm ? ['npm', 'run', '--silent', 'conformance', '--', ...own] : [process.execPath, ...profile, BIN, ...own];
  const countedBefore = how.countAt ? await countOf(how.countAt) : 0;
  const [file, ...argv] = TIME ? [TIME, '-f', '%U %S', '-o', timeFile, ...command] : command;
  // Times are wall-clock (ms since the epoch) so that the CLI's own clock and this one compare: from the spawn.
  const started = performance.timeOrigin + performance.now();
  const child = spawn(file!, argv, {
    cwd: root,
    env: {
      ...process.env,
      NO_COLOR: '1',
      CONFORMANCE_TOKEN: TOKEN,
      ...(args.includes('--help') || peer ? {} : { NODE_OPTIONS: nodeOptions, BENCH_FIRST_REQUEST_FILE: firstFile }),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(peer ? { cwd: work } : {}),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssMiB(child.pid!))), 20);
  const exit = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearInterval(sampler);
  const wallMs = performance.timeOrigin + performance.now() - started;
  let firstRequestAt = firstServedAt || undefined;
  try {
    const inCli = Number(readFileSync(firstFile, 'utf8'));
    if (inCli > 0 && (firstRequestAt === undefined || inCli < firstRequestAt)) firstRequestAt = inCli;
    rmSync(firstFile);
  } catch {
    // no request reached a server inside the CLI
  }
  let reportBytes = 0;
  try {
    for (const f of readdirSync(out)) reportBytes += statSync(join(out, f)).size;
  } catch {
    // no reports
  }
  // BENCH_KEEP=1 keeps each run's reports (under the work directory it names at the end).
  if (!process.env['BENCH_KEEP']) rmSync(out, { recursive: true, force: true });
  let cpuSeconds: number | undefined;
  try {
    const [user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    cpuSeconds = user! + system!;
    rmSync(timeFile);
  } catch {
    // no /usr/bin/time
  }
  if (how.countAt) served += (await countOf(how.countAt)) - countedBefore;
  const steadyRps = served > 1 && lastServedAt > firstServedAt ? (served - 1) / ((lastServedAt - firstServedAt) / 1000) : undefined;
  return { exit, wallMs, requests: served, peakRssMiB: peak, firstRequestMs: firstRequestAt === undefined ? undefined : firstRequestAt - started, reportBytes, cpuSeconds, steadyRps, stderr };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function measure(label: string, args: string[], runs = RUNS, requestsOverride?: number): Promise<Row> {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) samples.push(await runCli(args));
  const bad = samples.find((s) => s.exit === null || s.exit === 2 || (requestsOverride === undefined && s.requests === 0));
  if (bad) process.stderr.write(`bench: ${label}: exit ${bad.exit}: ${bad.stderr.trim().split('\n').at(-1) ?? ''}\n`);
  const wallMs = median(samples.map((s) => s.wallMs));
  const requests = requestsOverride ?? median(samples.map((s) => s.requests));
  const row: Row = {
    label,
    wallMs,
    requests,
    requestsPerSecond: requests / (wallMs / 1000),
    peakRssMiB: median(samples.map((s) => s.peakRssMiB)),
    reportMiB: median(samples.map((s) => s.reportBytes)) / 1024 / 1024,
    exit: samples[0]?.exit ?? null,
  };
  const cpu = samples.map((s) => s.cpuSeconds).filter((x): x is number => x !== undefined);
  if (cpu.length) row.cpuSeconds = median(cpu);
  const first = samples.map((s) => s.firstRequestMs).filter((x): x is number => x !== undefined);
  if (first.length) row.firstRequestMs = median(first);
  const steady = samples.map((s) => s.steadyRps).filter((x): x is number => x !== undefined);
  if (steady.length) row.steadyRps = median(steady);
  process.stdout.write(`  ${label}: ${Math.round(wallMs)} ms, ${requests} requests, ${Math.round(row.peakRssMiB)} MiB\n`);
  return row;
}

interface Row {
  label: string;
  wallMs: number;
  requests: number;
  requestsPerSecond: number;
  peakRssMiB: number;
  reportMiB: number;
  exit: number | null;
  firstRequestMs?: number;
  cpuSeconds?: number;
  steadyRps?: number;
}

// ---------------------------------------------------------------------------------------------------------
// Synthetic contracts: the address-type operations repeated under /s<k>/ until there are N operations.

function syntheticContractFile(n: number): string {
  const file = join(work, `synthetic-${n}.openapi.yaml`);
  writeFileSync(file, syntheticContract(n));
  return file;
}

/**
 * The methods each path of a contract documents, by a matcher of its template under `base`: what a correct
 * deployment of exactly that contract serves (a contract cut at N operations can leave a path without the DELETE
 * the reference service has for it).
 */
function documentedMethods(spec: string, base: string): (path: string) => string[] | undefined {
  const doc = parseYaml(readFileSync(spec, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
  // By the path's first segment (`g347-address-types`): a request is matched against its few templates only.
  const byFirst = new Map<string, Array<{ pattern: RegExp; allow: string[] }>>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const first = path.split('/')[1] ?? '';
    const pattern = new RegExp(`^${base}${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
    byFirst.set(first, [...(byFirst.get(first) ?? []), { pattern, allow: methods.filter((m) => m in item).map((m) => m.toUpperCase()) }]);
  }
  return (path) => {
    if (!path.startsWith(`${base}/`)) return undefined;
    const first = path.slice(base.length + 1).split('/')[0] ?? '';
    return byFirst.get(first)?.find((d) => d.pattern.test(path))?.allow;
  };
}

/**
 * A correct server for the synthetic contract: the reference service behind a proxy that maps the copies'
 * paths (/customer-service/s<k>/address-types...) onto its own (/customer-service/address-types...). A method the
 * contract does not document for a path it documents is answered 405 with Allow, as a deployment of exactly that
 * contract answers it.
 */
async function referenceLike(target: string, spec: string): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new Pool(target, { connections: CONCURRENCY * 2 });
  const documented = documentedMethods(spec, '/customer-service');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // The reference service behind counts the request: counted once.
      served--;
      const allow = documented((req.url ?? '/').split('?')[0]!);
      const method = (req.method ?? 'GET').toUpperCase();
      if (allow && !allow.includes(method) && !(method === 'HEAD' && allow.includes('GET')) && method !== 'OPTIONS') {
        served++;
        res.writeHead(405, { allow: allow.join(', '), 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'METHOD_NOT_ALLOWED', message: `${method} is not served here` } }));
        return;
      }
      const path = (req.url ?? '/').replace(/^\/customer-service\/(?:s\d+\/|g\d+-)/, '/customer-service/');
      const headers = { ...req.headers };
      delete headers['host'];
      delete headers['connection'];
      upstream
        .request({ path, method: req.method as 'GET', headers, body: chunks.length ? Buffer.concat(chunks) : null })
        .then(async (answer) => {
          const body = Buffer.from(await answer.body.arrayBuffer());
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !['connection', 'keep-alive', 'transfer-encoding'].includes(k)) out[k] = v;
          res.writeHead(answer.statusCode, out).end(body);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Raw ceiling: undici alone, the same concurrency, the same stub.

async function rawCeiling(url: string, ms = 3000): Promise<number> {
  const pool = new Pool(url, { connections: CONCURRENCY });
  let count = 0;
  const until = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const res = await pool.request({ path: '/customer-service/address-types', method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } });
        await res.body.text();
        count++;
      }
    }),
  );
  const rps = count / ((performance.now() - started) / 1000);
  await pool.close();
  return rps;
}

// ---------------------------------------------------------------------------------------------------------

const rows: Row[] = [];
process.stdout.write(`conformance bench: node ${process.version}, ${RUNS} run(s) per row (median), concurrency ${CONCURRENCY}\n`);

// --help
let helpRow: { wallMs: number; peakRssMiB: number; cpuMs: number } | undefined;
if (SECTIONS.has('help')) {
  const help: Sample[] = [];
  for (let i = 0; i < 5; i++) help.push(await runCli(['--help']));
  helpRow = { wallMs: median(help.map((s) => s.wallMs)), peakRssMiB: median(help.map((s) => s.peakRssMiB)), cpuMs: median(help.map((s) => (s.cpuSeconds ?? 0) * 1000)) };
  process.stdout.write(`  --help: ${Math.round(helpRow.wallMs)} ms, ${Math.round(helpRow.peakRssMiB)} MiB\n`);
}

interface PeerRow { label: string; version: string; wallMs: number; requests: number; peakRssMiB: number; oursWallMs: number; oursRequests: number; oursPeakRssMiB: number }
const peerRows: PeerRow[] = [];
const peerNotes: string[] = [];
const dredd = SECTIONS.has('seed') || SECTIONS.has('deployment') ? peers.dredd(cache) : undefined;
if (dredd && 'missing' in dredd) peerNotes.push(`Dredd not measured: ${dredd.missing}`);

/**
 * Ours and Dredd on the same deployment, paired and alternated (ours, Dredd, ours, Dredd, ...). Dredd takes one
 * description and one endpoint: one run per service, their times and requests added.
 */
async function pairWithDredd(label: string, target: { customerBaseUrl: string; foreignTradeBaseUrl: string }, ours: () => Promise<Sample>, countAt?: string): Promise<void> {
  if (!dredd || 'missing' in dredd) return;
  const descriptions = [
    [peers.dreddReady(join(root, 'contract/customer-service.openapi.yaml'), join(work, 'dredd-customer.yaml')), target.customerBaseUrl],
    [peers.dreddReady(join(root, 'contract/foreign-trade-service.openapi.yaml'), join(work, 'dredd-foreign-trade.yaml')), target.foreignTradeBaseUrl],
  ] as const;
  const mine: Sample[] = [];
  const theirs: Array<{ wallMs: number; requests: number; peakRssMiB: number }> = [];
  for (let i = 0; i < Math.max(RUNS, 3); i++) {
    mine.push(await ours());
    let wallMs = 0;
    let requests = 0;
    let peak = 0;
    for (const [file, url] of descriptions) {
      const d = await runCli([file, url, '--header', `Authorization: Bearer ${TOKEN}`, '--loglevel', 'error'], {}, dredd.command, { countAt });
      wallMs += d.wallMs;
      requests += d.requests;
      peak = Math.max(peak, d.peakRssMiB);
    }
    theirs.push({ wallMs, requests, peakRssMiB: peak });
  }
  const row = {
    label,
    version: dredd.version,
    wallMs: median(theirs.map((t) => t.wallMs)),
    requests: median(theirs.map((t) => t.requests)),
    peakRssMiB: median(theirs.map((t) => t.peakRssMiB)),
    oursWallMs: median(mine.map((o) => o.wallMs)),
    oursRequests: median(mine.map((o) => o.requests)),
    oursPeakRssMiB: median(mine.map((o) => o.peakRssMiB)),
  };
  peerRows.push(row);
  process.stdout.write(`  ${label}: ours ${Math.round(row.oursWallMs)} ms, ${row.oursRequests} requests; ${row.version} ${Math.round(row.wallMs)} ms, ${row.requests} requests\n`);
}

// (a) full runs, and Dredd on the same deployment
const reference = await startReferenceService({ token: TOKEN });
const referenceArgs = (target: { customerBaseUrl: string; foreignTradeBaseUrl: string; url: string }) => [
  '--base-url', target.customerBaseUrl,
  '--foreign-trade-base-url', target.foreignTradeBaseUrl,
  '--otp-source-url', `${target.url}/__reference/otp/{transactionId}`,
  '--allow-irreversible',
];
if (SECTIONS.has('seed')) {
  const referenceRow = await measure('reference service (started by the bench)', referenceArgs(reference));
  rows.push(referenceRow);
  rows.push(await measure('embedded reference service (default run)', [], RUNS, referenceRow.requests));
  await pairWithDredd('seed contract, reference service (in the bench process)', reference, () => runCli(referenceArgs(reference)));
}

// A deployment in a process of its own, and the suite run as the README says: `npm run conformance -- …`.
if (SECTIONS.has('deployment')) {
  const deployment = await ownProcessDeployment();
  // The same work as the run against the reference service above: a disposable deployment, its OTP source given.
  const args = referenceArgs(deployment);
  const sample = () => runCli(args, {}, undefined, { npm: true, countAt: deployment.url });
  const own: Sample[] = [];
  for (let i = 0; i < RUNS; i++) own.push(await sample());
  rows.push({
    label: 'reference deployment in its own process, npm run conformance',
    wallMs: median(own.map((o) => o.wallMs)),
    requests: median(own.map((o) => o.requests)),
    requestsPerSecond: median(own.map((o) => o.requests / (o.wallMs / 1000))),
    peakRssMiB: median(own.map((o) => o.peakRssMiB)),
    reportMiB: median(own.map((o) => o.reportBytes)) / 1024 / 1024,
    exit: own[0]?.exit ?? null,
    // The first request reaches a server of another process: the bench cannot time it (left out, not 0).
  });
  await pairWithDredd('seed contract, reference deployment in its own process (npm run conformance)', deployment, sample, deployment.url);
  await deployment.close();
}

const ok = await stub('ok');
let stubRow: Row | undefined;
if (SECTIONS.has('seed')) {
  stubRow = await measure('plain stub (200 {} to everything)', ['--base-url', `${ok.url}/customer-service`, '--foreign-trade-base-url', `${ok.url}/foreign-trade-service`, '--allow-irreversible']);
  rows.push(stubRow);
}

// Hostile bodies against the seed contract (every answer hostile; at 2,770 operations a run would read
// hundreds of gigabytes, so the sizes below use well-behaved shapes).
const hostile: Row[] = [];
if (SECTIONS.has('hostile')) {
  for (const [mode, label] of [['gzip-bomb', '2 GiB gzip body'], ['plain-gib', '1 GiB plain body'], ['deep-json', 'JSON nested 100,000 deep'], ['mebibyte', '1 MiB JSON body']] as const) {
    const server = await stub(mode);
    hostile.push(await measure(`seed contract, ${label} to everything`, ['--base-url', `${server.url}/customer-service`, '--foreign-trade-base-url', `${server.url}/foreign-trade-service`, '--allow-irreversible'], 1));
    await server.close();
  }
}

// (b) synthetic contracts (generated cases only: --include selects every operation and no scenario suite)
const synthetic: Row[] = [];
const shapes: Row[] = [];
const largest = Math.max(...SIZES);
const mibSize = process.env['BENCH_FULL'] ? largest : Math.min(largest, 800);
if (SECTIONS.has('synthetic')) {
  for (const n of SIZES) {
    const spec = syntheticContractFile(n);
    synthetic.push(await measure(`synthetic N=${n}, stub 200 {}`, ['--spec', spec, '--include', 'customer-service', '--base-url', `${ok.url}/customer-service`, '--allow-irreversible'], 1));
  }
  const largestSpec = syntheticContractFile(largest);
  shapes.push(synthetic.find((r) => r.label.startsWith(`synthetic N=${largest},`))!);
  const notFound = await stub('not-found');
  shapes.push(await measure(`synthetic N=${largest}, stub 404 (all missing)`, ['--spec', largestSpec, '--include', 'customer-service', '--base-url', `${notFound.url}/customer-service`], 1));
  await notFound.close();
  // A correct server: the reference service behind a proxy that maps /s<k>/address-types... onto its own paths.
  const like = await referenceLike(reference.url, largestSpec);
  shapes.push(await measure(`synthetic N=${largest}, reference-like (correct) server`, ['--spec', largestSpec, '--include', 'customer-service', '--base-url', `${like.url}/customer-service`, '--allow-irreversible'], 1));
  await like.close();
  // 1 MiB to every one of some 125,000 requests reads 120 GiB (about 20 minutes here): at N=800 unless BENCH_FULL=1.
  const mib = await stub('mebibyte');
  shapes.push(await measure(`synthetic N=${mibSize}, 1 MiB JSON to everything`, ['--spec', syntheticContractFile(mibSize), '--include', 'customer-service', '--base-url', `${mib.url}/customer-service`, '--allow-irreversible'], 1));
  await mib.close();
}

// The Customer contract at N operations (bench/synthetic-contract.ts customerLikeContract) with the foreign-trade
// contract, run as a user runs it: no --include, so the Customer pack, its profile, catalog and scenario suites apply.
const customer: Row[] = [];
if (SECTIONS.has('customer')) {
  const spec = join(work, `customer-like-${largest}.openapi.yaml`);
  writeFileSync(spec, customerLikeContract(largest));
  const foreignTrade = join(root, 'contract/foreign-trade-service.openapi.yaml');
  const notFound = await stub('not-found');
  const like = await referenceLike(reference.url, spec);
  for (const [label, url, extra] of [
    ['stub 404 (all missing)', notFound.url, []],
    ['stub 200 {}', ok.url, ['--allow-irreversible']],
    ['reference-like (correct) server', like.url, ['--allow-irreversible', '--otp-source-url', `${like.url}/__reference/otp/{transactionId}`]],
  ] as const) {
    if (CUSTOMER_SHAPES && !CUSTOMER_SHAPES.some((s) => label.includes(s))) continue;
    customer.push(await measure(`customer-like N=${largest}, ${label}`, ['--spec', spec, '--spec', foreignTrade, '--base-url', `${url}/customer-service`, '--foreign-trade-base-url', `${url}/foreign-trade-service`, ...extra], 1));
  }
  await like.close();
  await notFound.close();
}

// Schemathesis on the same contract and server (default phases; examples per operation from BENCH_ST_MAX_EXAMPLES).
const st = SECTIONS.has('schemathesis') && SECTIONS.has('synthetic') ? peers.schemathesis(cache) : undefined;
if (st && 'missing' in st) peerNotes.push(`Schemathesis not measured: ${st.missing}`);
else if (st) {
  const maxExamples = process.env['BENCH_ST_MAX_EXAMPLES'] ?? '10';
  const theirs = await runCli(['run', syntheticContractFile(largest), '--url', `${ok.url}/customer-service`, '--max-examples', maxExamples, '-H', `Authorization: Bearer ${TOKEN}`, '--no-color'], {}, st.command);
  const ours = synthetic.find((r) => r.label.startsWith(`synthetic N=${largest},`))!;
  peerRows.push({ label: `synthetic N=${largest}, stub 200 {} (--max-examples ${maxExamples})`, version: st.version, wallMs: theirs.wallMs, requests: theirs.requests, peakRssMiB: theirs.peakRssMiB, oursWallMs: ours.wallMs, oursRequests: ours.requests, oursPeakRssMiB: ours.peakRssMiB });
}
await reference.close();

// (c) raw ceiling
const ceiling = SECTIONS.has('ceiling') ? await rawCeiling(ok.url) : undefined;
await ok.close();

// ---------------------------------------------------------------------------------------------------------
const fmt = (n: number, d = 0) => n.toFixed(d);
const table = (title: string, list: Row[]) => {
  const lines = [
    `\n${title}`,
    '| run | wall | CPU | requests | requests/s | requests per CPU-s | peak RSS (tree) | reports | first request | exit |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...list.map(
      (r) =>
        `| ${r.label} | ${fmt(r.wallMs / 1000, 2)} s | ${r.cpuSeconds === undefined ? '-' : `${fmt(r.cpuSeconds, 2)} s`} | ${r.requests} | ${fmt(r.requestsPerSecond)} | ${r.cpuSeconds ? fmt(r.requests / r.cpuSeconds) : '-'} | ${fmt(r.peakRssMiB)} MiB | ${fmt(r.reportMiB, 1)} MiB | ${r.firstRequestMs === undefined ? '-' : `${fmt(r.firstRequestMs)} ms`} | ${r.exit} |`,
    ),
  ];
  return lines.join('\n');
};
const ok200 = synthetic.filter((r) => r.label.includes('200'));
const sizeOf = (r: Row) => Number(/N=(\d+)/.exec(r.label)?.[1]);
const perOp = ok200.map((r, i) => {
  const n = sizeOf(r);
  const previous = ok200[i - 1];
  const marginal = previous ? ((r.peakRssMiB - previous.peakRssMiB) / (n - sizeOf(previous))) * 1000 : undefined;
  return `| ${n} | ${fmt(r.wallMs / 1000, 2)} s | ${fmt(r.wallMs / n, 2)} ms | ${r.requests} | ${fmt(r.peakRssMiB)} MiB | ${fmt((r.peakRssMiB / n) * 1000, 1)} MiB | ${marginal === undefined ? '-' : `${fmt(marginal, 1)} MiB`} | ${fmt(r.reportMiB, 1)} MiB |`;
});
const goal = (label: string, value: string, target: string, met: boolean) => `| ${label} | ${value} | ${target} | ${met ? 'met' : 'NOT met'} |`;
const worst = (list: Row[]) => list.reduce<Row | undefined>((a, b) => (!a || b.peakRssMiB > a.peakRssMiB ? b : a), undefined);
const worstLarge = worst(shapes);
const worstCustomer = worst(customer);
// The CLI's own tree (the row run through npm also counts npm's process, about 55 MiB: shown, not judged here).
const worstSeed = worst([...rows.filter((r) => r.label.includes('reference') && !r.label.includes('npm run')), ...(stubRow ? [stubRow] : []), ...hostile]);
const largestOk = shapes[0];
const dreddInProcess = peerRows.find((p) => p.version.startsWith('Dredd') && p.label.includes('in the bench process'));
const dreddDeployment = peerRows.find((p) => p.version.startsWith('Dredd') && p.label.includes('own process'));
const dreddGoals = (p: PeerRow | undefined, where: string) =>
  p
    ? [
        goal(`${where}: wall time against Dredd on the same deployment`, `${fmt(p.oursWallMs / 1000, 2)} s vs ${fmt(p.wallMs / 1000, 2)} s (ratio ${fmt(p.oursWallMs / p.wallMs, 2)})`, 'ratio <= 1', p.oursWallMs <= p.wallMs),
        goal(`${where}: requests against Dredd`, `${p.oursRequests} vs ${p.requests} (${fmt(p.oursRequests / Math.max(1, p.requests), 1)}x)`, '>= 20x', p.oursRequests >= 20 * p.requests),
      ]
    : [];
const goals = [
  '\n| goal | measured | target | |',
  '|---|---|---|---|',
  ...dreddGoals(dreddInProcess, 'seed contract, reference service in the bench process'),
  ...dreddGoals(dreddDeployment, 'seed contract, a deployment in its own process, npm run conformance'),
  ...(worstLarge ? [goal(`peak RSS of the tree at N=${largest}, worst server shape (${worstLarge.label.replace(/^synthetic /, '')})`, `${fmt(worstLarge.peakRssMiB)} MiB`, '<= 300 MB', worstLarge.peakRssMiB * 1.048576 <= 300)] : []),
  ...(worstCustomer ? [goal(`Customer contract at N=${largest} with the foreign-trade contract, worst server shape (${worstCustomer.label.replace(/^customer-like /, '')})`, `${fmt(worstCustomer.peakRssMiB)} MiB`, '<= 300 MiB', worstCustomer.peakRssMiB <= 300)] : []),
  ...(worstSeed ? [goal(`seed contract: peak RSS of the tree, worst run (${worstSeed.label})`, `${fmt(worstSeed.peakRssMiB)} MiB`, '<= 250 MB', worstSeed.peakRssMiB * 1.048576 <= 250)] : []),
  ...(largestOk ? [goal(`N=${largest}: checked requests/s, whole run against a local server (200 {})`, fmt(largestOk.requestsPerSecond), '>= 2,000', largestOk.requestsPerSecond >= 2000)] : []),
];
const output = [
  ...(helpRow ? [`\n--help: ${fmt(helpRow.wallMs)} ms wall, ${fmt(helpRow.cpuMs)} ms CPU, ${fmt(helpRow.peakRssMiB)} MiB (median of 5)`] : []),
  ...(rows.length ? [table('(a) full runs (the 15 described operations and the scenario suites)', rows)] : []),
  ...(hostile.length ? [table('hostile bodies against the seed contract (every answer)', hostile)] : []),
  ...(synthetic.length ? [table('(b) synthetic contracts', synthetic)] : []),
  ...(shapes.length ? [table(`server shapes at N=${largest} (1 MiB: N=${mibSize} unless BENCH_FULL=1)`, shapes)] : []),
  ...(customer.length ? [table(`the Customer contract at N=${largest} (customer-like) and the foreign-trade contract, scenario suites included`, customer)] : []),
  ...(perOp.length ? ['\n| N | wall | per operation | requests | peak RSS (tree) | MiB per 1,000 operations | marginal MiB per 1,000 operations | reports |\n|---|---|---|---|---|---|---|---|', ...perOp] : []),
  '\npeers (same contract, same server; wall and peak RSS of the whole process tree)',
  '| run | peer | peer wall | peer requests | peer peak RSS | ours wall | ours requests | ours peak RSS | wall ratio (ours/peer) |',
  '|---|---|---|---|---|---|---|---|---|',
  ...peerRows.map((p) => `| ${p.label} | ${p.version} | ${fmt(p.wallMs / 1000, 2)} s | ${p.requests} | ${fmt(p.peakRssMiB)} MiB | ${fmt(p.oursWallMs / 1000, 2)} s | ${p.oursRequests} | ${fmt(p.oursPeakRssMiB)} MiB | ${fmt(p.oursWallMs / p.wallMs, 2)} |`),
  ...peerNotes,
  ...(ceiling
    ? [
        `\n(c) raw ceiling: undici alone against the stub at concurrency ${CONCURRENCY}: ${fmt(ceiling)} requests/s`,
        ...[...(stubRow ? [stubRow] : []), ...ok200].map((r) => `    ${r.label}: ${fmt(r.requestsPerSecond)} requests/s = ${fmt((100 * r.requestsPerSecond) / ceiling, 1)} % of the ceiling`),
        '\nsteady rate: requests/s from the first to the last request (the execution phase, with each operation planned as it is reached; without start-up, loading and reports)',
        ...[...rows, ...synthetic].filter((r) => r.steadyRps !== undefined).map((r) => `    ${r.label}: ${fmt(r.steadyRps!)} requests/s = ${fmt((100 * r.steadyRps!) / ceiling, 1)} % of the ceiling`),
      ]
    : []),
  '\ngoals',
  ...goals,
].join('\n');
process.stdout.write(`${output}\n`);
mkdirSync(join(root, 'bench/results'), { recursive: true });
writeFileSync(join(root, 'bench/results/latest.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, sections: [...SECTIONS], help: helpRow, rows, hostile, synthetic, shapes, customer, peers: peerRows, peerNotes, ceiling }, null, 2)}\n`);
// BENCH_KEEP=1 keeps the runs' reports and contracts (to look into what a run held).
if (process.env['BENCH_KEEP']) process.stdout.write(`kept: ${work}\n`);
else rmSync(work, { recursive: true, force: true });
process.exit(0);
