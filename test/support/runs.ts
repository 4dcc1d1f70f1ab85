/**
 * Helpers for the engine's own tests: reference-service variants started in the test process, and the
 * conformance CLI run as a child process against them (exactly as a user runs it), with its reports read back.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startReferenceService, type ReferenceService, type Reply, type Variant } from '../../src/reference-service/index.ts';
import { changedToken, truncatedToken } from '../../src/runner/http/auth-variants.ts';
import type { CheckId, Finding, OperationResult, Outcome, RunResults } from '../../src/runner/model.ts';
import { expandResults } from '../../src/runner/report/results-format.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where `npm run test:apps` keeps what it builds or downloads (the published applications, the description
 * corpus), outside the clone so that it outlives it: $CONFORMANCE_TEST_CACHE, else the user's cache directory.
 * test/real-apps/install.sh reads the same variables.
 */
export const TEST_CACHE =
  process.env['CONFORMANCE_TEST_CACHE'] || join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'customer-service-conformance');
export const BIN = join(ROOT, 'bin/conformance.mjs');

/** A server listening on 127.0.0.1 at a free port: its base URL under `prefix`, and a close that waits for it. */
export async function listening(server: Server, prefix = '/svc'): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * A server whose handler gets each request with its whole body as text, and a reply that answers a JSON value
 * (or nothing, when none is given).
 */
export function jsonServer(handle: (req: IncomingMessage, body: string, reply: (status: number, value?: unknown) => void) => void): Server {
  return createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () =>
      handle(req, body, (status, value) => {
        // A 401 challenges as HTTP says it must (RFC 9110 §15.5.2).
        res.writeHead(status, { ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}), ...(value === undefined ? {} : { 'content-type': 'application/json' }) });
        res.end(value === undefined ? undefined : JSON.stringify(value));
      }),
    );
  });
}

/** A description of one service at http://localhost/svc whose operations all take the bearer token. */
export function bearerContract(openapi: string, title: string, paths: Record<string, unknown>): Record<string, unknown> {
  return {
    openapi,
    info: { title, version: '1' },
    servers: [{ url: 'http://localhost/svc' }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}

/** A token long enough to be searched for in every report (redaction ignores secrets under 4 characters). */
export const TOKEN = 'engine-test-token-5f2c9a7e1b';

/** The 15 operations the two contract files describe. */
export const DESCRIBED = [
  'create-address-type',
  'create-address-type-field',
  'create-user',
  'customer-get-cache-key-list',
  'customer-refresh-cache',
  'delete-address-type',
  'delete-address-type-field',
  'get-address-type-field-by-id',
  'get-address-type-field-list',
  'get-foreign-trade-reference-number',
  'send-forget-password-otp',
  'update-address-type',
  'update-address-type-field',
  'validate-reference-number',
  'verify-forget-password-otp',
] as const;

export type DescribedOperation = (typeof DESCRIBED)[number];

// ---------------------------------------------------------------------------------------------------------
// Reference-service variants

export interface StartedVariant {
  svc: ReferenceService;
  /** Target flags for the CLI; the token goes by --token ('flag') or by CONFORMANCE_TOKEN ('env'). */
  target(tokenVia?: 'flag' | 'env'): { args: string[]; env: Record<string, string> };
  close(): Promise<void>;
}

/** Starts the reference service (127.0.0.1, a free port, TOKEN) with a variant. */
export async function startVariant(variant: Variant = {}): Promise<StartedVariant> {
  const svc = await startReferenceService({ token: TOKEN, port: 0, variant });
  return {
    svc,
    target(tokenVia: 'flag' | 'env' = 'flag') {
      const args = [
        '--base-url',
        svc.customerBaseUrl,
        '--foreign-trade-base-url',
        svc.foreignTradeBaseUrl,
        '--allow-irreversible',
        '--otp-source-url',
        `${svc.url}/__reference/otp/{transactionId}`,
      ];
      const env: Record<string, string> = tokenVia === 'env' ? { CONFORMANCE_TOKEN: TOKEN } : {};
      return { args: tokenVia === 'flag' ? [...args, '--token', TOKEN] : args, env };
    },
    close: () => svc.close(),
  };
}

/** A handler reply body as a plain object (the faithful replies are JSON objects or arrays). */
export function objectBody(reply: Reply): Record<string, unknown> {
  const body = reply.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Buffer.isBuffer(body)) {
    throw new Error(`expected an object reply body, got ${JSON.stringify(body)}`);
  }
  return body as Record<string, unknown>;
}

/** The error code of a reply carrying the platform envelope, else undefined. */
export function replyCode(reply: Reply): unknown {
  const body = reply.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as Record<string, unknown>)['error'];
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['code'] : undefined;
}

/** A reply that never comes. */
export function never(): Promise<Reply> {
  return new Promise<Reply>(() => undefined);
}

// ---------------------------------------------------------------------------------------------------------
// The CLI as a child process

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** <out>/results.json when the run wrote one. */
  results?: RunResults;
  /** With ownGroup: the processes (pid, state, command) still in the CLI's process group after it exited. */
  leftover?: string[];
  /** The report directory (a fresh temporary directory unless --out was given). */
  out: string;
  wallMs: number;
}

export interface CliOptions {
  /** Extra environment (CONFORMANCE_TOKEN is never inherited from the test process). */
  env?: Record<string, string>;
  /** Do not add `--out <tmpdir>`. */
  noOut?: boolean;
  /** Called once the child is running (to signal it, say). */
  onSpawn?: (child: ChildProcess) => void;
  /** Kill the child after this long (a safety net; default 150 s). */
  killAfterMs?: number;
  /** Working directory of the child (default the repository root). */
  cwd?: string;
  /** Start the CLI in its own process group and report what is left in the group after it exits. */
  ownGroup?: boolean;
}

/** A child environment without the test runner's own variables, so the CLI's vitest starts clean. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('VITEST') || key === 'TEST' || key === 'NODE_ENV' || key === 'CONFORMANCE_TOKEN') continue;
    env[key] = value;
  }
  return { ...env, NO_COLOR: '1', PACT_DO_NOT_TRACK: 'true', ...extra };
}

const temps: string[] = [];

/** A fresh temporary directory, removed by removeTemps(). */
export async function tempDir(prefix = 'conformance-engine-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export async function removeTemps(): Promise<void> {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

/** Runs `node bin/conformance.mjs <args> --out <tmpdir>` and reads results.json back. */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  const out = options.noOut ? '' : await tempDir();
  const argv = [BIN, ...args, ...(options.noOut ? [] : ['--out', out])];
  const started = performance.now();
  const child = spawn(process.execPath, argv, { cwd: options.cwd ?? ROOT, env: childEnv(options.env ?? {}), stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownGroup === true });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  options.onSpawn?.(child);
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 150_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c, s) => resolve([c, s]));
  });
  clearTimeout(killer);
  const leftover = options.ownGroup && child.pid ? processGroup(child.pid) : undefined;
  const wallMs = performance.now() - started;
  const file = join(out, 'results.json');
  const results = out && existsSync(file) ? readStoredResults(await readFile(file, 'utf8')) : undefined;
  return { code, signal, stdout, stderr, ...(results ? { results } : {}), ...(leftover ? { leftover } : {}), out, wallMs };
}

/** The processes of a process group (`ps -o pid=,stat=,args= -g <pgid>`): empty when none is left. */
export function processGroup(pgid: number): string[] {
  const ps = spawnSync('ps', ['-o', 'pid=,stat=,args=', '-g', String(pgid)], { encoding: 'utf8' });
  return ps.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
}

/** Limits how many CLI runs go at once (each starts its own vitest with worker threads). */
export function pool(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

// ---------------------------------------------------------------------------------------------------------
// Reading results.json

export function requireResults(run: CliRun): RunResults {
  if (!run.results) throw new Error(`no results.json (exit ${run.code}); stderr: ${run.stderr.slice(0, 2000)}`);
  return run.results;
}

export function operation(results: RunResults, operationId: string): OperationResult {
  const op = results.operations.find((o) => o.operationId === operationId && o.method !== null);
  if (!op) throw new Error(`results.json has no described operation ${operationId}`);
  return op;
}

/** Outcome of each of the 15 described operations. */
export function outcomes(results: RunResults): Record<DescribedOperation, Outcome> {
  return Object.fromEntries(DESCRIBED.map((id) => [id, operation(results, id).outcome])) as Record<DescribedOperation, Outcome>;
}

/** Described operations whose outcome is failed or missing. */
export function failing(results: RunResults): string[] {
  return DESCRIBED.filter((id) => {
    const o = operation(results, id).outcome;
    return o === 'failed' || o === 'missing';
  });
}

export function findings(op: OperationResult): Finding[] {
  return op.cases.flatMap((c) => c.findings);
}

export function checkIds(op: OperationResult, severity?: Finding['severity']): CheckId[] {
  return [...new Set(findings(op).filter((f) => severity === undefined || f.severity === severity).map((f) => f.check))].sort();
}

export function allFindings(results: RunResults): Finding[] {
  return results.operations.flatMap(findings);
}

/**
 * "<operationId>: <outcome> [checks]" for each operation that did not pass: readable assertion output. The checks
 * are those with findings, a lenient acceptance aside (a warning counted apart).
 */
export function summary(results: RunResults): string[] {
  const checks = (o: OperationResult) => [...new Set(findings(o).filter((f) => !f.lenient).map((f) => f.check))].sort();
  return results.operations
    .filter((o) => o.outcome !== 'passed' && o.outcome !== 'not-described')
    .map((o) => `${o.operationId}: ${o.outcome} [${checks(o).join(', ')}]`);
}

// ---------------------------------------------------------------------------------------------------------
// What every run must satisfy

/** Where the token shows up in a run's outputs (stdout, stderr and the three reports): empty when nowhere. */
/** Each file of the run's report directory (and its console) that holds one of the secrets: "<where>: <secret's start>…". */
export function secretLeaks(run: Pick<CliRun, 'out' | 'stdout' | 'stderr'>, secrets: readonly string[]): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    if (statSync(path).isDirectory()) return readdirSync(path).forEach((f) => visit(join(path, f)));
    const text = readFileSync(path, 'utf8');
    for (const s of secrets) if (text.includes(s)) found.push(`${path}: ${s.slice(0, 12)}…`);
  };
  visit(run.out);
  for (const s of secrets) if (`${run.stdout}${run.stderr}`.includes(s)) found.push(`console: ${s.slice(0, 12)}…`);
  return found;
}

export async function tokenLeaks(run: CliRun, token = TOKEN): Promise<string[]> {
  // The token, and the tokens the auth matrix derives from it (truncated, one character changed).
  const secrets = [token, truncatedToken(token), changedToken(token)];
  const leaks: string[] = [];
  const has = (text: string) => secrets.some((s) => text.includes(s));
  if (has(run.stdout)) leaks.push('stdout');
  if (has(run.stderr)) leaks.push('stderr');
  for (const file of ['results.json', 'junit.xml', 'index.html']) {
    const path = join(run.out, file);
    if (!existsSync(path)) continue;
    if (has(await readFile(path, 'utf8'))) leaks.push(file);
  }
  return leaks;
}

type AddFormats = (ajv: Ajv2020, formats?: string[]) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
let resultsValidator: ValidateFunction | undefined;

/** The text of results.json as parsed JSON on disk, per the results it was expanded into (see readStoredResults). */
const storedText = new WeakMap<object, unknown>();

/** results.json text as the model the reports work on (expanded from its schemaVersion); remembers what was on disk. */
export function readStoredResults(text: string): RunResults {
  const stored = JSON.parse(text) as unknown;
  const results = expandResults(stored);
  storedText.set(results, stored);
  return results;
}

/**
 * Where results.json departs from src/runner/schemas/results.schema.json (ajv, JSON Schema 2020-12): empty when valid.
 * Results read with readStoredResults are checked as they were on disk.
 */
export function resultsSchemaErrors(results: unknown): string[] {
  if (results !== null && typeof results === 'object' && storedText.has(results)) results = storedText.get(results);
  if (!resultsValidator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv, ['date-time', 'date']);
    resultsValidator = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'src/runner/schemas/results.schema.json'), 'utf8')) as Record<string, unknown>);
  }
  if (resultsValidator(results)) return [];
  return (resultsValidator.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
