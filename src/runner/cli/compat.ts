/**
 * `conformance compat`: what a revision of the contract changes for the clients of the base (the last release's
 * contract). Exit 0: nothing breaking; 1: a breaking change (or a warning with --fail-on warning, or an expired
 * ignore entry); 2: could not run. Writes compatibility.json and compatibility-junit.xml to --out.
 */
import type { Command } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chosenPacks, defaultContracts, type Pack } from '../pack.ts';
import { InputError } from '../description/errors.ts';

interface CompatFlags {
  base: string;
  spec?: string[];
  out: string;
  failOn?: string;
  ignore?: string;
  baseline?: string;
  pact?: string[];
  info?: boolean;
  brokerUrl?: string;
  brokerToken?: string;
  brokerUsername?: string;
  brokerPassword?: string;
}

const collect = (v: string, acc: string[] = []) => [...acc, ...v.split(',').filter(Boolean)];

export function addCompatCommand(program: Command, packs: readonly Pack[], setExit: (code: number) => void, env: NodeJS.ProcessEnv = process.env): void {
  program
    .command('compat')
    .description('Compare the contract (the revision) with an earlier version (the base): every change with its rule, level and operation; exit 1 on a breaking change.')
    .requiredOption('--base <file|url|git-ref:ref:path|label>', "the base contract: a file, a URL, git-ref:<ref>:<path>, or a pack's published version label")
    .option('--spec <revision>', "the revision (default: the pack's contract) (repeatable)", collect)
    .option('--out <dir>', 'report directory (compatibility.json, compatibility-junit.xml)', 'reports')
    .option('--fail-on <level>', 'also fail on warnings: warning', 'breaking')
    .option('--ignore <file>', 'known changes accepted until a date (YAML: fingerprint or rule and operation, reason, expires)')
    .option('--baseline <results.json>', 'an earlier comparison: only changes not in it fail')
    .option('--pact <files>', 'consumer pacts (files, directories or URLs): each breaking change names the consumers it touches', collect)
    .option('--broker-url <url>', "Pact Broker whose latest pact of each consumer of the revision's services is checked too (or PACT_BROKER_BASE_URL)")
    .option('--broker-token <token>', 'Pact Broker token (or PACT_BROKER_TOKEN)')
    .option('--broker-username <name>', 'Pact Broker basic-auth user (or PACT_BROKER_USERNAME)')
    .option('--broker-password <password>', 'Pact Broker basic-auth password (or PACT_BROKER_PASSWORD)')
    .option('--info', 'also list the changes that break nothing')
    .action(async (flags: CompatFlags) => {
      setExit(await compatCommand(flags, packs, env));
    });
}

export async function compatCommand(flags: CompatFlags, packs: readonly Pack[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (flags.failOn !== 'breaking' && flags.failOn !== 'warning') throw new InputError(`--fail-on ${flags.failOn}: expected breaking or warning`);
  const revisions = flags.spec && flags.spec.length > 0 ? flags.spec : defaultContracts(packs);
  if (revisions.length === 0) throw new InputError('compat: no revision: pass --spec <file>');
  const [{ resolveBase }, { compareContracts, compatJunit, compatLines, gateExitCode }] = await Promise.all([import('../compat/sources.ts'), import('../compat/gate.ts')]);
  const bases = await resolveBase(flags.base, revisions, chosenPacks(packs).flatMap((p) => p.contracts ?? []));
  const consumers = await consumerPacts(flags.pact ?? [], flags, env, revisions);
  const compat = await compareContracts({
    bases,
    revisions,
    ...(flags.ignore ? { ignoreFile: flags.ignore } : {}),
    ...(flags.baseline ? { baseline: flags.baseline } : {}),
    ...(consumers ? { pacts: consumers.named } : {}),
  });
  if (consumers) (await import('../compat/consumers.ts')).attach(compat, await (await import('../compat/consumers.ts')).checkConsumerPacts(consumers.loaded, bases, revisions, consumers.sources));
  await mkdir(flags.out, { recursive: true });
  await writeFile(join(flags.out, 'compatibility.json'), `${JSON.stringify({ compatibility: compat }, null, 2)}\n`);
  await writeFile(join(flags.out, 'compatibility-junit.xml'), `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="compatibility">${compatJunit(compat)}</testsuites>\n`);
  for (const line of compatLines(compat, flags.info)) process.stdout.write(`${line}\n`);
  return gateExitCode(compat, flags.failOn);
}

type BrokerFlags = Pick<CompatFlags, 'brokerUrl' | 'brokerToken' | 'brokerUsername' | 'brokerPassword'>;

/** The consumers' pacts: the sources given, and the Broker's latest pact of each consumer of the revision's services. */
async function consumerPacts(sources: string[], flags: BrokerFlags, env: NodeJS.ProcessEnv, revisions: readonly string[]) {
  const [{ readPactSources }, { brokerFrom, brokerLatestPacts, shownUrl }] = await Promise.all([import('../pact/sources.ts'), import('../compat/consumers.ts')]);
  const broker = brokerFrom(flags, env);
  if (sources.length === 0 && !broker) return undefined;
  const loaded = await readPactSources(sources);
  if (broker) {
    const { loadContract } = await import('../description/load.ts');
    const providers = (await loadContract([...revisions])).services.map((s) => s.id);
    loaded.push(...(await brokerLatestPacts(broker, providers)));
  }
  const named = loaded.map((p) => ({ consumer: p.pact.consumer, interactions: p.pact.interactions.map((i) => i.request) }));
  return { loaded, named, sources: [...sources, ...(broker ? [`${shownUrl(broker.url)} (latest pact of each consumer)`] : [])] };
}

/**
 * `run --base-contract`: the comparison of the run's contract with the base, its breaking changes proven against
 * the run's deployment by a run of the base contract's cases for the operations they touch (reports of that run
 * go to a directory of their own under --out, `base-contract/`).
 */
export async function compatForRun(
  base: string,
  options: import('../stages/types.ts').RunOptions,
  packs: readonly Pack[],
  runConformance: (o: import('../stages/types.ts').RunOptions) => Promise<import('../stages/types.ts').RunOutcome>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<import('../compat/types.ts').Compatibility> {
  const [{ resolveBase }, { compareContracts }, { proveChanges }] = await Promise.all([import('../compat/sources.ts'), import('../compat/gate.ts'), import('../compat/prove.ts')]);
  const bases = await resolveBase(base, options.specs, chosenPacks(packs).flatMap((p) => p.contracts ?? []));
  // The consumers named on the changes: the pacts of the packs whose contract is compared (local files).
  const { resolve } = await import('node:path');
  const compared = new Set([...bases, ...options.specs].map((f) => resolve(f)));
  // With a Pact Broker in the environment (PACT_BROKER_BASE_URL, …), also the latest pact of each consumer.
  const pactDirs = chosenPacks(packs).flatMap((p) => (p.pacts && (p.contracts ?? []).some((c) => compared.has(resolve(c))) ? [p.pacts] : []));
  const consumers = await consumerPacts(pactDirs, {}, env, options.specs);
  const compat = await compareContracts({ bases, revisions: options.specs, ...(consumers ? { pacts: consumers.named } : {}) });
  if (consumers) (await import('../compat/consumers.ts')).attach(compat, await (await import('../compat/consumers.ts')).checkConsumerPacts(consumers.loaded, bases, options.specs, consumers.sources));
  const where = options.baseUrl ?? (Object.values(options.servers)[0] || 'the embedded reference deployment');
  await proveChanges(
    compat,
    async (operations) => {
      // Each operation by its path (a parameter as a one-segment glob, whatever the base names it).
      const include = [...new Set(operations.map((o) => o.slice(o.indexOf(' ') + 1).replace(/\{[^}]*\}/g, '*')))];
      const { exclude: _e, baseline: _b, shard: _s, maxFailures: _m, suites: _u, ...rest } = options;
      // The revision's other services stay in the contract (their deployments are the run's targets too).
      const { pairs } = await import('../compat/gate.ts');
      const paired = new Set((await pairs(bases, options.specs)).map(([, r]) => r.source));
      const others = options.specs.filter((s) => ![...paired].some((p) => p.endsWith(s.replace(/^\.\//, ''))));
      const outcome = await runConformance({ ...rest, specs: [...new Set(bases), ...others], include, exclude: [], out: join(options.out, 'base-contract'), reporters: [], quiet: true });
      return outcome.results;
    },
    where,
  );
  return compat;
}
