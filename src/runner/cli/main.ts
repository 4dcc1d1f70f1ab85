import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { InputError } from '../spec/errors.ts';
import { addPactCommands } from './pact.ts';
import { DEFAULT_SPECS, ROOT } from './paths.ts';
import type { RunOptions } from './run.ts';

/** Exit codes: 0 conformant, 1 not conformant (a failed or missing operation), 2 could not run. */
export const EXIT = { conformant: 0, notConformant: 1, couldNotRun: 2 } as const;

const fromRoot = (p: string) => resolve(ROOT, p);

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number above 0`);
    return n;
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

function parseShard(value: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) throw new InvalidArgumentError('--shard takes i/n with 1 <= i <= n, e.g. 2/4');
  return { index, count };
}

const FAIL_ON = ['error', 'warning', 'untested'] as const;

/** --fail-on takes one level or a comma-separated list (repeatable): error (default), warning, untested. */
function parseFailOn(value: string, previous: string[]): string[] {
  const levels = value.split(',').map((v) => v.trim()).filter(Boolean);
  const unknown = levels.filter((l) => !(FAIL_ON as readonly string[]).includes(l));
  if (unknown.length > 0 || levels.length === 0) throw new InvalidArgumentError(`--fail-on takes ${FAIL_ON.join(', ')} (or a comma-separated list)`);
  return [...previous, ...levels];
}

function parseServer(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('--server takes <service-id>=<url>, e.g. customer-service=https://gw/customer-service');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

interface RunFlags {
  baseUrl?: string;
  foreignTradeBaseUrl?: string;
  server: Record<string, string>;
  token?: string;
  spec: string[];
  profile: string;
  examples: string;
  catalog: string;
  waivers: string;
  timeout: number;
  concurrency: number;
  include: string[];
  exclude: string[];
  readOnly?: boolean;
  allowIrreversible?: boolean;
  otpSourceUrl?: string;
  out: string;
  seed: number;
  shard?: { index: number; count: number };
  failOn: string[];
  quiet?: boolean;
  deploymentSpec?: string;
  keepPassedExchanges?: boolean;
}

function toRunOptions(flags: RunFlags, env: NodeJS.ProcessEnv): RunOptions {
  const servers: Record<string, string> = { ...flags.server };
  if (flags.baseUrl) servers['customer-service'] = flags.baseUrl;
  if (flags.foreignTradeBaseUrl) servers['foreign-trade-service'] = flags.foreignTradeBaseUrl;
  const token = flags.token ?? env['CONFORMANCE_TOKEN'];
  return {
    specs: flags.spec.length > 0 ? flags.spec : DEFAULT_SPECS.map(fromRoot),
    profile: flags.profile,
    examples: flags.examples,
    catalog: flags.catalog,
    waivers: flags.waivers,
    servers,
    ...(token ? { token } : {}),
    timeoutMs: flags.timeout,
    concurrency: flags.concurrency,
    include: flags.include,
    exclude: flags.exclude,
    readOnly: flags.readOnly ?? false,
    allowIrreversible: flags.allowIrreversible ?? false,
    ...(flags.otpSourceUrl ? { otpSourceUrl: flags.otpSourceUrl } : {}),
    out: flags.out,
    seed: flags.seed,
    ...(flags.shard ? { shard: flags.shard } : {}),
    failOn: flags.failOn.includes('warning') ? 'warning' : 'error',
    ...(flags.failOn.includes('untested') ? { failOnUntested: true } : {}),
    quiet: flags.quiet ?? false,
    ...(flags.deploymentSpec ? { deploymentSpec: flags.deploymentSpec } : {}),
    keepPassedExchanges: flags.keepPassedExchanges ?? false,
  };
}

/** Builds the command line. `setExit` receives the exit code; nothing here calls process.exit. */
export function buildProgram(env: NodeJS.ProcessEnv, setExit: (code: number) => void): Command {
  const program = new Command('conformance')
    .description('Contract tests and conformance checks for the Customer domain service and the foreign-trade service.')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showSuggestionAfterError(true);

  program
    .command('run', { isDefault: true })
    .description('Run every described operation against a deployment (default: the embedded reference service).')
    .option('--base-url <url>', 'customer-service base URL, e.g. https://gw.example/customer-service')
    .option('--foreign-trade-base-url <url>', 'foreign-trade-service base URL')
    .option('--server <id=url>', 'base URL of any service of the contract (repeatable)', parseServer, {})
    .option('--token <token>', 'bearer token (prefer the CONFORMANCE_TOKEN environment variable; never printed)')
    .option('--spec <file|url>', 'OpenAPI 3.0/3.1 description (repeatable; default: contract/*.openapi.yaml)', collect, [])
    .option('--profile <file>', 'service profile', fromRoot('contract/profile.yaml'))
    .option('--examples <file>', 'request examples', fromRoot('contract/examples.yaml'))
    .option('--catalog <file>', 'operation catalog', fromRoot('contract/catalog.yaml'))
    .option('--waivers <file>', 'known deviations', fromRoot('contract/waivers.yaml'))
    .option('--timeout <ms>', 'timeout of each request', positiveInt('--timeout'), 10_000)
    .option('--concurrency <n>', 'requests in flight at once', positiveInt('--concurrency'), 8)
    .option('--include <ids>', 'only these operationIds, groups or services (repeatable, comma-separated)', collect, [])
    .option('--exclude <ids>', 'leave out these operationIds, groups or services', collect, [])
    .option('--read-only', 'only safe methods and negative probes that must be rejected')
    .option('--allow-irreversible', 'also run calls whose side effects cannot be undone (OTP, reference numbers, users, caches)')
    .option('--otp-source-url <url>', 'URL template with {transactionId} that answers the one-time password')
    .option('--out <dir>', 'report directory', 'reports')
    .option('--seed <n>', 'seed of the generated requests', positiveInt('--seed'), 1)
    .option('--shard <i/n>', 'run a deterministic i-th of n parts of the operations', parseShard)
    .option('--fail-on <levels>', 'what else fails the run besides errors: warning, untested (comma-separated)', parseFailOn, [])
    .option('--quiet', 'print only the summary')
    .option('--deployment-spec <file|url>', "the deployment's own OpenAPI: list what it serves that the contract lacks, and the reverse")
    .option('--keep-passed-exchanges', 'keep the requests and responses of passed cases in the reports (default: their summary only)')
    .action(async (flags: RunFlags) => {
      // Loaded on use: `--help` and the other commands never load the engine.
      const { runConformance } = await import('./run.ts');
      const outcome = await runConformance(toRunOptions(flags, env));
      if (outcome.message) process.stderr.write(`conformance: ${outcome.message}\n`);
      setExit(outcome.exitCode);
    });

  program
    .command('merge')
    .description('Merge shard report directories into one results.json, junit.xml and index.html.')
    .argument('<dirs...>', 'report directories of the shards')
    .option('--out <dir>', 'report directory', 'reports')
    .action(async (dirs: string[], flags: { out: string }) => {
      const [{ mergeResults, readResultsDir }, { writeReports }, { isInteractive, renderSummary }, { exitCodeOf }] = await Promise.all([
        import('../report/merge.ts'),
        import('../report/write.ts'),
        import('../report/console.ts'),
        import('../report/outcomes.ts'),
      ]);
      const parts = await Promise.all(dirs.map((d) => readResultsDir(d)));
      const merged = mergeResults(parts);
      const files = await writeReports(merged, flags.out);
      process.stdout.write(`${renderSummary(merged, files, { color: isInteractive(process.stdout) })}\n`);
      if (merged.verdict === 'incomplete') process.stderr.write(`conformance: ${(merged.verdictLine ?? 'incomplete').replace(/^incomplete: /, '')}\n`);
      setExit(exitCodeOf(merged.verdict));
    });

  addPactCommands(program, { specs: DEFAULT_SPECS.map(fromRoot), catalog: fromRoot('contract/catalog.yaml') }, env, setExit);
  return program;
}

/** Runs the CLI and returns the exit code. Bad input is one line on stderr and exit 2, never a stack trace. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  env['PACT_DO_NOT_TRACK'] ??= 'true';
  process.env['PACT_DO_NOT_TRACK'] ??= 'true';
  let code = 0;
  const program = buildProgram(env, (c) => (code = c));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0 ? 0 : EXIT.couldNotRun;
    }
    const [{ WaiverFileError }, { ResultsInputError }] = await Promise.all([import('../report/waivers.ts'), import('../report/merge.ts')]);
    if (error instanceof InputError || error instanceof WaiverFileError || error instanceof ResultsInputError) {
      process.stderr.write(`conformance: ${error.message.split('\n')[0]}\n`);
      return EXIT.couldNotRun;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`conformance: could not run: ${message.split('\n')[0]}\n`);
    if (env['CONFORMANCE_DEBUG']) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    return EXIT.couldNotRun;
  }
}
