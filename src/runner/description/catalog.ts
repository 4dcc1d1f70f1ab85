import type { Contract, CoverageSummary, HttpMethod, OperationResult } from '../model.ts';
import { readValidatedYaml } from './yaml-file.ts';

/** contract/catalog.yaml: every operation the service counts, described in a contract file or not. */
export interface Catalog {
  title: string;
  contractVersion: string;
  totals: { all: number };
  groups: Array<{
    prefix: string;
    service: string;
    count: number;
    operations: Array<{
      operationId: string;
      method?: string;
      path?: string;
      status: 'described' | 'not-described';
      reason?: string;
      purpose?: string;
    }>;
    unlisted?: { count: number; reason: string };
  }>;
}

export { CATALOG_SCHEMA } from '../schemas/index.ts';
import { CATALOG_SCHEMA } from '../schemas/index.ts';

export function loadCatalog(file: string): Promise<Catalog> {
  return readValidatedYaml<Catalog>(file, CATALOG_SCHEMA);
}

/**
 * The catalog's groups that concern the contract: those of the contract's services. A catalog counts the
 * operations of its own services only; a contract of other services is not measured against it.
 */
function groupsOf(catalog: Catalog, contract: Contract): Catalog['groups'] {
  const services = new Set(contract.services.map((s) => s.id));
  return catalog.groups.filter((g) => services.has(g.service));
}

/**
 * The catalog's operations that the loaded contract does not describe, as results. Operations of which the
 * catalog knows only a count are not listed one by one; the coverage summary counts them.
 */
export function notDescribedResults(catalog: Catalog | undefined, contract: Contract): OperationResult[] {
  if (!catalog) return [];
  const described = new Set(contract.operations.map((o) => o.operationId));
  return groupsOf(catalog, contract).flatMap((g) =>
    g.operations
      .filter((o) => !described.has(o.operationId))
      .map((o) => ({
        operationId: o.operationId,
        method: (o.method as HttpMethod | undefined) ?? null,
        path: o.path ?? null,
        group: g.prefix,
        service: g.service,
        outcome: 'not-described' as const,
        reason: o.reason ?? (o.status === 'described' ? 'not in the loaded contract files' : 'not described'),
        durationMs: 0,
        cases: [],
      })),
  );
}

/**
 * Coverage: all operations the catalog counts for the contract's services (plus the described operations of
 * services it does not know) vs described (in the loaded contract) vs tested in this run.
 */
export function coverage(catalog: Catalog | undefined, contract: Contract, tested: number): CoverageSummary {
  const described = contract.operations.length;
  if (!catalog) return { catalogTotal: described, described, tested, notDescribed: 0 };
  const groups = groupsOf(catalog, contract);
  const known = new Set(groups.map((g) => g.service));
  const outside = contract.operations.filter((o) => !known.has(o.service)).length;
  const total = groups.reduce((n, g) => n + g.count, 0) + outside;
  return { catalogTotal: total, described, tested, notDescribed: Math.max(0, total - described) };
}
