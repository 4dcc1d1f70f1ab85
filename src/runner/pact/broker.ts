/**
 * The Pact Broker side of the workflow: publishing consumer pacts, can-i-deploy and record-deployment,
 * through Pact's own broker client (the `pact broker` CLI shipped prebuilt in the npm package
 * @pact-foundation/pact-cli), not hand-written HAL calls.
 *
 * Credentials reach the client through its environment (PACT_BROKER_TOKEN / _USERNAME / _PASSWORD), never
 * its argv, and are never printed. When the client fails, the broker is probed once (GET of its index)
 * so the error names the cause in one line: unreachable, TLS, 401/403, not found; otherwise the client's
 * own first error line.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { request } from 'undici';
import { InputError } from '../description/errors.ts';

/** The broker could not be used. One line that names the cause; exit code 2 like any input problem. */
export class BrokerError extends InputError {
  override readonly name = 'BrokerError';
}

export interface BrokerConnection {
  url: string;
  token?: string;
  username?: string;
  password?: string;
}

export interface BrokerCliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const require = createRequire(import.meta.url);

/** Path of the `pact` executable of @pact-foundation/pact-cli for this platform. */
export function pactCliPath(): string {
  const mod = require('@pact-foundation/pact-cli/src/pact-standalone.js') as { standalone: () => { pactFullPath: string } };
  return mod.standalone().pactFullPath;
}

/** Runs `pact <args>` with the broker connection in its environment; output is captured, never printed. */
export function runPactCli(args: string[], broker: BrokerConnection | undefined, timeoutMs = 120_000): Promise<BrokerCliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' };
    for (const key of ['PACT_BROKER_BASE_URL', 'PACT_BROKER_TOKEN', 'PACT_BROKER_USERNAME', 'PACT_BROKER_PASSWORD']) delete env[key];
    if (broker) {
      env['PACT_BROKER_BASE_URL'] = broker.url;
      if (broker.token) env['PACT_BROKER_TOKEN'] = broker.token;
      if (broker.username !== undefined) env['PACT_BROKER_USERNAME'] = broker.username;
      if (broker.password !== undefined) env['PACT_BROKER_PASSWORD'] = broker.password;
      env['PACT_BROKER_HTTP_RETRIES'] ??= '1';
    }
    let exe: string;
    try {
      exe = pactCliPath();
    } catch (error) {
      reject(new BrokerError(`the Pact CLI (@pact-foundation/pact-cli) is not installed: ${(error as Error).message.split('\n')[0] ?? ''}`));
      return;
    }
    const child = spawn(exe, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new BrokerError(`the Pact CLI could not run: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 124 : 1),
        stdout: stripAnsi(Buffer.concat(out).toString('utf8')),
        stderr: stripAnsi(Buffer.concat(err).toString('utf8')),
      });
    });
  });
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}

const TLS_CODES = /^(ERR_SSL_|ERR_TLS_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_CERT)/;
const UNREACHABLE_CODES = /^(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ECONNRESET|ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|UND_ERR_SOCKET|UND_ERR_HEADERS_TIMEOUT)$/;

function authHeader(broker: BrokerConnection): Record<string, string> {
  if (broker.token) return { authorization: `Bearer ${broker.token}` };
  if (broker.username !== undefined) {
    return { authorization: `Basic ${Buffer.from(`${broker.username}:${broker.password ?? ''}`).toString('base64')}` };
  }
  return {};
}

function errorCode(error: unknown): string {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_CONNECT') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return '';
}

/**
 * Checks that the broker answers its index with these credentials. Returns the one-line cause when it
 * does not (unreachable, TLS, 401, 403, not found, another status), undefined when it does.
 */
export async function probeBroker(broker: BrokerConnection, timeoutMs = 10_000): Promise<string | undefined> {
  const where = `the Pact Broker at ${broker.url}`;
  let url: URL;
  try {
    url = new URL(broker.url);
  } catch {
    return `--broker-url ${broker.url} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `--broker-url ${broker.url} is not an http(s) URL`;
  try {
    const res = await request(broker.url, {
      method: 'GET',
      headers: { accept: 'application/hal+json', ...authHeader(broker) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.body.text();
    const status = res.statusCode;
    if (status === 401) return `${where} refused the credentials (401 Unauthorized): check --broker-token or --broker-username/--broker-password`;
    if (status === 403) return `${where} denied access (403 Forbidden): the credentials lack permission`;
    if (status === 404) return `${where} was not found (404): the URL is not a Pact Broker's base URL`;
    if (status >= 400) return `${where} answered ${status}`;
    try {
      const json = JSON.parse(text) as { _links?: unknown };
      if (typeof json._links !== 'object' || json._links === null) return `${where} answered ${status} without HAL links: not a Pact Broker`;
    } catch {
      return `${where} answered ${status} with no JSON: not a Pact Broker`;
    }
    return undefined;
  } catch (error) {
    const code = errorCode(error);
    const message = ((error as Error).message ?? String(error)).split('\n')[0] ?? '';
    if (TLS_CODES.test(code) || /ssl|tls|certificate/i.test(message)) {
      return `TLS with ${where} failed (${code || message})`;
    }
    if (UNREACHABLE_CODES.test(code) || (error as Error).name === 'TimeoutError') {
      return `${where} is unreachable (${code || 'no answer within ' + Math.round(timeoutMs / 1000) + ' s'})`;
    }
    return `${where} could not be reached: ${code ? `${code}: ` : ''}${message}`;
  }
}

/** The first meaningful error line the Pact CLI printed. */
export function cliErrorLine(result: BrokerCliResult): string {
  const lines = `${result.stderr}\n${result.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^(Caused by|Stack backtrace|note:|Location:)/i.test(l));
  const line = lines.find((l) => /error|fail|not found|could not|cannot|unable|no /i.test(l)) ?? lines[0] ?? `exit ${result.code}`;
  return line.replace(/^(❌|error:?)\s*/i, '').slice(0, 400);
}

/** Throws a BrokerError naming why the CLI failed (the broker's state first, then the CLI's own words). */
export async function brokerFailure(what: string, broker: BrokerConnection, result: BrokerCliResult): Promise<never> {
  const cause = await probeBroker(broker);
  if (cause) throw new BrokerError(`${what}: ${cause}`);
  const output = `${result.stdout}\n${result.stderr}`;
  const status = /path '([^']+)' failed: (\d{3})[^.]*/.exec(output);
  if (status) {
    const path = (status[1] ?? '').replace(broker.url.replace(/\/+$/, ''), '');
    const code = status[2] ?? '';
    const meaning = code === '404' ? 'not found' : code === '401' || code === '403' ? 'access refused' : 'failed';
    throw new BrokerError(`${what}: ${path} ${meaning} at the Pact Broker (${code})`);
  }
  throw new BrokerError(`${what}: ${cliErrorLine(result)}`);
}

export interface PublishOptions {
  broker: BrokerConnection;
  /** Pact files (or directories / globs the CLI expands). */
  files: string[];
  consumerVersion: string;
  branch?: string;
  tags?: string[];
  buildUrl?: string;
}

/** Publishes consumer pacts (POST /contracts/publish through the CLI). Returns the CLI's text output. */
export async function publishPacts(opts: PublishOptions): Promise<string> {
  const args = ['broker', 'publish', ...opts.files, '--consumer-app-version', opts.consumerVersion];
  if (opts.branch) args.push('--branch', opts.branch);
  for (const tag of opts.tags ?? []) args.push('--tag', tag);
  if (opts.buildUrl) args.push('--build-url', opts.buildUrl);
  const result = await runPactCli(args, opts.broker);
  if (result.code !== 0) return brokerFailure('publish', opts.broker, result);
  return `${result.stdout}${result.stderr}`.trim();
}

export interface CanIDeployOptions {
  broker: BrokerConnection;
  pacticipant: string;
  version?: string;
  latest?: boolean;
  branch?: string;
  toEnvironment?: string;
  retryWhileUnknown?: number;
  retryIntervalSeconds?: number;
}

export interface CanIDeployAnswer {
  deployable: boolean;
  reason: string;
  /** Each integration the answer rests on. */
  rows: Array<{ consumer: string; consumerVersion: string; provider: string; providerVersion: string; success: boolean | undefined }>;
}

interface MatrixJson {
  summary?: { deployable?: boolean | null; reason?: string };
  matrix?: Array<{
    consumer?: { name?: string; version?: { number?: string } };
    provider?: { name?: string; version?: { number?: string } | null };
    verificationResult?: { success?: boolean } | null;
  }>;
}

/** Asks the broker whether a version can be deployed (the matrix, through the CLI's can-i-deploy). */
export async function canIDeploy(opts: CanIDeployOptions): Promise<CanIDeployAnswer> {
  const args = ['broker', 'can-i-deploy', '--pacticipant', opts.pacticipant];
  if (opts.version) args.push('--version', opts.version);
  else if (opts.branch) args.push('--branch', opts.branch);
  else args.push('--latest');
  if (opts.toEnvironment) args.push('--to-environment', opts.toEnvironment);
  if (opts.retryWhileUnknown !== undefined) args.push('--retry-while-unknown', String(opts.retryWhileUnknown));
  if (opts.retryIntervalSeconds !== undefined) args.push('--retry-interval', String(opts.retryIntervalSeconds));
  args.push('--output', 'json');
  const result = await runPactCli(args, opts.broker);
  let parsed: MatrixJson | undefined;
  try {
    const text = result.stdout.trim();
    const start = text.indexOf('{');
    parsed = start >= 0 ? (JSON.parse(text.slice(start)) as MatrixJson) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed?.summary || (result.code !== 0 && result.code !== 1)) return brokerFailure('can-i-deploy', opts.broker, result);
  return {
    deployable: parsed.summary.deployable === true,
    reason: parsed.summary.reason ?? '',
    rows: (parsed.matrix ?? []).map((row) => ({
      consumer: row.consumer?.name ?? '',
      consumerVersion: row.consumer?.version?.number ?? '',
      provider: row.provider?.name ?? '',
      providerVersion: row.provider?.version?.number ?? '',
      success: row.verificationResult?.success ?? undefined,
    })),
  };
}

export interface RecordDeploymentOptions {
  broker: BrokerConnection;
  pacticipant: string;
  version: string;
  environment: string;
  applicationInstance?: string;
}

/** Records that a version was deployed to an environment. */
export async function recordDeployment(opts: RecordDeploymentOptions): Promise<string> {
  const args = ['broker', 'record-deployment', '--pacticipant', opts.pacticipant, '--version', opts.version, '--environment', opts.environment];
  if (opts.applicationInstance) args.push('--application-instance', opts.applicationInstance);
  const result = await runPactCli(args, opts.broker);
  if (result.code !== 0) return brokerFailure('record-deployment', opts.broker, result);
  return `${result.stdout}${result.stderr}`.trim();
}

/**
 * The latest pact of each consumer of a provider (the consumers' main branch, as the Broker keeps it), through
 * the client's `get-pacts --latest --download`: the files are written to `dir`. A provider the Broker does not
 * know has no pacts; any other failure is a BrokerError naming its cause.
 */
export async function downloadLatestPacts(broker: BrokerConnection, provider: string, dir: string): Promise<void> {
  const args = ['broker', 'get-pacts', '--provider', provider, '--latest', '--download', '--download-dir', dir, '--output', 'json'];
  const result = await runPactCli(args, broker);
  if (result.code === 0) return;
  const cause = await probeBroker(broker);
  if (!cause && /failed: 404/.test(`${result.stdout}\n${result.stderr}`)) return;
  return brokerFailure(`the latest pacts of ${provider}`, broker, result);
}
