/**
 * The consumers of a comparison: their pacts (local sources, and the Pact Broker's latest pact of each consumer of
 * the revision's services) checked against the revision as `pact check` does, and against the base, so that an
 * interaction the revision no longer satisfies is told apart from one the base already failed.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SchemaValidator } from '../checks/schema.ts';
import { loadContract } from '../description/load.ts';
import { type BrokerConnection, BrokerError, downloadLatestPacts, probeBroker } from '../pact/broker.ts';
import { checkInteraction } from '../pact/check.ts';
import { type LoadedPact, readPactSources } from '../pact/sources.ts';
import type { Compatibility, ConsumerPactCheck } from './types.ts';

/** The pact check joins the comparison: an interaction the revision no longer satisfies makes the release breaking. */
export function attach(compat: Compatibility, check: ConsumerPactCheck): void {
  compat.pacts = check;
  if (check.broken > 0) compat.breaking = true;
}

/** The Broker named by flags, else by the environment the pact commands read (PACT_BROKER_BASE_URL, …). */
export function brokerFrom(flags: { brokerUrl?: string; brokerToken?: string; brokerUsername?: string; brokerPassword?: string }, env: NodeJS.ProcessEnv): BrokerConnection | undefined {
  const url = flags.brokerUrl ?? env['PACT_BROKER_BASE_URL'];
  if (!url) return undefined;
  const token = flags.brokerToken ?? env['PACT_BROKER_TOKEN'];
  const username = flags.brokerUsername ?? env['PACT_BROKER_USERNAME'];
  const password = flags.brokerPassword ?? env['PACT_BROKER_PASSWORD'];
  return { url, ...(token ? { token } : {}), ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** A URL as reports may show it: without the user and password it may carry. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** The latest pact of each consumer of these providers at the Broker; each located by its URL at the Broker. */
export async function brokerLatestPacts(broker: BrokerConnection, providers: readonly string[]): Promise<LoadedPact[]> {
  try {
    return await latestPacts(broker, providers);
  } catch (error) {
    // A user and password written into the URL stay out of the message.
    if (error instanceof BrokerError) throw new BrokerError(error.message.split(broker.url).join(shownUrl(broker.url)));
    throw error;
  }
}

async function latestPacts(broker: BrokerConnection, providers: readonly string[]): Promise<LoadedPact[]> {
  const cause = await probeBroker(broker);
  if (cause) throw new BrokerError(`the consumers' latest pacts: ${cause}`);
  const dir = await mkdtemp(join(tmpdir(), 'conformance-broker-pacts-'));
  try {
    const out: LoadedPact[] = [];
    for (const [n, provider] of [...new Set(providers)].entries()) {
      const into = join(dir, String(n));
      await downloadLatestPacts(broker, provider, into);
      const files = await readdir(into).catch(() => [] as string[]);
      if (files.length === 0) continue;
      for (const pact of await readPactSources([into])) {
        const self = ((JSON.parse(await readFile(pact.location, 'utf8')) as { _links?: { self?: { href?: unknown } } })._links?.self?.href);
        out.push({ ...pact, kind: 'url', location: shownUrl(typeof self === 'string' ? self : `${broker.url} (latest pact of ${pact.pact.consumer})`) });
      }
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every HTTP interaction held to the revision (and, where it fails, to the base). */
export async function checkConsumerPacts(pacts: readonly LoadedPact[], bases: readonly string[], revisions: readonly string[], sources: string[]): Promise<ConsumerPactCheck> {
  const [revision, base] = await Promise.all([loadContract([...revisions]), loadContract([...new Set(bases)])]);
  const validator = new SchemaValidator();
  const failures: ConsumerPactCheck['failures'] = [];
  let checked = 0;
  for (const { location, pact } of pacts) {
    for (const interaction of pact.interactions) {
      checked++;
      const now = checkInteraction(pact, location, interaction, revision, validator);
      if (now.mismatches.length === 0) continue;
      const before = checkInteraction(pact, location, interaction, base, validator);
      failures.push({
        consumer: pact.consumer,
        provider: pact.provider,
        pact: location,
        interaction: interaction.description,
        request: `${interaction.request.method.toUpperCase()} ${interaction.request.path}`,
        ...(now.operationId ? { operationId: now.operationId } : {}),
        alreadyFailing: before.mismatches.length > 0,
        mismatches: now.mismatches,
      });
    }
  }
  return {
    sources,
    consumers: [...new Set(pacts.map((p) => p.pact.consumer))].sort(),
    checked,
    broken: failures.filter((f) => !f.alreadyFailing).length,
    failures,
  };
}
