/**
 * A pack: what is special to one service (or a family of services) and not to the engine. The engine is generic
 * over any OpenAPI description; a pack adds, for its own contracts only, the defaults a user of that service
 * would otherwise pass by hand: its contract files, platform profile, request examples, operation catalog,
 * waivers, consumer pacts and their provider states, scenario suites, a reference deployment to run against,
 * and command-line conveniences naming its services.
 *
 * A pack applies to a run when the run's contract holds one of its services (by service id: the description's
 * `x-service-id`, else the id derived from its title). Nothing of a pack shows in a run it does not apply to.
 * Paths are absolute. The packs the CLI knows are listed in src/packs/index.ts; `--pack <module>` adds one
 * (a module whose default export is a Pack).
 */
import { InputError } from './description/errors.ts';
import type { GoneAnswer, ProviderStates } from './pact/states.ts';

export interface PackReference {
  /** Base URL per service id. */
  baseUrls: Record<string, string>;
  /** URL template with {transactionId} answering a one-time password, when the deployment has one. */
  otpSourceUrl?: string;
  /** The deployment's own provider-state change endpoint for a provider, when it serves one. */
  stateChangeUrl?: (provider: string) => string;
  close(): Promise<void>;
}

export interface Pack {
  /** Short name, e.g. in `conformance --help`. */
  name: string;
  /** One line saying what the pack is for. */
  title: string;
  /** Service ids of the pack's contracts: the pack applies to a run whose contract holds any of them. */
  services: string[];
  /** The service `--base-url` names when the contract has several (else the contract's only service). */
  primaryService?: string;
  /** The contract files run when no --spec is given. */
  contracts?: string[];
  profile?: string;
  examples?: string;
  catalog?: string;
  waivers?: string;
  /** Directory of the pack's consumer pacts. */
  pacts?: string;
  /** Scenario suites (vitest test files): their root and globs relative to it. */
  suites?: { root: string; include: string[]; exclude?: string[] };
  /** Options naming one service's base URL, e.g. { flag: '--orders-base-url', service: 'orders' }. */
  baseUrlOptions?: Array<{ flag: string; service: string; description: string }>;
  /** Pact provider states per provider name (the pact's provider.name, a service id); loaded when pacts are verified. */
  providerStates?: () => Promise<ProviderStates>;
  /** Answers to a DELETE that mean the record was already gone, besides 404 and 410. */
  goneAnswers?: GoneAnswer[];
  /** Fields of the OTP source's JSON answer that may hold the one-time password, in order. */
  otpFields?: string[];
  /** Starts the pack's reference deployment on 127.0.0.1 (the default target when no base URL is given). */
  startReference?: (options: { token: string }) => Promise<PackReference>;
}

/** The packs that apply to a contract's services. */
export function packsFor(packs: readonly Pack[], services: ReadonlyArray<{ id: string }>): Pack[] {
  return packs.filter((p) => services.some((s) => p.services.includes(s.id)));
}

/** The default contract files of the packs (the run's contract when no --spec is given). */
export function defaultContracts(packs: readonly Pack[]): string[] {
  return chosenPacks(packs).flatMap((p) => p.contracts ?? []);
}

/** Packs named on the command line (`--pack`): their contracts and pacts are the defaults, not the installed ones'. */
const NAMED = new WeakSet<Pack>();

/** The packs whose contracts and pacts a command uses when none is given: those named with --pack, else all. */
export function chosenPacks(packs: readonly Pack[]): readonly Pack[] {
  const named = packs.filter((p) => NAMED.has(p));
  return named.length > 0 ? named : packs;
}

/** The first value a pack that applies gives for a key. */
export function fromPacks<K extends keyof Pack>(packs: readonly Pack[], key: K): Pack[K] | undefined {
  for (const p of packs) if (p[key] !== undefined) return p[key];
  return undefined;
}

/** The option that names each service's base URL. */
export function baseUrlOptionOf(packs: readonly Pack[], serviceId: string, primary: string | undefined): string {
  if (serviceId === primary) return '--base-url';
  for (const p of packs) for (const o of p.baseUrlOptions ?? []) if (o.service === serviceId) return o.flag;
  return `--server ${serviceId}`;
}

/** Loads `--pack` modules: each default-exports a Pack (or a list of them). */
export async function loadPackModules(specifiers: readonly string[]): Promise<Pack[]> {
  const { pathToFileURL } = await import('node:url');
  const { resolve } = await import('node:path');
  const { existsSync } = await import('node:fs');
  const loaded: Pack[] = [];
  for (const specifier of specifiers) {
    let module: { default?: unknown };
    try {
      // A file (relative to the working directory) when one is there, else a package name.
      const file = /^[./]|^[A-Za-z]:/.test(specifier) || existsSync(resolve(specifier));
      module = (await import(file ? pathToFileURL(resolve(specifier)).href : specifier)) as { default?: unknown };
    } catch (error) {
      throw new PackError(`--pack ${specifier}: cannot be loaded (${(error as Error).message.split('\n')[0]})`);
    }
    const value = module.default;
    const list = Array.isArray(value) ? value : [value];
    for (const p of list) {
      if (!p || typeof p !== 'object' || typeof (p as Pack).name !== 'string' || !Array.isArray((p as Pack).services)) {
        throw new PackError(`--pack ${specifier}: its default export is not a pack (an object with name and services)`);
      }
      loaded.push(p as Pack);
      NAMED.add(p as Pack);
    }
  }
  return loaded;
}

export class PackError extends InputError {
  override readonly name = 'PackError';
}
