import { randomBytes } from 'node:crypto';
import type { Reporter } from '../report/reporter.ts';
import { toolIdentity } from './paths.ts';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { RunResults } from '../model.ts';
import type { BrokerSource } from '../pact/worker-protocol.ts';
import { InputError } from '../description/errors.ts';
import { baseUrlArgument } from './base-url.ts';
import { defaultContracts, fromPacks, packsFor, type Pack, type PackReference } from '../pack.ts';
import { addPackBaseUrlOptions, packBaseUrls } from './pack-options.ts';
import { addPactWorkflowCommands } from './pact-workflow.ts';

// The implementations load when a command runs: `--help` and the other commands never load them.
const loadContract = async (specs: string[]) => (await import('../description/load.ts')).loadContract(specs);

interface PactFlags {
  pacts: string[];
  allowNoPacts?: boolean;
  spec: string[];
  catalog?: string;
  out: string;
  server?: Record<string, string>;
  quiet?: boolean;
  baseUrl?: string;
  token?: string;
  timeout: number;
  brokerUrl?: string;
  brokerToken?: string;
  brokerUsername?: string;
  brokerPassword?: string;
  consumerVersionSelectors?: unknown[];
  enablePending?: boolean;
  includeWipPactsSince?: string;
  publishVerificationResults?: boolean;
  providerVersion?: string;
  providerBranch?: string;
  stateChangeUrl?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function jsonArray(value: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('--consumer-version-selectors takes a JSON array, e.g. \'[{"mainBranch":true}]\'');
}

/** `conformance pact verify|check`: consumer pacts against a deployment, or against the OpenAPI contract. */
export function addPactCommands(program: Command, packs: readonly Pack[], env: NodeJS.ProcessEnv, setExit: (code: number) => void): void {
  const defaults = { specs: defaultContracts(packs), packs };
  const pact = program.command('pact').description('Consumer-driven contracts (Pact).');
  const common = (cmd: Command) =>
    cmd
      .option('--pacts <dir|file|url>', "pact sources (repeatable; default: the packs' pacts)", collect, [])
      .option('--allow-no-pacts', 'finding no pact is not an error')
      .option('--spec <file|url>', "OpenAPI descriptions (repeatable; default: the packs' contracts)", collect, [])
      .option('--catalog <file>', "operation catalog (default: the pack's, for its contracts)")
      .option('--out <dir>', 'report directory', 'reports')
      .option('--quiet', 'print only the summary');

  common(pact.command('check').description('Check every pact interaction against the OpenAPI contract (no deployment needed).')).action(
    async (flags: PactFlags) => {
      const contract = await loadContract(flags.spec.length ? flags.spec : defaults.specs);
      const started = new Date();
      const { checkPacts } = await import('../pact/check.ts');
      const pacts = flags.pacts.length ? flags.pacts : packsFor(packs, contract.services).flatMap((p) => (p.pacts ? [p.pacts] : []));
      const result = await checkPacts({ contract, pacts, allowNoPacts: flags.allowNoPacts ?? false });
      setExit(await report(flags, defaults, { mode: 'check', interactions: result.interactions }, started, { embedded: false, services: [] }));
    },
  );

  addPackBaseUrlOptions(common(pact.command('verify').description("Verify every pact against a provider deployment (default: the pack's reference deployment).")), packs)
    .option('--base-url <url>', "base URL of the pack's main provider (or the contract's only service)", baseUrlArgument)
    .option('--server <id=url>', 'base URL of any provider (repeatable)', serverArgument, {})
    .option('--token <token>', 'bearer token (prefer CONFORMANCE_TOKEN)')
    .option('--timeout <ms>', 'timeout of each request', (v) => Number(v), 30_000)
    .option('--broker-url <url>', 'Pact Broker to fetch pacts from')
    .option('--broker-token <token>', 'Pact Broker token (or PACT_BROKER_TOKEN)')
    .option('--broker-username <name>', 'Pact Broker basic-auth user (or PACT_BROKER_USERNAME)')
    .option('--broker-password <password>', 'Pact Broker basic-auth password (or PACT_BROKER_PASSWORD)')
    .option('--consumer-version-selectors <json>', 'consumer version selectors (JSON array)', jsonArray)
    .option('--enable-pending', 'pending pacts do not fail the verification')
    .option('--include-wip-pacts-since <date>', 'include work-in-progress pacts since this date')
    .option('--publish-verification-results', 'publish the results to the broker')
    .option('--provider-version <version>', 'provider version to publish with')
    .option('--provider-branch <branch>', 'provider branch to publish with')
    .option('--allow-irreversible', 'needed against a deployment: pacts replay calls that may not be undone')
    .option('--state-change-url <url>', 'provider-state change endpoint to use (default: the reference service\'s, or one started for the run)')
    .action(async (flags: PactFlags & { allowIrreversible?: boolean }) => {
      let embedded: PackReference | undefined;
      let token = flags.token ?? env['CONFORMANCE_TOKEN'];
      const contract = await loadContract(flags.spec.length ? flags.spec : defaults.specs);
      const applying = packsFor(packs, contract.services);
      const primary = contract.services.length === 1 ? contract.services[0]?.id : fromPacks(applying, 'primaryService');
      let baseUrls: Record<string, string> = { ...packBaseUrls(flags as unknown as Record<string, unknown>, packs), ...(flags.server ?? {}) };
      if (flags.baseUrl) {
        if (!primary) throw new InputError('--base-url: the contract has several services: name each with --server <id>=<url>');
        baseUrls[primary] ??= flags.baseUrl;
      }
      if (Object.keys(baseUrls).length === 0) {
        const reference = applying.find((p) => p.startReference);
        if (!reference) throw new InputError('pact verify needs base URLs (--base-url, --server <id>=<url>): no reference deployment serves this contract');
        token = randomBytes(24).toString('base64url');
        embedded = await reference.startReference!({ token });
        baseUrls = { ...embedded.baseUrls };
      }
      try {
        if (!token) throw new InputError('no bearer token: set CONFORMANCE_TOKEN (or pass --token)');
        if (!embedded && !flags.allowIrreversible) {
          throw new InputError('pact verify replays consumer calls that may not be undone: pass --allow-irreversible to run them against this deployment');
        }
        if (flags.publishVerificationResults && !flags.providerVersion) throw new InputError('--publish-verification-results needs --provider-version');
        const broker: BrokerSource | undefined = flags.brokerUrl
          ? {
              url: flags.brokerUrl,
              ...optional('token', flags.brokerToken ?? env['PACT_BROKER_TOKEN']),
              ...optional('username', flags.brokerUsername ?? env['PACT_BROKER_USERNAME']),
              ...optional('password', flags.brokerPassword ?? env['PACT_BROKER_PASSWORD']),
              ...(flags.consumerVersionSelectors ? { consumerVersionSelectors: flags.consumerVersionSelectors } : {}),
              ...(flags.enablePending ? { enablePending: true } : {}),
              ...optional('includeWipPactsSince', flags.includeWipPactsSince),
              ...(flags.publishVerificationResults ? { publishVerificationResult: true } : {}),
              ...optional('providerVersion', flags.providerVersion),
              ...optional('providerVersionBranch', flags.providerBranch),
            }
          : undefined;
        const started = new Date();
        const { verifyPacts } = await import('../pact/verify.ts');
        const result = await verifyPacts({
          ...(flags.pacts.length ? { pacts: flags.pacts } : {}),
          baseUrls,
          packs: applying,
          token,
          allowNoPacts: flags.allowNoPacts ?? false,
          timeoutMs: flags.timeout,
          contract,
          ...(broker ? { broker } : {}),
          ...(flags.stateChangeUrl
            ? { stateChangeUrl: flags.stateChangeUrl }
            : embedded?.stateChangeUrl
              ? { stateChangeUrl: embedded.stateChangeUrl }
              : {}),
        });
        for (const warning of result.warnings) process.stderr.write(`conformance: warning: ${warning}\n`);
        const target = {
          embedded: embedded !== undefined,
          services: Object.entries(baseUrls).map(([id, baseUrl]) => ({ id, baseUrl })),
        };
        setExit(await report(flags, defaults, { mode: 'verify', interactions: result.interactions }, started, target));
      } finally {
        await embedded?.close();
      }
    });

  addPactWorkflowCommands(pact, packs, env, setExit);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

async function report(
  flags: PactFlags,
  defaults: { specs: string[]; packs: readonly Pack[] },
  pact: NonNullable<RunResults['pact']>,
  started: Date,
  target: RunResults['target'],
): Promise<number> {
  const [{ coverage, loadCatalog }, { exitCodeOf, summarise }, { consoleReporter, filesReporter, reportFinished }] = await Promise.all([
    import('../description/catalog.ts'),
    import('../report/outcomes.ts'),
    import('../report/reporter.ts'),
  ]);
  const contract = await loadContract(flags.spec.length ? flags.spec : defaults.specs);
  // The catalog counts only where it applies: the pack's, for the pack's contracts.
  const catalogFile = flags.catalog ?? fromPacks(packsFor(defaults.packs, contract.services), 'catalog');
  const catalog = catalogFile ? await loadCatalog(catalogFile) : undefined;
  const finished = new Date();
  const first = contract.services[0];
  const results = summarise({
    schemaVersion: 2,
    tool: toolIdentity(),
    contract: { title: first?.title ?? '', version: first?.version ?? '', files: contract.services.map((s) => s.file) },
    target,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationMs: finished.getTime() - started.getTime(),
    interrupted: false,
    failOn: 'error',
    seed: 1,
    coverage: coverage(catalog, contract, 0),
    operations: [],
    pact,
    expiredWaivers: [],
  });
  const failed = pact.interactions.filter((i) => i.outcome !== 'passed' && i.outcome !== 'skipped');
  const lines = [
    `Pact ${pact.mode}: ${pact.interactions.length} interactions, ${pact.interactions.length - failed.length} passed, ${failed.length} failed (${results.durationMs} ms)`,
    ...failed.map((i) => `  ${i.outcome.toUpperCase()} ${i.consumer} › ${i.description}: ${i.mismatches[0]?.message ?? ''}${i.mismatches[0]?.location ? ` (${i.mismatches[0].location})` : ''}`),
  ];
  // Quiet: the short lines; otherwise the summary, which leads with the same interactions.
  const shortLines: Reporter = { finished: () => void process.stdout.write(`${lines.join('\n')}\n`) };
  await reportFinished([filesReporter(flags.out), flags.quiet ? shortLines : consoleReporter({ stdout: process.stdout, stderr: process.stderr })], results);
  // One verdict everywhere: a failed interaction is exit 1, an errored one (tool or network) exit 2.
  return exitCodeOf(results.verdict);
}

function serverArgument(value: string, previous: Record<string, string>): Record<string, string> {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError('--server takes <provider>=<url>');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

