/**
 * The synthetic contract of the benchmark and of the size and memory tests: the address-type operations of the
 * bundled Customer contract repeated under /s<k>/ (operationIds suffixed -s<k>) until there are n operations.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const CONTRACT = fileURLToPath(new URL('../contract/customer-service.openapi.yaml', import.meta.url));

/** The contract as YAML text. */
export function syntheticContract(n: number): string {
  const doc = parse(readFileSync(CONTRACT, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  const template = Object.entries(doc.paths).filter(([path]) => path.startsWith('/address-types'));
  const paths: Record<string, Record<string, unknown>> = {};
  let count = 0;
  for (let k = 1; count < n; k++) {
    for (const [path, item] of template) {
      const copy: Record<string, unknown> = {};
      let operations = 0;
      for (const [method, op] of Object.entries(item)) {
        if (op && typeof op === 'object' && 'operationId' in op) {
          if (count >= n) continue;
          copy[method] = { ...op, operationId: `${String((op as { operationId: unknown }).operationId)}-s${k}` };
          count++;
          operations++;
        } else copy[method] = op;
      }
      if (operations > 0) paths[`/s${k}${path}`] = copy;
    }
  }
  return stringify({ ...doc, paths });
}
