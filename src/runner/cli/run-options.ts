/**
 * The options of `conformance run` (and of `plan` and `config`, which take the same ones): their flags, their
 * environment variables (CONFORMANCE_ + the flag in upper snake case) and their config-file keys (the flag in
 * camelCase). Precedence: flags > environment > config file > defaults.
 */
import { identitiesFromEnv, identityNameProblem, mergeIdentities, parseIdentity, type Identity } from '../execute/identities.ts';
import { randomBytes } from 'node:crypto';
import { InputError } from '../description/errors.ts';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { defaultClientOptions, parseHeader, parseRate, proxySettings, type ClientOptions } from '../http/client-options.ts';
import { baseUrlArgument, baseUrlProblem } from './base-url.ts';
import { loadConfigFile, type ConfigFile } from './config-file.ts';
import { defaultContracts, type Pack } from '../pack.ts';
import { addPackBaseUrlOptions, packBaseUrls } from './pack-options.ts';
import type { RunOptions } from '../run.ts';


export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number above 0`);
    return n;
  };
}

function nonNegativeInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number, 0 or more`);
    return n;
  };
}

/** The body cap by default: 1 MiB of each answer is read (decoded), the rest counted and let go. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1000, kib: 1024, mb: 1000 ** 2, mib: 1024 ** 2, gb: 1000 ** 3, gib: 1024 ** 3 };

/** A size in bytes: `1048576`, `5MB`, `512KiB`, `1.5MiB` (decimal and binary units). */
export function parseSize(name: string) {
  return (value: string): number => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?\s*$/i.exec(value);
    const bytes = m ? Math.floor(Number(m[1]) * (SIZE_UNITS[(m[2] ?? '').toLowerCase()] ?? Number.NaN)) : Number.NaN;
    if (!Number.isSafeInteger(bytes) || bytes < 1024) throw new InvalidArgumentError(`${name} takes a size of at least 1 KiB in bytes, or with a unit: 1048576, 5MB, 512KiB, 2MiB`);
    return bytes;
  };
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

/** Repeatable values that may hold commas (headers, commands): one per flag, or one per line in a variable. */
function collectLines(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(/\r?\n/).map((v) => v.trim()).filter(Boolean)];
}

function header(value: string, previous: string[] | undefined): string[] {
  const lines = collectLines(value, []);
  for (const line of lines) {
    try {
      parseHeader(line);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  }
  return [...(previous ?? []), ...lines];
}

function parseShard(value: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) throw new InvalidArgumentError('--shard takes i/n with 1 <= i <= n, e.g. 2/4');
  return { index, count };
}

function parseServer(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('--server takes <service-id>=<url>, e.g. orders=https://gw/orders');
  const bad = baseUrlProblem(value.slice(at + 1));
  if (bad) throw new InvalidArgumentError(`--server ${value.slice(0, at)}: ${bad}`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/**
 * --auth NAME=VALUE: the credential of the security scheme NAME (components.securitySchemes). Repeatable; in
 * CONFORMANCE_AUTH one per line (or separated by spaces). A value may hold '=' (everything after the first).
 */
function parseAuth(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const out = { ...previous };
  for (const item of value.split(/\r?\n|\s+(?=[A-Za-z0-9._-]+=)/).map((v) => v.trim()).filter(Boolean)) {
    const at = item.indexOf('=');
    if (at < 1 || at === item.length - 1) throw new InvalidArgumentError('--auth takes <scheme>=<value>, the scheme as components.securitySchemes names it (e.g. api_key=..., basic_auth=user:password)');
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

/**
 * --identity NAME=CREDENTIAL: another caller the run holds a credential for (a token, or a JSON object
 * { token, auth, scopes, roles }). Repeatable; also CONFORMANCE_IDENTITY_<NAME> and the config's `identities`.
 */
function parseIdentityOption(value: string, previous: Identity[] | undefined): Identity[] {
  const at = value.indexOf('=');
  if (at < 1 || at === value.length - 1) throw new InvalidArgumentError('--identity takes <name>=<credential> (a token, or a JSON object with token, auth, scopes, roles)');
  try {
    return mergeIdentities(previous ?? [], [parseIdentity(value.slice(0, at), value.slice(at + 1))]);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** --identity-scopes / --identity-roles NAME=a,b: what an identity's credential holds (`default`: the run's own). */
function parseHeld(option: string): (value: string, previous: Record<string, string[]> | undefined) => Record<string, string[]> {
  return (value, previous) => {
    const at = value.indexOf('=');
    const name = value.slice(0, at);
    if (at < 1 || identityNameProblem(name)) throw new InvalidArgumentError(`${option} takes <identity>=<name>,<name> (the identity default is the run's own credential)`);
    return { ...previous, [name]: value.slice(at + 1).split(/[\s,]+/).filter(Boolean) };
  };
}

const FAIL_ON = ['error', 'warning', 'untested'] as const;

/** --fail-on takes one level or a comma-separated list (repeatable): error (default), warning, untested. */
function parseFailOn(value: string, previous: string[] | undefined): string[] {
  const levels = value.split(',').map((v) => v.trim()).filter(Boolean);
  const unknown = levels.filter((l) => !(FAIL_ON as readonly string[]).includes(l));
  if (unknown.length > 0 || levels.length === 0) throw new InvalidArgumentError(`--fail-on takes ${FAIL_ON.join(', ')} (or a comma-separated list)`);
  return [...(previous ?? []), ...levels];
}

function rate(value: string): number {
  try {
    return parseRate(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

export interface RunFlags {
  config?: string;
  pack?: string[];
  baseUrl?: string;
  server?: Record<string, string>;
  token?: string;
  tokenCommand?: string;
  authFrom?: string;
  authFromBody?: string;
  auth?: Record<string, string>;
  identity?: Identity[];
  identityScopes?: Record<string, string[]>;
  identityRoles?: Record<string, string[]>;
  header?: string[];
  secretHeader?: string[];
  proxy?: string;
  clientCert?: string;
  clientKey?: string;
  caCert?: string;
  insecure?: boolean;
  retries: number;
  rateLimit?: number;
  spec?: string[];
  suites?: string[];
  profile?: string;
  examples?: string;
  catalog?: string;
  waivers?: string;
  timeout: number;
  maxBodySize: number;
  concurrency: number;
  include?: string[];
  exclude?: string[];
  maxFailures?: number;
  readOnly?: boolean;
  allowIrreversible?: boolean;
  otpSourceUrl?: string;
  out: string;
  seed: number;
  maxExamples?: number;
  fuzzExamples?: number;
  sequences?: number;
  shard?: { index: number; count: number };
  failOn?: string[];
  quiet?: boolean;
  deploymentSpec?: string;
  baseline?: string;
  baseContract?: string;
  keepPassedExchanges?: boolean;
  dryRun?: boolean;
}

/** Options whose values are secret: masked by `conformance config`, never printed. */
export const SECRET_OPTIONS = new Set(['token', 'auth', 'identity', 'authFromBody']);

/** Adds the run options to a command. */
export function addRunOptions(cmd: Command, packs: readonly Pack[] = []): Command {
  return addPackBaseUrlOptions(cmd, packs)
    .option('--config <file>', 'config file (default: conformance.config.yaml in the working directory, when present)')
    .option('--base-url <url>', "base URL of the contract's service, e.g. https://gw.example/orders (with several services: the pack's main one, else the first)", baseUrlArgument)
    .option('--server <id=url>', 'base URL of any service of the contract (repeatable)', parseServer)
    .option('--token <token>', 'bearer token (prefer CONFORMANCE_TOKEN; never printed)')
    .option('--token-command <cmd>', 'shell command printing a bearer token (or JSON {access_token, expires_in}); run again when the token is rejected or about to expire')
    .option('--auth-from <operation>', 'the operation that answers the run\'s token, "POST /users/login" or an operationId: called once at the start, its token (user.token, access_token, a header) sent as the scheme wants it (Bearer, an apiKey\'s Token prefix)')
    .option('--auth-from-body <json>', 'the JSON body sent to --auth-from (prefer CONFORMANCE_AUTH_FROM_BODY; never printed); fields it leaves out are drawn, fresh on every run (a registration)')
    .option('--auth <scheme=value>', 'credential of one security scheme of the contract: an apiKey, user:password for basic, a token (repeatable; prefer CONFORMANCE_AUTH; never printed; --token serves the schemes without one)', parseAuth)
    .option('--identity <name=credential>', 'another caller: its token, or a JSON object {token, auth, scopes, roles} (repeatable; prefer CONFORMANCE_IDENTITY_<NAME>; never printed); a second identity turns on the access checks', parseIdentityOption)
    .option('--identity-scopes <name=scopes>', "OAuth2 scopes an identity's credential holds, comma-separated (repeatable; default: the run's own credential)", parseHeld('--identity-scopes'))
    .option('--identity-roles <name=roles>', "roles an identity's credential holds, comma-separated (repeatable; default: the run's own credential)", parseHeld('--identity-roles'))
    .option('-H, --header <name:value>', 'header sent with every request (repeatable; a leading ! marks the value secret)', header)
    .option('--secret-header <name>', 'redact the value of this header everywhere (repeatable; Authorization always is)', collect)
    .option('--proxy <url>', 'HTTP proxy for every request (default: HTTPS_PROXY / HTTP_PROXY; NO_PROXY applies)')
    .option('--client-cert <file>', 'PEM client certificate for mutual TLS')
    .option('--client-key <file>', 'PEM key of the client certificate')
    .option('--ca-cert <file>', 'PEM CA bundle that signs the target (and proxy) certificates')
    .option('--insecure', 'accept any server certificate')
    .option('--retries <n>', 'resend idempotent requests after a network error up to n times', nonNegativeInt('--retries'), 0)
    .option('--rate-limit <n/s>', 'at most n requests per second (or n/m per minute); a 429 always waits its Retry-After', rate)
    .option('--spec <file|url>', "OpenAPI 3.0, 3.1 or 3.2, or Swagger 2.0 description (repeatable; default: the contracts of the packs named with --pack, else of the installed packs)", collect)
    .option('--suites <dir>', 'also run the scenario suites (*.test.ts) in this directory (repeatable)', collect)
    .option('--profile <file|generic>', "platform profile (default: the profile of the pack the contract belongs to): applies to the services it claims, the generic profile to the others ('generic': to all)")
    .option('--examples <file>', "request examples (default: the pack's, for the pack's contracts)")
    .option('--catalog <file>', "operation catalog (default: the pack's, for the pack's contracts)")
    .option('--waivers <file>', "known deviations (default: the pack's, for the pack's contracts)")
    .option('--timeout <ms>', 'timeout of each request', positiveInt('--timeout'), 10_000)
    .option('--max-body-size <size>', 'bytes of each answer read and judged (1048576, 5MB, 2MiB); a larger body is judged for its status, media type and headers, and noted as not judged past that', parseSize('--max-body-size'), DEFAULT_MAX_BODY_BYTES)
    .option('--concurrency <n>', 'requests in flight at once', positiveInt('--concurrency'), 8)
    .option('--include <selectors>', 'only these operations: operationId, group, service, tag:NAME, method (GET), path glob (/orders/*) (repeatable, comma-separated)', collect)
    .option('--exclude <selectors>', 'leave out these operations (same selectors as --include)', collect)
    .option('--max-failures <n>', 'stop running cases once n operations have failed', positiveInt('--max-failures'))
    .option('--read-only', 'only safe methods and negative probes that must be rejected')
    .option('--allow-irreversible', 'also run calls whose side effects cannot be undone (as the profile classes them, e.g. one-time passwords, counters), and delete records a list serves that the run did not make (lifecycle: empty collection)')
    .option('--otp-source-url <url>', 'URL template with {transactionId} that answers the one-time password')
    .option('--out <dir>', 'report directory', 'reports')
    .option('--seed <n>', 'seed of the generated requests', positiveInt('--seed'), 1)
    .option('--max-examples <n>', 'coverage requests per operation: every input class, then random variation up to n in all (0: none; default 10)', nonNegativeInt('--max-examples'))
    .option('--fuzz-examples <n>', 'random requests of the fuzzing phase per operation (0: none; default 100, fewer when a run would send more than 10,000 of them in all, at least 10)', nonNegativeInt('--fuzz-examples'))
    .option('--sequences <n>', 'stateful sequences per operation that acts on records: records made for the call alone, the call, the same call again (0: none; default 3, fewer when a run would send more than 3,000 of them, at least 1)', nonNegativeInt('--sequences'))
    .option('--shard <i/n>', 'run a deterministic i-th of n parts of the operations', parseShard)
    .option('--fail-on <levels>', 'what else fails the run besides errors: warning, untested (comma-separated)', parseFailOn)
    .option('--quiet', 'print only the summary')
    .option('--keep-passed-exchanges', 'keep the requests and responses of passed cases in the reports (default: their summary only)')
    .option('--deployment-spec <file|url>', "the deployment's own OpenAPI: list what it serves that the contract lacks, and the reverse")
    .option('--base-contract <file|url|git-ref:ref:path|label>', "the last release's contract: report what this contract breaks for its clients and prove it against the deployment (exit 1 on a breaking change)")
    .option('--baseline <results.json>', 'an earlier run: report what is new, fixed and unchanged, and fail only on what is new')
    .option('--dry-run', 'print the plan (same as `conformance plan`) and send nothing');
}

/** The environment variable of a long option: CONFORMANCE_ + upper snake case (CONFORMANCE_BASE_URL). */
export function envName(attribute: string): string {
  return `CONFORMANCE_${attribute.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

export type Source = 'flag' | 'env' | 'file' | 'default';

export interface Resolved {
  flags: RunFlags;
  sources: Record<string, Source>;
  file?: ConfigFile;
}

/**
 * Fills the options not given as flags from the environment, then the config file. Values go through the
 * same parsers as flags, so a bad value is the same one-line error wherever it comes from.
 */
export async function resolveOptions(cmd: Command, env: NodeJS.ProcessEnv, cwd = process.cwd()): Promise<Resolved> {
  const sources: Record<string, Source> = {};
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  const configPath = cmd.getOptionValue('config') ?? env[envName('config')];
  // Keys of the URL options packs added (they are not in config.schema.json).
  const urlKeys = cmd.options.filter((o) => o.long?.endsWith('-base-url') && o.long !== '--base-url').map((o) => o.attributeName());
  const file = await loadConfigFile(configPath, cwd, urlKeys);
  for (const option of cmd.options) {
    const key = option.attributeName();
    if (given(key)) {
      sources[key] = 'flag';
      continue;
    }
    const fromEnv = env[envName(key)];
    if (fromEnv !== undefined && fromEnv !== '') {
      cmd.setOptionValueWithSource(key, parseValue(option, [fromEnv], `${envName(key)}`), 'env');
      sources[key] = 'env';
      continue;
    }
    const fromFile = file?.values[key];
    if (fromFile !== undefined) {
      const texts = fileTexts(key, fromFile);
      cmd.setOptionValueWithSource(key, option.isBoolean() ? fromFile : parseValue(option, texts, `${file!.path}: ${file!.keys[key] ?? key}`), 'config');
      sources[key] = 'file';
      continue;
    }
    if (cmd.getOptionValue(key) !== undefined) sources[key] = 'default';
  }
  return { flags: cmd.opts<RunFlags>(), sources, ...(file ? { file } : {}) };
}

/** A config-file value as the texts a user would have typed after the flag. */
function fileTexts(key: string, value: unknown): string[] {
  if (key === 'server' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return Object.entries(value as Record<string, string>).map(([id, url]) => `${id}=${url}`);
  }
  if (key === 'auth' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return Object.entries(value as Record<string, string>).map(([scheme, v]) => `${scheme}=${v}`);
  }
  if (key === 'identity' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>).map(([name, v]) => `${name}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  if ((key === 'identityScopes' || key === 'identityRoles') && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>).map(([name, v]) => `${name}=${Array.isArray(v) ? v.join(',') : String(v)}`);
  }
  if (key === 'authFromBody' && typeof value === 'object' && value !== null) return [JSON.stringify(value)];
  if (key === 'header' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return Object.entries(value as Record<string, string>).map(([name, v]) => `${name}:${v}`);
  }
  if (Array.isArray(value)) return value.map(String);
  return [String(value)];
}

function parseValue(option: Option, texts: string[], where: string): unknown {
  if (option.isBoolean()) return /^(1|true|yes|on)$/i.test(texts[0] ?? '');
  const parse = (option as unknown as { parseArg?: (value: string, previous: unknown) => unknown }).parseArg;
  if (option.argChoices && !option.argChoices.includes(texts[0] ?? '')) {
    throw new InvalidArgumentError(`${where}: must be one of ${option.argChoices.join(', ')}`);
  }
  if (!parse) return texts.join(',');
  let value: unknown = undefined;
  try {
    for (const text of texts) value = parse(text, value);
  } catch (error) {
    throw new InvalidArgumentError(`${where}: ${(error as Error).message}`);
  }
  return value;
}

/** Client options from the resolved flags and the proxy environment. */
export function clientOptions(flags: RunFlags, env: NodeJS.ProcessEnv, runId: string): ClientOptions {
  const secretNames = flags.secretHeader ?? [];
  return {
    ...defaultClientOptions(runId, randomBytes(16).toString('hex')),
    headers: (flags.header ?? []).map((h) => parseHeader(h, secretNames)),
    ...proxySettings(env, flags.proxy),
    ...(flags.clientCert ? { clientCert: flags.clientCert } : {}),
    ...(flags.clientKey ? { clientKey: flags.clientKey } : {}),
    ...(flags.caCert ? { caCert: flags.caCert } : {}),
    insecure: flags.insecure ?? false,
    retries: flags.retries,
    rateLimit: flags.rateLimit ?? 0,
    ...(flags.tokenCommand ? { tokenCommand: flags.tokenCommand } : {}),
  };
}

/** The identities of the run: CONFORMANCE_IDENTITY_<NAME>, then --identity (or the config's), with their scopes and roles. */
function identitiesOption(flags: RunFlags, env: NodeJS.ProcessEnv): { identities?: Identity[] } {
  const held = (name: string): Partial<Identity> => ({
    ...(flags.identityScopes?.[name] ? { scopes: flags.identityScopes[name] } : {}),
    ...(flags.identityRoles?.[name] ? { roles: flags.identityRoles[name] } : {}),
  });
  let fromEnv: Identity[];
  try {
    fromEnv = identitiesFromEnv(env);
  } catch (error) {
    throw new InputError(`CONFORMANCE_IDENTITY_*: ${(error as Error).message}`);
  }
  const given = mergeIdentities(fromEnv, flags.identity ?? []);
  const names = new Set([...given.map((i) => i.name), ...Object.keys(flags.identityScopes ?? {}), ...Object.keys(flags.identityRoles ?? {})]);
  const identities = [...names].map((name) => ({ ...(given.find((i) => i.name === name) ?? { name }), ...held(name) }));
  return identities.length > 0 ? { identities } : {};
}

/** RunOptions for runConformance from the resolved flags. */
export function toRunOptions(flags: RunFlags, env: NodeJS.ProcessEnv, packs: readonly Pack[] = []): RunOptions {
  const servers: Record<string, string> = { ...packBaseUrls(flags as unknown as Record<string, unknown>, packs), ...flags.server };
  const token = flags.token ?? env['CONFORMANCE_TOKEN'];
  const runId = `conf${Date.now().toString(36)}`;
  return {
    specs: flags.spec?.length ? flags.spec : defaultContracts(packs),
    packs,
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(flags.examples ? { examples: flags.examples } : {}),
    ...(flags.catalog ? { catalog: flags.catalog } : {}),
    ...(flags.waivers ? { waivers: flags.waivers } : {}),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    servers,
    ...(token ? { token } : {}),
    ...(flags.auth && Object.keys(flags.auth).length > 0 ? { auth: flags.auth } : {}),
    ...identitiesOption(flags, env),
    ...(flags.authFrom ? { authFrom: { operation: flags.authFrom, ...(flags.authFromBody ? { body: flags.authFromBody } : {}) } } : {}),
    timeoutMs: flags.timeout,
    maxBodyBytes: flags.maxBodySize,
    concurrency: flags.concurrency,
    include: flags.include ?? [],
    exclude: flags.exclude ?? [],
    readOnly: flags.readOnly ?? false,
    allowIrreversible: flags.allowIrreversible ?? false,
    ...(flags.otpSourceUrl ? { otpSourceUrl: flags.otpSourceUrl } : {}),
    out: flags.out,
    seed: flags.seed,
    ...(flags.maxExamples !== undefined ? { maxExamples: flags.maxExamples } : {}),
    ...(flags.fuzzExamples !== undefined ? { fuzzExamples: flags.fuzzExamples } : {}),
    ...(flags.sequences !== undefined ? { sequences: flags.sequences } : {}),
    ...(flags.shard ? { shard: flags.shard } : {}),
    failOn: flags.failOn?.includes('warning') ? 'warning' : 'error',
    ...(flags.failOn?.includes('untested') ? { failOnUntested: true } : {}),
    quiet: flags.quiet ?? false,
    ...(flags.deploymentSpec ? { deploymentSpec: flags.deploymentSpec } : {}),
    ...(flags.baseline ? { baseline: flags.baseline } : {}),
    keepPassedExchanges: flags.keepPassedExchanges ?? false,
    client: clientOptions(flags, env, runId),
    runId,
    ...(flags.maxFailures ? { maxFailures: flags.maxFailures } : {}),
    ...(flags.suites?.length ? { suites: flags.suites.map((d) => resolve(d)) } : {}),
  };
}
