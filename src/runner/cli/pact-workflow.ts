/**
 * `conformance pact states | publish | can-i-deploy | record-deployment`: the provider-state endpoint in
 * front of a deployment, and the Pact Broker workflow (through Pact's own broker client, see broker.ts).
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { BrokerConnection } from '../pact/broker.ts';
import { PactInputError } from '../pact/errors.ts';
import type { ServiceApi } from '../pact/states.ts';
import { InputError } from '../description/errors.ts';
import { baseUrlArgument } from './base-url.ts';
import { chosenPacks, type Pack } from '../pack.ts';
import { addPackBaseUrlOptions, packBaseUrls } from './pack-options.ts';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

// The implementations load when a command runs: `--help` and the other commands never load them.
const broker = () => import('../pact/broker.ts');
const readPactSources = async (sources: string[]) => (await import('../pact/sources.ts')).readPactSources(sources);

interface BrokerFlags {
  brokerUrl?: string;
  brokerToken?: string;
  brokerUsername?: string;
  brokerPassword?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

function port(value: string): number {
  const n = Number(value);
  if (!/^\d{1,5}$/.test(value) || n > 65535) throw new InvalidArgumentError('--port takes 0..65535 (0: a free port)');
  return n;
}

function brokerOptions(cmd: Command): Command {
  return cmd
    .option('--broker-url <url>', 'Pact Broker base URL (or PACT_BROKER_BASE_URL)')
    .option('--broker-token <token>', 'Pact Broker token (or PACT_BROKER_TOKEN)')
    .option('--broker-username <name>', 'Pact Broker basic-auth user (or PACT_BROKER_USERNAME)')
    .option('--broker-password <password>', 'Pact Broker basic-auth password (or PACT_BROKER_PASSWORD)');
}

function connection(flags: BrokerFlags, env: NodeJS.ProcessEnv): BrokerConnection {
  const url = flags.brokerUrl ?? env['PACT_BROKER_BASE_URL'];
  if (!url) throw new InputError('no Pact Broker: pass --broker-url or set PACT_BROKER_BASE_URL');
  const token = flags.brokerToken ?? env['PACT_BROKER_TOKEN'];
  const username = flags.brokerUsername ?? env['PACT_BROKER_USERNAME'];
  const password = flags.brokerPassword ?? env['PACT_BROKER_PASSWORD'];
  return { url, ...(token ? { token } : {}), ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

export function addPactWorkflowCommands(pact: Command, packs: readonly Pack[], env: NodeJS.ProcessEnv, setExit: (code: number) => void): void {
  const defaultPacts = chosenPacks(packs).flatMap((p) => (p.pacts ? [p.pacts] : []));
  addPackBaseUrlOptions(pact
    .command('states')
    .description('Serve the provider-state change endpoint (Pact convention) in front of a deployment, for any Pact verifier.'), packs)
    .option('--port <n>', 'port to listen on (0: a free port)', port, 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--base-url <url>', "base URL of the pack's main provider", baseUrlArgument)
    .option('--server <id=url>', 'base URL of any provider (repeatable)', (value: string, previous: Record<string, string>) => {
      const at = value.indexOf('=');
      if (at < 1) throw new InvalidArgumentError('--server takes <provider>=<url>');
      return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
    }, {})
    .option('--token <token>', 'bearer token for the deployment (prefer CONFORMANCE_TOKEN)')
    .option('--timeout <ms>', 'timeout of each call to the deployment', (v) => Number(v), 30_000)
    .action(async (flags: { port: number; host: string; baseUrl?: string; server: Record<string, string>; token?: string; timeout: number } & Record<string, unknown>) => {
      const token = flags.token ?? env['CONFORMANCE_TOKEN'];
      const primary = packs.find((p) => p.primaryService)?.primaryService;
      const baseUrls: Record<string, string> = { ...packBaseUrls(flags, packs), ...flags.server };
      if (flags.baseUrl && primary) baseUrls[primary] ??= flags.baseUrl;
      if (Object.keys(baseUrls).length === 0) {
        throw new InputError(`pact states needs the providers' base URLs: --base-url${packs.flatMap((p) => p.baseUrlOptions ?? []).map((o) => `, ${o.flag}`).join('')} or --server <id>=<url>`);
      }
      if (!token) throw new InputError('no bearer token: set CONFORMANCE_TOKEN (or pass --token)');
      const [{ createServiceApi }, { startStateChangeServer }] = await Promise.all([import('../pact/states.ts'), import('../pact/state-endpoint.ts')]);
      const apis: Record<string, ServiceApi & { close(): Promise<void> }> = {};
      for (const [provider, url] of Object.entries(baseUrls)) apis[provider] = createServiceApi(url, token, flags.timeout);
      const states = Object.assign({}, ...(await Promise.all(packs.map(async (p) => (await p.providerStates?.()) ?? {}))));
      let server;
      try {
        server = await startStateChangeServer(apis, states, { port: flags.port, host: flags.host });
      } catch (error) {
        throw new InputError(`cannot listen on ${flags.host}:${flags.port}: ${(error as Error).message}`);
      }
      process.stdout.write(
        `provider-state change endpoint listening on ${server.url} (states of ${Object.keys(apis).join(' and ')}; POST {"state","params","action"})\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
      await Promise.all(Object.values(apis).map((api) => api.close()));
      setExit(0);
    });

  pact
    .command('convert')
    .description('Write pact files in Pact specification 3 for verifiers that read only V3 (fromProviderState injection kept).')
    .argument('[pacts...]', "pact files or directories (default: the packs' pacts)")
    .requiredOption('--out <dir>', 'directory to write the V3 pact files to')
    .action(async (sources: string[], flags: { out: string }) => {
      const loaded = await readPactSources(sources.length > 0 ? sources : defaultPacts);
      const files = loaded.filter((p) => p.kind === 'file');
      if (files.length === 0) throw new PactInputError(`no pact files in ${(sources.length > 0 ? sources : defaultPacts).join(', ') || '(none given)'}`);
      await mkdir(flags.out, { recursive: true });
      const { pactToV3 } = await import('../pact/spec-v3.ts');
      for (const file of files) {
        const v3 = pactToV3(JSON.parse(await readFile(file.location, 'utf8')), file.location);
        const target = path.join(flags.out, path.basename(file.location));
        if (path.resolve(target) === path.resolve(file.location)) throw new InputError(`--out ${flags.out} would overwrite ${file.location}`);
        await writeFile(target, `${JSON.stringify(v3, null, 2)}\n`);
        process.stdout.write(`${target}: ${file.pact.consumer} → ${file.pact.provider}, ${file.pact.interactions.length} interactions, Pact specification 3.0.0\n`);
      }
      setExit(0);
    });

  brokerOptions(
    pact
      .command('publish')
      .description('Publish consumer pacts to a Pact Broker.')
      .argument('[pacts...]', "pact files or directories (default: the packs' pacts)"),
  )
    .requiredOption('--consumer-app-version <version>', 'the consumer version the pacts belong to (e.g. the git SHA)')
    .option('--branch <branch>', 'the consumer version\'s branch')
    .option('--tag <tag>', 'consumer version tag (repeatable, comma-separated)', collect, [])
    .option('--build-url <url>', 'CI build that produced the pacts')
    .action(async (sources: string[], flags: BrokerFlags & { consumerAppVersion: string; branch?: string; tag: string[]; buildUrl?: string }) => {
      const target = connection(flags, env);
      const { publishPacts } = await broker();
      const loaded = await readPactSources(sources.length > 0 ? sources : defaultPacts);
      const files = loaded.filter((p) => p.kind === 'file').map((p) => p.location);
      if (files.length === 0) throw new PactInputError(`no pact files in ${(sources.length > 0 ? sources : defaultPacts).join(', ') || '(none given)'}`);
      await publishPacts({
        broker: target,
        files,
        consumerVersion: flags.consumerAppVersion,
        ...(flags.branch ? { branch: flags.branch } : {}),
        tags: flags.tag,
        ...(flags.buildUrl ? { buildUrl: flags.buildUrl } : {}),
      });
      const lines = loaded.map((p) => `  ${p.pact.consumer} → ${p.pact.provider}: ${p.pact.interactions.length} interactions (${p.location})`);
      process.stdout.write(
        `Published ${loaded.length} pact(s) as ${[...new Set(loaded.map((p) => p.pact.consumer))].join(', ')} version ${flags.consumerAppVersion}` +
          `${flags.branch ? ` on branch ${flags.branch}` : ''}${flags.tag.length ? ` tagged ${flags.tag.join(', ')}` : ''} to ${target.url}\n${lines.join('\n')}\n`,
      );
      setExit(0);
    });

  brokerOptions(pact.command('can-i-deploy').description('Ask the Pact Broker whether a version can be deployed (exit 0 yes, 1 no).'))
    .requiredOption('--pacticipant <name>', 'the application to deploy')
    .option('--pacticipant-version <version>', 'its version (default: its latest)')
    .option('--to-environment <env>', 'the environment to deploy to')
    .option('--retry-while-unknown <n>', 'poll while verification results are missing', (v) => Number(v))
    .option('--retry-interval <seconds>', 'seconds between polls', (v) => Number(v))
    .action(async (options: BrokerFlags & { pacticipant: string; pacticipantVersion?: string; toEnvironment?: string; retryWhileUnknown?: number; retryInterval?: number }) => {
      // `--version` belongs to the program (it prints the tool's version), hence --pacticipant-version.
      const flags = { ...options, version: options.pacticipantVersion };
      const { canIDeploy } = await broker();
      const answer = await canIDeploy({
        broker: connection(flags, env),
        pacticipant: flags.pacticipant,
        ...(flags.version ? { version: flags.version } : { latest: true }),
        ...(flags.toEnvironment ? { toEnvironment: flags.toEnvironment } : {}),
        ...(flags.retryWhileUnknown !== undefined ? { retryWhileUnknown: flags.retryWhileUnknown } : {}),
        ...(flags.retryInterval !== undefined ? { retryIntervalSeconds: flags.retryInterval } : {}),
      });
      const what = `${flags.pacticipant}${flags.version ? ` ${flags.version}` : ' (latest)'}${flags.toEnvironment ? ` to ${flags.toEnvironment}` : ''}`;
      const rows = answer.rows.map(
        (r) =>
          `  ${r.success === true ? 'verified  ' : r.success === false ? 'FAILED    ' : 'unverified'} ${r.consumer} ${r.consumerVersion} → ${r.provider} ${r.providerVersion || '(no verification)'}`,
      );
      process.stdout.write(`can-i-deploy ${what}: ${answer.deployable ? 'yes' : 'no'}: ${answer.reason}\n${rows.join('\n')}${rows.length ? '\n' : ''}`);
      setExit(answer.deployable ? 0 : 1);
    });

  brokerOptions(pact.command('record-deployment').description('Record in the Pact Broker that a version was deployed to an environment.'))
    .requiredOption('--pacticipant <name>', 'the application deployed')
    .requiredOption('--pacticipant-version <version>', 'its version')
    .requiredOption('--environment <env>', 'the environment it was deployed to')
    .option('--application-instance <name>', 'which instance, where several run in one environment')
    .action(async (options: BrokerFlags & { pacticipant: string; pacticipantVersion: string; environment: string; applicationInstance?: string }) => {
      const flags = { ...options, version: options.pacticipantVersion };
      const { recordDeployment } = await broker();
      await recordDeployment({
        broker: connection(flags, env),
        pacticipant: flags.pacticipant,
        version: flags.version,
        environment: flags.environment,
        ...(flags.applicationInstance ? { applicationInstance: flags.applicationInstance } : {}),
      });
      process.stdout.write(`Recorded the deployment of ${flags.pacticipant} ${flags.version} to ${flags.environment}\n`);
      setExit(0);
    });
}

