import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../description/errors.ts';
import { addPactCommands } from './pact.ts';
import { addCompatCommand } from './compat.ts';
import { showConfig } from './show-config.ts';
import { addRunOptions, resolveOptions, toRunOptions } from './run-options.ts';
import type { Pack } from '../pack.ts';
import { addPackOption, packArguments } from './pack-options.ts';
import { ROOT } from './paths.ts';

const fromRoot = (p: string) => resolve(ROOT, p);
const VERSION = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version;

/** Exit codes: 0 conformant, 1 not conformant (a failed or missing operation), 2 could not run. */
export const EXIT = { conformant: 0, notConformant: 1, couldNotRun: 2 } as const;

/** Builds the command line. `setExit` receives the exit code; nothing here calls process.exit. */
export function buildProgram(env: NodeJS.ProcessEnv, setExit: (code: number) => void, packs: readonly Pack[] = []): Command {
  const program = new Command('conformance')
    .description(`Contract tests and conformance checks for any OpenAPI (3.0, 3.1, 3.2) or Swagger 2.0 description${packs.length > 0 ? ` (packs: ${packs.map((p) => `${p.name}, ${p.title}`).join('; ')})` : ''}.`)
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showSuggestionAfterError(true);

  const run = program
    .command('run', { isDefault: true })
    .description('Run every described operation against a deployment (the default command; with no base URL: the embedded reference service).');
  addRunOptions(run, packs).action(async (_flags: unknown, cmd: Command) => {
    const { flags } = await resolveOptions(cmd, env);
    const options = toRunOptions(flags, env, packs);
    if (flags.dryRun) {
      const { printPlan } = await import('./plan.ts');
      await printPlan(options, (line) => process.stdout.write(`${line}\n`));
      return setExit(0);
    }
    // Loaded on use: `--help` and the other commands never load the engine.
    const [{ runConformance }, { consoleReporter, filesReporter }] = await Promise.all([import('../run.ts'), import('../report/reporter.ts')]);
    const reporters = [filesReporter(options.out), consoleReporter({ stdout: process.stdout, stderr: process.stderr }, { quiet: options.quiet })];
    // SIGINT/SIGTERM: the run stops starting cases, cleans up and still writes its reports.
    const abort = new AbortController();
    const onSignal = () => {
      process.stderr.write('\nInterrupted: stopping the run.\n');
      abort.abort();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      // --base-contract: what the contract changes since the base, proven against the deployment first.
      const compatibility = flags.baseContract ? await (await import('./compat.ts')).compatForRun(flags.baseContract, options, packs, runConformance, env) : undefined;
      const outcome = await runConformance({ ...options, ...(compatibility ? { compatibility } : {}), reporters, signal: abort.signal });
      if (outcome.message) process.stderr.write(`conformance: ${outcome.message}\n`);
      let gate = 0;
      if (compatibility) {
        const { compatLines, gateExitCode } = await import('../compat/gate.ts');
        for (const line of compatLines(compatibility)) process.stdout.write(`${line}\n`);
        gate = gateExitCode(compatibility, options.failOn === 'warning' ? 'warning' : 'breaking');
      }
      setExit(outcome.exitCode === 0 ? gate : outcome.exitCode);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });

  const plan = program
    .command('plan')
    .description('Print every case a run with these options would send, and why each skipped one would not run; sends nothing.');
  addRunOptions(plan, packs).action(async (_flags: unknown, cmd: Command) => {
    const { flags } = await resolveOptions(cmd, env);
    const { printPlan } = await import('./plan.ts');
    await printPlan(toRunOptions(flags, env, packs), (line) => process.stdout.write(`${line}\n`));
    setExit(0);
  });

  const config = program
    .command('config')
    .description('Print the effective options (flags > environment > config file > defaults) and where each comes from; secrets masked.');
  addRunOptions(config, packs).action(async (_flags: unknown, cmd: Command) => {
    process.stdout.write(showConfig(await resolveOptions(cmd, env)));
    setExit(0);
  });

  program
    .command('merge')
    .description('Merge shard report directories into one results.json, junit.xml and index.html.')
    .argument('<dirs...>', 'report directories of the shards')
    .option('--out <dir>', 'report directory', 'reports')
    .action(async (dirs: string[], flags: { out: string }) => {
      const [{ mergeResults, readResultsDir }, { consoleReporter, filesReporter, reportFinished }, { exitCodeOf }] = await Promise.all([
        import('../report/merge.ts'),
        import('../report/reporter.ts'),
        import('../report/outcomes.ts'),
      ]);
      const parts = await Promise.all(dirs.map((d) => readResultsDir(d)));
      const merged = mergeResults(parts);
      await reportFinished([filesReporter(flags.out), consoleReporter({ stdout: process.stdout, stderr: process.stderr })], merged);
      if (merged.verdict === 'incomplete') process.stderr.write(`conformance: ${(merged.verdictLine ?? 'incomplete').replace(/^incomplete: /, '')}\n`);
      setExit(exitCodeOf(merged.verdict));
    });

  addPactCommands(program, packs, env, setExit);
  addCompatCommand(program, packs, setExit, env);
  addPackOption(program);
  program.addHelpText('after', HELP_FOOTER);
  run.addHelpText('after', HELP_FOOTER);
  return program;
}

const HELP_FOOTER = `
\`conformance\` without a command runs \`conformance run\`. \`conformance <command> --help\` lists a command's options.
Every run option can also be set by a CONFORMANCE_* environment variable or in conformance.config.yaml
(keys: the long flags in camelCase); flags win over the environment, the environment over the file.

Exit codes:
  0  conformant
  1  not conformant: an operation failed or is missing, a pact interaction failed, or a waiver expired
  2  could not run: bad arguments or config, a broken contract, an unreachable target, an interrupted run

Environment:
  CONFORMANCE_TOKEN               bearer token (never printed; reports show $CONFORMANCE_TOKEN); needed only when a
                                  selected operation declares security (or its profile sends it with every call)
  CONFORMANCE_AUTH                credentials per security scheme, SCHEME=VALUE, one per line (never printed;
                                  reports show $CONFORMANCE_AUTH_<SCHEME>)
  CONFORMANCE_<OPTION>            any run option, e.g. CONFORMANCE_BASE_URL, CONFORMANCE_TIMEOUT,
                                  CONFORMANCE_HEADER (one NAME:VALUE per line)
  HTTPS_PROXY, HTTP_PROXY         proxy of https:// and http:// targets (--proxy wins)
  NO_PROXY                        hosts reached without the proxy
  NO_COLOR                        no colour in the console (progress is still shown)
  CI                              plain progress lines instead of a live bar

Examples:
  $ conformance                                         # everything, against the embedded reference service
  $ CONFORMANCE_TOKEN=… conformance --spec orders.openapi.yaml --base-url https://gw.example/orders \\
      --proxy http://proxy:3128 -H 'X-Tenant:acme'
  $ conformance plan --read-only --include '/orders/*'   # what would run and what would be skipped, sending nothing
`;

/** Runs the CLI and returns the exit code. Bad input is one line on stderr and exit 2, never a stack trace. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, installed: readonly Pack[] = []): Promise<number> {
  // Output piped into `head` and the like: a closed pipe ends the output, not the process with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listenerCount('error') > 0) continue;
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
    });
  }
  env['PACT_DO_NOT_TRACK'] ??= 'true';
  process.env['PACT_DO_NOT_TRACK'] ??= 'true';
  let code = 0;
  try {
    // Packs named with --pack add options, so they load before the command line is defined.
    const named = packArguments(argv);
    const packs = named.length > 0 ? [...installed, ...(await (await import('../pack.ts')).loadPackModules(named))] : installed;
    const program = buildProgram(env, (c) => (code = c), packs);
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof InvalidArgumentError) {
      // A bad value from the environment or the config file (flags are reported by commander itself).
      process.stderr.write(`conformance: ${error.message.split('\n')[0]}\n`);
      return EXIT.couldNotRun;
    }
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0 ? 0 : EXIT.couldNotRun;
    }
    // Bad input (the waiver and results errors by name: their modules load only with the commands that use them).
    if (error instanceof InputError || (error instanceof Error && (error.name === 'WaiverFileError' || error.name === 'ResultsInputError'))) {
      process.stderr.write(`conformance: ${error.message.split('\n')[0]}\n`);
      return EXIT.couldNotRun;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`conformance: could not run: ${message.split('\n')[0]}\n`);
    if (env['CONFORMANCE_DEBUG']) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    return EXIT.couldNotRun;
  }
}
