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

/**
 * The Customer contract at n operations as `../shared/bench/customer-like-synthetic.mjs` makes it: the address-type
 * group's 8 operations (4 paths) copied under renamed groups (/g001-address-types ..., operationIds suffixed
 * -g001) until there are n, every other path dropped, everything else kept (info, servers, security, components,
 * x-service-id): the Customer pack, its profile, catalog and scenario suites apply to it.
 */
export function customerLikeContract(n: number): string {
  const doc = parse(readFileSync(CONTRACT, 'utf8')) as { info: Record<string, unknown>; paths: Record<string, Record<string, unknown>> };
  const methods = ['get', 'put', 'post', 'delete', 'patch'];
  const template = Object.entries(doc.paths).filter(([path]) => path.startsWith('/address-types'));
  const paths: Record<string, Record<string, unknown>> = {};
  let count = 0;
  for (let g = 1; count < n; g++) {
    const tag = `g${String(g).padStart(3, '0')}`;
    for (const [path, item] of template) {
      for (const method of methods) {
        const op = item[method] as { operationId: string } | undefined;
        if (!op || count >= n) continue;
        const copyPath = path.replace('/address-types', `/${tag}-address-types`);
        paths[copyPath] ??= item['parameters'] ? { parameters: structuredClone(item['parameters']) } : {};
        paths[copyPath][method] = { ...structuredClone(op), operationId: `${op.operationId}-${tag}` };
        count++;
      }
    }
  }
  return stringify({ ...doc, info: { ...doc.info, title: `${String(doc.info['title'])} (synthetic, ${n} operations)` }, paths }, { aliasDuplicateObjects: false });
}
