/**
 * Remembers which inputs already passed validation, by the SHA-256 of their exact content (and of the schema
 * they were checked against), so a run does not compile the OpenAPI meta-schema and the data schemas again
 * for files it has seen: a changed byte is a new key and is validated afresh. Kept in
 * node_modules/.cache/conformance/ (any failure to read or write it just means no cache).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = 'v1';
const DIR = fileURLToPath(new URL('../../../node_modules/.cache/conformance/', import.meta.url));
const FILE = join(DIR, 'validated.json');
const MAX_KEYS = 500;

let keys: Set<string> | undefined;

function load(): Set<string> {
  if (keys) return keys;
  keys = new Set();
  if (process.env['CONFORMANCE_NO_CACHE']) return keys;
  try {
    const list = JSON.parse(readFileSync(FILE, 'utf8')) as unknown;
    if (Array.isArray(list)) for (const k of list) if (typeof k === 'string') keys.add(k);
  } catch {
    // no cache yet
  }
  return keys;
}

/** The key of a validation: what was checked (any number of texts) under which rules. */
export function validityKey(kind: string, ...texts: string[]): string {
  const hash = createHash('sha256').update(`${VERSION}\0${kind}`);
  for (const t of texts) hash.update('\0').update(t);
  return hash.digest('hex');
}

export function isKnownValid(key: string): boolean {
  return load().has(key);
}

export function rememberValid(key: string): void {
  const set = load();
  if (set.has(key) || process.env['CONFORMANCE_NO_CACHE']) return;
  set.add(key);
  const list = [...set].slice(-MAX_KEYS);
  try {
    mkdirSync(DIR, { recursive: true });
    const temp = `${FILE}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(list));
    renameSync(temp, FILE);
  } catch {
    // read-only install: no cache
  }
}
