/**
 * Remembers a local OpenAPI description as loaded: its bundled form (one tree, internal `$ref`s kept) and its
 * dereferenced form (a graph: shared and recursive schemas are the same objects), by the SHA-256 of every file it was
 * read from. A run on an unchanged description reads both back with v8.deserialize, which gives back exactly the
 * objects, sharing and cycles that parsing, bundling and dereferencing would build (and so the same contract hash),
 * instead of doing that work again: about 1.5 s of CPU at 2,770 operations, 0.1 s for the bundled contract. A changed
 * byte in any of its files is a miss, and only a description that passed validation is kept. The key also holds
 * the V8 version (the serialization format) and the reference parser's version (what dereferencing builds). Kept
 * beside the validation verdicts in node_modules/.cache/conformance/descriptions/; any failure to
 * read or write it just means no cache, and CONFORMANCE_NO_CACHE turns it off.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { fileURLToPath } from 'node:url';
import refParser from '@apidevtools/json-schema-ref-parser/package.json' with { type: 'json' };

const VERSION = `v3 v8-${process.versions.v8} ref-parser-${refParser.version}`;
const DIR = fileURLToPath(new URL('../../../node_modules/.cache/conformance/descriptions/', import.meta.url));
/** Descriptions remembered at most (the least recently written go first). */
const MAX_ENTRIES = 40;

type Obj = Record<string, unknown>;

/** A description's files as read now: path and content. */
export type DescriptionFiles = Array<{ path: string; text: string }>;

interface Entry {
  version: string;
  location: string;
  files: Array<{ path: string; sha256: string }>;
  bundled: Obj;
  api: Obj;
  /** A Swagger 2.0 description (remembered as its conversion): the version it declares and the way back to its pointers. */
  declared?: string;
  pointerMoves?: Record<string, string>;
}

/** What is remembered of a description: its bundled and dereferenced forms, and for a converted one its origin. */
export interface RememberedDescription {
  bundled: Obj;
  api: Obj;
  declared?: string;
  pointerMoves?: Record<string, string>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const entryFile = (location: string) => join(DIR, `${sha256(location).slice(0, 32)}.v8`);
const disabled = () => Boolean(process.env['CONFORMANCE_NO_CACHE']);

/** The bundled and dereferenced description remembered for this location, when none of its files has changed. */
export async function cachedDescription(location: string): Promise<RememberedDescription | undefined> {
  if (disabled()) return undefined;
  let entry: Entry;
  try {
    entry = deserialize(await readFile(entryFile(location))) as Entry;
  } catch {
    return undefined;
  }
  if (entry?.version !== VERSION || entry.location !== location || !Array.isArray(entry.files)) return undefined;
  try {
    const texts = await Promise.all(entry.files.map((f) => readFile(f.path, 'utf8')));
    if (texts.some((text, i) => sha256(text) !== entry.files[i]!.sha256)) return undefined;
  } catch {
    return undefined; // a file of it is gone
  }
  return { bundled: entry.bundled, api: entry.api, ...(entry.declared ? { declared: entry.declared } : {}), ...(entry.pointerMoves ? { pointerMoves: entry.pointerMoves } : {}) };
}

/** Remembers a validated description: its bundled and dereferenced forms and the files they were read from. */
export function rememberDescription(location: string, loaded: RememberedDescription, files: DescriptionFiles): void {
  if (disabled()) return;
  try {
    const entry: Entry = { version: VERSION, location, files: files.map((f) => ({ path: f.path, sha256: sha256(f.text) })), ...loaded };
    const data = serialize(entry);
    mkdirSync(DIR, { recursive: true });
    const file = entryFile(location);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, data);
    renameSync(temp, file);
    prune();
  } catch {
    // read-only install, or something the serializer does not take: no cache
  }
}

function prune(): void {
  const entries = readdirSync(DIR)
    .filter((name) => name.endsWith('.v8') || name.endsWith('.json'))
    .map((name) => ({ name, at: statSync(join(DIR, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of entries.slice(MAX_ENTRIES)) rmSync(join(DIR, old.name), { force: true });
}
