import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const COMMITTED_PACTS = path.join(REPO_ROOT, 'contract', 'pacts');
export const ONBOARDING_PACT = path.join(COMMITTED_PACTS, 'onboarding-portal-customer-service.json');
export const TRADE_PACT = path.join(COMMITTED_PACTS, 'trade-finance-back-office-foreign-trade-service.json');
export const CONTRACT_FILES = ['customer-service.openapi.yaml', 'foreign-trade-service.openapi.yaml'].map((f) =>
  path.join(REPO_ROOT, 'contract', f),
);

export type Json = Record<string, unknown>;

export interface PactJson extends Json {
  consumer: { name: string };
  provider: { name: string };
  interactions: Json[];
}

export async function readPact(file: string): Promise<PactJson> {
  return JSON.parse(await readFile(file, 'utf8')) as PactJson;
}

/** A committed pact's interaction by description (deep copy, safe to change). */
export async function committedInteraction(file: string, description: string): Promise<Json> {
  const pact = await readPact(file);
  const found = pact.interactions.find((i) => i['description'] === description);
  if (!found) throw new Error(`no interaction "${description}" in ${file}`);
  return structuredClone(found);
}

export async function tempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes a pact file (V4) with the given interactions into dir; returns its path. */
export async function writePact(
  dir: string,
  name: string,
  consumer: string,
  provider: string,
  interactions: Json[],
): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  const pact: PactJson = {
    consumer: { name: consumer },
    provider: { name: provider },
    interactions,
    metadata: { pactSpecification: { version: '4.0' } },
  };
  await writeFile(file, JSON.stringify(pact, null, 2));
  return file;
}

/** Sets a value at a path of plain keys inside a JSON object (creating objects on the way). */
export function setIn(target: Json, keys: string[], value: unknown): Json {
  let node: Json = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Json;
  }
  const last = keys[keys.length - 1];
  if (last !== undefined) node[last] = value;
  return target;
}
