/**
 * Stage 3, targets and credentials: the base URL of every service the selection touches (or the pack's reference
 * deployment), the selection itself, and the credentials it needs, said before the network is waited on; then the
 * reachability probes' answers.
 */
import { InputError } from '../description/errors.ts';
import type { Profile } from '../description/profile.ts';
import { profileFor, type Profiles } from '../description/profiles.ts';
import { matchesSelector, selectOperations } from '../execute/select.ts';
import type { AuthScheme, Contract, Operation } from '../model.ts';
import { baseUrlOptionOf, type Pack } from '../pack.ts';
import { DEFAULT_IDENTITY, type Identity } from '../execute/identities.ts';
import { obtainCredential, type ObtainedCredential } from './auth-from.ts';
import type { Inputs } from './inputs.ts';
import type { LocalInputs } from './local-inputs.ts';
import type { RunNetwork } from './network.ts';
import type { RunOptions } from './types.ts';

export interface Targets {
  /** Base URL per service id. */
  servers: Record<string, string>;
  token: string | undefined;
  /** Credentials by security scheme name (--auth). */
  schemeAuth: Record<string, string>;
  otpSourceUrl: string | undefined;
  allowIrreversible: boolean;
  /** The operations the run tests (--include, --exclude, --shard). */
  selected: Operation[];
  /** The identities with the tokens --auth-from (or an identity's `from`) obtained. */
  identities?: Identity[];
  /** Where the run's own token was answered (--auth-from): a write's answer there renews it; and what reports must not show. */
  obtained?: { path?: string[]; secrets: string[] };
}

export async function resolveTargets(options: RunOptions, inputs: Inputs, local: LocalInputs, network: RunNetwork): Promise<Targets> {
  const { contract, applying, profiles } = local;
  let token = options.token;
  const primary = primaryService(contract, applying);
  let servers = withBaseUrl(options.servers, options.baseUrl, primary);
  let otpSourceUrl = options.otpSourceUrl;
  let allowIrreversible = options.allowIrreversible;
  const reference = network.owner ?? applying.find((p) => p.startReference);
  if (!inputs.given && !reference) {
    throw new InputError('no base URL: pass --base-url <url> (or --server <id>=<url>); no reference deployment serves this contract');
  }
  if (!inputs.given) {
    const embedded = await network.reference(reference!);
    token = network.embeddedToken;
    servers = { ...embedded.baseUrls };
    if (embedded.otpSourceUrl) otpSourceUrl ??= embedded.otpSourceUrl;
    allowIrreversible = true;
  }
  const schemeAuth = inputs.given ? (options.auth ?? {}) : {};
  const unknownSchemes = Object.keys(schemeAuth).filter((name) => !contract.operations.some((o) => (o.auth ?? []).some((s) => s.name === name)));
  if (unknownSchemes.length > 0) {
    const known = [...new Set(contract.operations.flatMap((o) => (o.auth ?? []).map((s) => s.name)))];
    throw new InputError(`--auth names no security scheme the contract's operations use: ${unknownSchemes.join(', ')} (${known.length > 0 ? `schemes: ${known.join(', ')}` : 'they declare none the tool can send'})`);
  }
  // Only the services the selection touches need a base URL (--include <service> runs alone).
  const needed = contract.services.filter((s) =>
    contract.operations.some(
      (o) =>
        o.service === s.id &&
        (options.include.length === 0 || options.include.some((p) => matchesSelector(o, p))) &&
        !options.exclude.some((p) => matchesSelector(o, p)),
    ),
  );
  for (const service of needed) {
    if (!servers[service.id]) {
      const named = baseUrlOptionOf(applying, service.id, undefined);
      throw new InputError(`no base URL for service "${service.id}": pass --server ${service.id}=<url>${named.startsWith('--server') ? '' : ` (or ${named})`}${service.id === primary ? ' (or --base-url)' : ''}`);
    }
  }
  const unknown = Object.keys(servers).filter((id) => !contract.services.some((s) => s.id === id));
  if (unknown.length > 0) throw new InputError(`--server names no service of the contract: ${unknown.join(', ')}`);
  const selected = selectOperations(contract.operations, { include: options.include, exclude: options.exclude, ...(options.shard ? { shard: options.shard } : {}) });
  const fromApi = inputs.given ? await network.early(credentialsFromApi(options, contract.operations, servers, network)) : undefined;
  if (fromApi?.own) token = fromApi.own.token;
  if (!token && network.fromCommand && selected.some((op) => wantsToken(op, profileFor(profiles, op.service), schemeAuth))) token = await network.early(network.fromCommand);
  const missingCredential = token ? undefined : credentialMissing(selected, profiles, schemeAuth);
  if (missingCredential) throw new InputError(missingCredential);
  await network.early(Promise.all(needed.map((s) => network.probes.result(servers[s.id]!))));
  return {
    servers, token, schemeAuth, otpSourceUrl, allowIrreversible, selected,
    ...(fromApi?.identities ? { identities: fromApi.identities } : {}),
    ...(fromApi && (fromApi.own || fromApi.secrets.length > 0) ? { obtained: { ...(fromApi.own?.path ? { path: fromApi.own.path } : {}), secrets: fromApi.secrets } } : {}),
  };
}

/**
 * The tokens the API answers (--auth-from, an identity's `from`): each operation called once, in turn; undefined
 * when none is asked for.
 */
async function credentialsFromApi(
  options: RunOptions,
  operations: readonly Operation[],
  baseUrls: Record<string, string>,
  network: RunNetwork,
): Promise<{ own?: ObtainedCredential; identities?: Identity[]; secrets: string[] } | undefined> {
  const asked = (options.identities ?? []).filter((i) => i.from !== undefined);
  if (!options.authFrom && asked.length === 0) return undefined;
  const context = { operations, baseUrls, dispatcher: network.dispatcher, headers: network.probeHeaders(), timeoutMs: options.timeoutMs };
  const ownSource = options.authFrom ?? asked.find((i) => i.name === DEFAULT_IDENTITY);
  const own = ownSource ? await obtainCredential({ operation: 'operation' in ownSource ? ownSource.operation : ownSource.from!, ...(ownSource.body !== undefined ? { body: ownSource.body } : {}) }, { ...context, option: '--auth-from' }) : undefined;
  const secrets = [...(own?.secrets ?? [])];
  const identities: Identity[] = [];
  for (const identity of options.identities ?? []) {
    if (identity.from === undefined || identity.name === DEFAULT_IDENTITY) {
      identities.push(identity);
      continue;
    }
    const got = await obtainCredential({ operation: identity.from, ...(identity.body !== undefined ? { body: identity.body } : {}) }, { ...context, option: `identity ${identity.name}: from` });
    secrets.push(...got.secrets);
    identities.push({ ...identity, token: got.token });
  }
  return { ...(own ? { own } : {}), ...(options.identities ? { identities } : {}), secrets };
}

/** The service `--base-url` names: the contract's only one, else the applying pack's primary one, else the first. */
export function primaryService(contract: Pick<Contract, 'services'>, applying: readonly Pack[]): string | undefined {
  if (contract.services.length === 1) return contract.services[0]?.id;
  const declared = applying.map((p) => p.primaryService).find((id) => id !== undefined && contract.services.some((s) => s.id === id));
  return declared ?? contract.services[0]?.id;
}

/** The base URLs per service with `--base-url` given to the primary service (an explicit --server wins). */
export function withBaseUrl(servers: Record<string, string>, baseUrl: string | undefined, primary: string | undefined): Record<string, string> {
  if (baseUrl === undefined || primary === undefined || servers[primary] !== undefined) return servers;
  return { ...servers, [primary]: baseUrl };
}

/** True when the operation may be sent the run's token: it declares a scheme without a credential of its own, or takes the profile's header. */
function wantsToken(op: Operation, profile: Profile, schemeAuth: Record<string, string>): boolean {
  if (op.auth && op.auth.length > 0) return op.auth.some((s) => schemeAuth[s.name] === undefined);
  return op.credentialed !== false || profile.auth.everyOperation === true;
}

/**
 * Without a token: the first credential a selected operation cannot do without, said as the one-line error that
 * names how to give it; undefined when none is missing (no operation requires credentials, or --auth gives them).
 */
function credentialMissing(selected: Operation[], profiles: Profiles, schemeAuth: Record<string, string>): string | undefined {
  const missing = new Map<string, { scheme?: AuthScheme; count: number }>();
  for (const op of selected) {
    const profile = profileFor(profiles, op.service);
    if (!op.secured && !profile.auth.everyOperation) continue;
    if (op.auth && op.auth.length > 0) {
      for (const scheme of op.auth) {
        if (schemeAuth[scheme.name] !== undefined) continue;
        const entry = missing.get(scheme.name) ?? { scheme, count: 0 };
        entry.count++;
        missing.set(scheme.name, entry);
      }
    } else {
      const entry = missing.get('') ?? { count: 0 };
      entry.count++;
      missing.set('', entry);
    }
  }
  const [name, first] = [...missing.entries()].find(([, e]) => e.scheme === undefined || e.scheme.kind === 'bearer') ?? [...missing.entries()][0] ?? [];
  if (!first) return undefined;
  const token = 'no bearer token: set CONFORMANCE_TOKEN (or pass --token or --token-command)';
  if (!first.scheme || first.scheme.kind === 'bearer') return missing.size === 1 || !first.scheme ? token : `${token}; or --auth ${name}=<token>`;
  const s = first.scheme;
  const where = s.kind === 'apiKey' ? `apiKey in ${s.in} ${s.parameter}` : s.kind;
  const value = s.kind === 'basic' ? '<user>:<password>' : '<value>';
  return `no credentials for security scheme "${name}" (${where}), which ${first.count} selected operation${first.count === 1 ? '' : 's'} require${first.count === 1 ? 's' : ''}: pass --auth ${name}=${value} (or set CONFORMANCE_AUTH="${name}=${value}"; CONFORMANCE_TOKEN serves every scheme without one)`;
}
