/**
 * Hidden endpoints at the scale of the catalog: a catalog may count operations the contract does not describe, by
 * group, knowing only the group's path prefix and how many there are. Each group of the contract's services of which
 * the contract describes no path is asked at its prefix (a GET with the run's credentials and headers) and its answer
 * told from the deployment's answer to a route that surely does not exist, as the presence probes tell an operation's
 * (checks/operation-present.ts `routeUnknown`). A group answered otherwise is served, though no client of the contract
 * knows of it: a warning in every report, never a failure. A group the contract describes paths of is not asked: its
 * prefix shows nothing the described operations do not.
 */
import type { Catalog } from '../description/catalog.ts';
import type { CatalogGroupProbe, CatalogGroups, Contract, Exchange, Operation } from '../model.ts';
import { toCurl } from '../report/curl.ts';

/** What asking the groups needs of the session. */
export interface GroupAsking {
  readonly contract: Contract;
  readonly baseUrls: Record<string, string>;
  /** Sends one GET of a URL as the operation's calls go (its headers and credentials). */
  send(op: Operation, url: string): Promise<Exchange>;
  /** Whether the answer is the deployment's answer to an unknown route (the operation's method, GET). */
  looksUnknown(op: Operation, exchange: Exchange): Promise<boolean>;
}

/** The path of every operation the contract describes, by service. */
function describedPaths(contract: Contract): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const op of contract.operations) out.set(op.service, [...(out.get(op.service) ?? []), op.path]);
  return out;
}

/** Whether a path is the prefix or under it (`/consents`, `/consents/{id}`; not `/consents-archive`). */
function under(path: string, prefix: string): boolean {
  const bare = prefix.replace(/\/+$/, '');
  return path === bare || path.startsWith(`${bare}/`);
}

/** The catalog's groups to ask: of the contract's services, with operations the contract does not describe, none of whose paths it describes. */
export function groupsToAsk(catalog: Catalog, contract: Contract): Catalog['groups'] {
  const paths = describedPaths(contract);
  const described = new Set(contract.operations.map((o) => o.operationId));
  return catalog.groups.filter((g) => {
    const own = paths.get(g.service);
    if (!own) return false;
    const undescribed = (g.unlisted?.count ?? 0) + g.operations.filter((o) => !described.has(o.operationId)).length;
    return undescribed > 0 && !own.some((p) => under(p, g.prefix));
  });
}

/** One group asked at its prefix: served, not served, or not answered. */
async function askGroup(deps: GroupAsking, group: Catalog['groups'][number], asker: Operation): Promise<CatalogGroupProbe> {
  const base = (deps.baseUrls[group.service] ?? '').replace(/\/+$/, '');
  const url = `${base}${group.prefix.startsWith('/') ? '' : '/'}${group.prefix}`;
  const exchange = await deps.send(asker, url);
  const about = { prefix: group.prefix, service: group.service, count: group.count, curl: toCurl(exchange.request) };
  const where = `GET ${new URL(url).pathname}`;
  if (!exchange.response) return { ...about, message: `${where} got no answer (${exchange.error?.message ?? 'no answer'}): whether the group is served is not known.` };
  const { status } = exchange.response;
  if (await deps.looksUnknown(asker, exchange)) return { ...about, served: false, status, message: `${where} answered ${status}, as an unknown route is answered: not served.` };
  const ops = `${group.count} operation${group.count === 1 ? '' : 's'}`;
  return { ...about, served: true, status, message: `${where} answered ${status}, not as an unknown route is answered: the deployment serves the group ${group.prefix} (${ops} in the catalog), which the contract does not describe.` };
}

/** The GET that asks a service's groups: a GET operation of the service (its credentials), else one made of its first. */
function askerOf(contract: Contract, service: string): Operation | undefined {
  const own = contract.operations.filter((o) => o.service === service);
  const get = own.find((o) => o.method === 'GET' && o.secured) ?? own.find((o) => o.method === 'GET');
  if (get) return get;
  return own[0] ? { ...own[0], method: 'GET' } : undefined;
}

/** Every group to ask, asked at once; undefined where the catalog has none (or there is no catalog). */
export async function askCatalogGroups(deps: GroupAsking, catalog: Catalog | undefined): Promise<CatalogGroups | undefined> {
  if (!catalog) return undefined;
  // A service the run has no base URL for (a run of another service alone) is not asked.
  const groups = groupsToAsk(catalog, deps.contract).filter((g) => /^https?:\/\//i.test(deps.baseUrls[g.service] ?? ''));
  if (groups.length === 0) return undefined;
  const probes = await Promise.all(
    groups.map((g) => {
      const asker = askerOf(deps.contract, g.service);
      return asker ? askGroup(deps, g, asker) : undefined;
    }),
  );
  const asked = probes.filter((p): p is CatalogGroupProbe => p !== undefined);
  return { asked: asked.length, served: asked.filter((p) => p.served === true).length, groups: asked };
}
