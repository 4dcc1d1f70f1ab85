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
  return `sha256:${createHash('sha256').update(JSON.stringify({ services, operations })).digest('hex')}`;
}
