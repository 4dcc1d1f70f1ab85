import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { RunResults } from '../model.ts';
import type { BrokerSource } from '../pact/worker-protocol.ts';
import { InputError } from '../description/errors.ts';
import { baseUrlArgument } from './base-url.ts';
import type { ReferenceService } from '../../reference-service/index.ts';
import { addPactWorkflowCommands } from './pact-workflow.ts';

// The implementations load when a command runs: `--help` and the other commands never load them.
const loadContract = async (specs: string[]) => (await import('../description/load.ts')).loadContract(specs);

interface PactFlags {
  pacts: string[];
  allowNoPacts?: boolean;
  spec: string[];
  catalog: string;
  out: string;
  quiet?: boolean;
  baseUrl?: string;
  foreignTradeBaseUrl?: string;
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
export function addPactCommands(program: Command, defaults: { specs: string[]; catalog: string }, env: NodeJS.ProcessEnv, setExit: (code: number) => void): void {
  const pact = program.command('pact').description('Consumer-driven contracts (Pact).');
  const common = (cmd: Command) =>
    cmd
      .option('--pacts <dir|file|url>', 'pact sources (repeatable; default contract/pacts)', collect, [])
      .option('--allow-no-pacts', 'finding no pact is not an error')
      .option('--spec <file|url>', 'OpenAPI descriptions (repeatable; default contract/*.openapi.yaml)', collect, [])
      .option('--catalog <file>', 'operation catalog', defaults.catalog)
      .option('--out <dir>', 'report directory', 'reports')
      .option('--quiet', 'print only the summary');

  common(pact.command('check').description('Check every pact interaction against the OpenAPI contract (no deployment needed).')).action(
    async (flags: PactFlags) => {
      const contract = await loadContract(flags.spec.length ? flags.spec : defaults.specs);
      const started = new Date();
      const { checkPacts } = await import('../pact/check.ts');
      const result = await checkPacts({ contract, ...(flags.pacts.length ? { pacts: flags.pacts } : {}), allowNoPacts: flags.allowNoPacts ?? false });
      setExit(await report(flags, defaults, { mode: 'check', interactions: result.interactions }, started, { embedded: false, services: [] }));
    },
  );

  common(pact.command('verify').description('Verify every pact against a provider deployment (default: the embedded reference service).'))
    .option('--base-url <url>', 'customer-service base URL', baseUrlArgument)
    .option('--foreign-trade-base-url <url>', 'foreign-trade-service base URL', baseUrlArgument)
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
    .option('--allow-irreversible', 'needed against a deployment: pacts replay calls that cannot be undone (OTP, reference numbers)')
    .option('--state-change-url <url>', 'provider-state change endpoint to use (default: the reference service\'s, or one started for the run)')
    .action(async (flags: PactFlags & { allowIrreversible?: boolean }) => {
      let embedded: ReferenceService | undefined;
      let statesRoute = '';
      let token = flags.token ?? env['CONFORMANCE_TOKEN'];
      let customerBaseUrl = flags.baseUrl;
      let foreignTradeBaseUrl = flags.foreignTradeBaseUrl;
      if (!customerBaseUrl && !foreignTradeBaseUrl) {
        token = randomBytes(24).toString('base64url');
        const reference = await import('../../reference-service/index.ts');
        embedded = await reference.startReferenceService({ token });
        statesRoute = reference.PACT_STATES_ROUTE;
        customerBaseUrl = embedded.customerBaseUrl;
        foreignTradeBaseUrl = embedded.foreignTradeBaseUrl;
      }
      try {
        if (!customerBaseUrl || !foreignTradeBaseUrl) throw new InputError('pact verify needs both --base-url and --foreign-trade-base-url (or neither, for the embedded reference service)');
        if (!token) throw new InputError('no bearer token: set CONFORMANCE_TOKEN (or pass --token)');
        if (!embedded && !flags.allowIrreversible) {
          throw new InputError('pact verify replays consumer calls that cannot be undone (sending an OTP, generating reference numbers): pass --allow-irreversible to run them against this deployment');
        }
        const contract = await loadContract(flags.spec.length ? flags.spec : defaults.specs);
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
          customerBaseUrl,
          foreignTradeBaseUrl,
          token,
          allowNoPacts: flags.allowNoPacts ?? false,
          timeoutMs: flags.timeout,
          contract,
          ...(broker ? { broker } : {}),
          ...(flags.stateChangeUrl
            ? { stateChangeUrl: flags.stateChangeUrl }
            : embedded
              ? { stateChangeUrl: (provider: string) => `${embedded?.url ?? ''}${statesRoute}/${encodeURIComponent(provider)}` }
              : {}),
        });
        for (const warning of result.warnings) process.stderr.write(`conformance: warning: ${warning}\n`);
        const target = {
          embedded: embedded !== undefined,
          services: [
            { id: 'customer-service', baseUrl: customerBaseUrl },
            { id: 'foreign-trade-service', baseUrl: foreignTradeBaseUrl },
          ],
        };
        setExit(await report(flags, defaults, { mode: 'verify', interactions: result.interactions }, started, target));
      } finally {
        await embedded?.close();
      }
    });

  addPactWorkflowCommands(pact, env, setExit);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: value } as Record<K, string>) : {};
}

async function report(
  flags: PactFlags,
  defaults: { specs: string[]; catalog: string },
  pact: NonNullable<RunResults['pact']>,
  started: Date,
  target: RunResults['target'],
): Promise<number> {
  const [{ coverage, loadCatalog }, { exitCodeOf, summarise }, { writeReports }, { isInteractive, renderSummary }] = await Promise.all([
    import('../description/catalog.ts'),
    import('../report/outcomes.ts'),
    import('../report/write.ts'),
    import('../report/console.ts'),
  ]);
  const contract = await loadContract(flags.spec.length ? flags.spec : defaults.specs);
  const catalog = await loadCatalog(flags.catalog);
  const finished = new Date();
  const first = contract.services[0];
  const results = summarise({
    schemaVersion: 2,
    tool: { name: 'customer-service-conformance', version: '0.1.0' },
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
  const files = await writeReports(results, flags.out);
  const failed = pact.interactions.filter((i) => i.outcome !== 'passed' && i.outcome !== 'skipped');
  const lines = [
    `Pact ${pact.mode}: ${pact.interactions.length} interactions, ${pact.interactions.length - failed.length} passed, ${failed.length} failed (${results.durationMs} ms)`,
    ...failed.map((i) => `  ${i.outcome.toUpperCase()} ${i.consumer} › ${i.description}: ${i.mismatches[0]?.message ?? ''}${i.mismatches[0]?.location ? ` (${i.mismatches[0].location})` : ''}`),
  ];
  // Quiet: the short lines; otherwise the summary, which leads with the same interactions.
  if (flags.quiet) process.stdout.write(`${lines.join('\n')}\n`);
  else process.stdout.write(`${renderSummary(results, files, { color: isInteractive(process.stdout) })}\n`);
  // One verdict everywhere: a failed interaction is exit 1, an errored one (tool or network) exit 2.
  return exitCodeOf(results.verdict);
}
