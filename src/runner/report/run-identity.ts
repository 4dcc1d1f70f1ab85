/**
 * What makes shard results parts of one run: the same contract (a hash over the loaded contract), the same
 * targets, the same seed. Recorded in results.json by `run`, compared by `merge`.
 */
import { createHash } from 'node:crypto';
import type { Contract } from '../model.ts';

/** sha256 over the loaded contract (services and operations, as the engine uses them): equal descriptions hash equal. */
export function contractHash(contract: Contract): string {
  const services = contract.services.map(({ file: _file, ...rest }) => rest);
  const operations = contract.operations.map(({ specFile: _specFile, ...rest }) => rest);
  return `sha256:${createHash('sha256').update(JSON.stringify({ services, operations }, once())).digest('hex')}`;
}

/**
 * A JSON.stringify replacer that writes each object once: dereferenced schemas share subtrees and, when a
 * schema is recursive, form cycles. The same contract loaded the same way gives the same text.
 */
function once(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[seen]';
    seen.add(value);
    return value;
  };
}
