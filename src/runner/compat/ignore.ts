/**
 * The ignore file: known changes accepted until a date, in the waivers' format (a YAML list; each entry a
 * `reason` and an `expires` day, inclusive). An entry names a change by its `fingerprint`, or by `rule` and
 * `operation`. An expired entry ignores nothing and fails the gate, so that it is removed or renewed on purpose.
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../description/errors.ts';
import { parseYaml } from '../description/yaml-file.ts';
import type { Change } from './types.ts';

export interface IgnoreEntry {
  fingerprint?: string;
  rule?: string;
  operation?: string;
  reason: string;
  expires: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const KEYS = new Set(['fingerprint', 'rule', 'operation', 'reason', 'expires']);

export async function readIgnoreFile(file: string): Promise<IgnoreEntry[]> {
  let data: unknown;
  try {
    data = parseYaml(await readFile(file, 'utf8'));
  } catch (error) {
    throw new InputError(`${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `not valid YAML: ${String((error as Error).message).split('\n')[0]}`}`);
  }
  if (data === null || data === undefined) return [];
  if (!Array.isArray(data)) throw new InputError(`${file}: expected a list of entries (fingerprint or rule and operation, reason, expires)`);
  return data.map((entry, i) => {
    const where = `${file}: entry ${i + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new InputError(`${where}: expected a mapping`);
    const e = entry as Record<string, unknown>;
    const odd = Object.keys(e).find((k) => !KEYS.has(k));
    if (odd) throw new InputError(`${where}: unknown key ${odd} (keys: fingerprint, rule, operation, reason, expires)`);
    if (typeof e['reason'] !== 'string' || !/\S/.test(e['reason'])) throw new InputError(`${where}: a reason is required (a ticket or a sentence a reviewer can check)`);
    if (typeof e['expires'] !== 'string' || !DATE.test(e['expires']) || Number.isNaN(Date.parse(e['expires']))) throw new InputError(`${where}: expires must be a day, YYYY-MM-DD`);
    if (typeof e['fingerprint'] !== 'string' && typeof e['rule'] !== 'string') throw new InputError(`${where}: name the change by fingerprint, or by rule (and operation)`);
    return e as unknown as IgnoreEntry;
  });
}

const matches = (entry: IgnoreEntry, change: Change) =>
  entry.fingerprint !== undefined ? entry.fingerprint === change.fingerprint : entry.rule === change.rule && (entry.operation === undefined || entry.operation === change.operation);

/** Marks the changes the live entries accept; the expired entries are returned. */
export function applyIgnores(changes: Change[], entries: readonly IgnoreEntry[], today: string): Array<{ entry: string; expires: string }> {
  const expired: Array<{ entry: string; expires: string }> = [];
  for (const entry of entries) {
    const name = entry.fingerprint ?? `${entry.rule}${entry.operation ? ` on ${entry.operation}` : ''}`;
    if (entry.expires < today) {
      expired.push({ entry: name, expires: entry.expires });
      continue;
    }
    for (const c of changes) if (matches(entry, c)) c.ignored = { reason: entry.reason, expires: entry.expires };
  }
  return expired;
}
