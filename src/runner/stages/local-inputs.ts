/**
 * Stage 2, the local inputs: the contract and what the packs and options add to it (profile, examples, catalog,
 * waivers, baseline, a deployment description on disk), each read and judged before any answer of the network is
 * looked at: a missing file, bad YAML, a Swagger 2.0 file or a dangling $ref is said as such whatever the network does.
 */
import { CHECKS } from '../checks/registry.ts';
import { loadCatalog, type Catalog } from '../description/catalog.ts';
import { InputError } from '../description/errors.ts';
import { loadExamples, type Examples } from '../description/examples.ts';
import { describe as describeApi, loadContract, loadDescription } from '../description/load.ts';
import { readAsLine } from '../description/versions.ts';
import { loadProfiles, type Profiles } from '../description/profiles.ts';
import { matchesSelector } from '../execute/select.ts';
import { sizeYoungGeneration } from '../young-generation.ts';
import type { Contract, RunResults } from '../model.ts';
import { fromPacks, packsFor, type Pack } from '../pack.ts';
import { loadWaivers, type Waiver } from '../report/waivers.ts';
import type { RunOptions } from './types.ts';

export interface LocalInputs {
  contract: Contract;
  /** The packs whose services the contract holds: nothing of another pack shows in the run. */
  applying: Pack[];
  profileFile: string;
  examplesFile: string | undefined;
  profiles: Profiles;
  examples: Examples;
  catalog: Catalog | undefined;
  waivers: Waiver[];
  baseline: RunResults | undefined;
  /** The deployment's own description compared with the contract, when it is a file (a URL is read later). */
  deploymentDiff: RunResults['deploymentDiff'];
}

export async function loadLocalInputs(options: RunOptions, notice: (line: string) => void): Promise<LocalInputs> {
  sizeYoungGeneration(options.specs);
  const contract = await loadContract(options.specs);
  // Said once: a description read otherwise than as it is written ("Swagger 2.0, read as OpenAPI 3.0").
  for (const service of contract.services) {
    const line = service.read ? readAsLine(service.read) : undefined;
    if (line) notice(`conformance: ${service.file}: ${line}`);
  }
  for (const warning of contract.services.flatMap((s) => s.warnings ?? [])) notice(`conformance: warning: ${warning}`);
  const applying = packsFor(options.packs ?? [], contract.services);
  const profileFile = options.profile ?? fromPacks(applying, 'profile') ?? 'generic';
  const examplesFile = options.examples ?? fromPacks(applying, 'examples');
  const catalogFile = options.catalog ?? fromPacks(applying, 'catalog');
  const waiversFile = options.waivers ?? fromPacks(applying, 'waivers');
  const profiles = await loadProfiles(profileFile, contract);
  const examples = await loadExamples(examplesFile);
  const catalog = catalogFile ? await loadCatalog(catalogFile) : undefined;
  const waivers = waiversFile ? await loadWaivers(waiversFile, { knownChecks: [...CHECKS.keys(), 'response-timeout'] }) : [];
  const baseline = options.baseline ? await (await import('../report/baseline-file.ts')).readBaseline(options.baseline) : undefined;
  const deploymentDiff = options.deploymentSpec && !/^https?:\/\//i.test(options.deploymentSpec) ? await diffDeployment(contract, options.deploymentSpec) : undefined;
  for (const pattern of [...options.include, ...options.exclude]) {
    if (!contract.operations.some((o) => matchesSelector(o, pattern))) {
      throw new InputError(`--include/--exclude "${pattern}" matches no operation of the contract (selectors: operationId, group, service, tag:NAME, method, path glob)`);
    }
  }
  return { contract, applying, profileFile, examplesFile, profiles, examples, catalog, waivers, baseline, deploymentDiff };
}

/** Operations the deployment's own description lists that the contract lacks (informational), and the reverse. */
export async function diffDeployment(contract: Contract, source: string): Promise<NonNullable<RunResults['deploymentDiff']>> {
  const { api } = await loadDescription(source);
  const { service, operations } = describeApi(api, source);
  // A deployment's description covers one service: compare it with that service's part of the contract.
  const sameService = contract.operations.filter((o) => o.service === service.id);
  const compared = sameService.length > 0 ? sameService : contract.operations;
  const key = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}/g, '{}')}`;
  const served = new Set(operations.map((o) => key(o.method, o.path)));
  const described = new Set(compared.map((o) => key(o.method, o.path)));
  return {
    extra: operations.filter((o) => !described.has(key(o.method, o.path))).map((o) => ({ method: o.method, path: o.path, operationId: o.operationId })),
    lacking: compared.filter((o) => !served.has(key(o.method, o.path))).map((o) => o.operationId),
  };
}
