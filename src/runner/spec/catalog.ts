import { fileURLToPath } from 'node:url';
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

export const CATALOG_SCHEMA = fileURLToPath(new URL('../../../contract/catalog.schema.json', import.meta.url));

export function loadCatalog(file: string): Promise<Catalog> {
  return readValidatedYaml<Catalog>(file, CATALOG_SCHEMA);
}

/**
 * The catalog's operations that the loaded contract does not describe, as results. Operations of which the
 * catalog knows only a count are not listed one by one; the coverage summary counts them.
 */
export function notDescribedResults(catalog: Catalog | undefined, contract: Contract): OperationResult[] {
  if (!catalog) return [];
  const described = new Set(contract.operations.map((o) => o.operationId));
  return catalog.groups.flatMap((g) =>
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

/** Coverage: all operations the catalog counts vs described (in the loaded contract) vs tested in this run. */
export function coverage(catalog: Catalog | undefined, contract: Contract, tested: number): CoverageSummary {
  const described = contract.operations.length;
  const total = catalog ? catalog.groups.reduce((n, g) => n + g.count, 0) : described;
  return { catalogTotal: total, described, tested, notDescribed: Math.max(0, total - described) };
}
