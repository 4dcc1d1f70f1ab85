/**
 * Where pacts come from: directories (every *.json file directly in it, as the pact verifier reads a
 * directory), files, and http(s) URLs. Each source is read and parsed here so that verification and the
 * contract check know the consumer, the provider and the interactions of every pact before anything runs.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { PactInputError } from './errors.ts';
import { parsePact, type PactDocument } from './pact-file.ts';

export interface LoadedPact {
  /** The file path (as resolved) or the URL. */
  location: string;
  kind: 'file' | 'url';
  pact: PactDocument;
}

export interface UrlAuth {
  token?: string;
  username?: string;
  password?: string;
}

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** Reads every pact the sources name, in the order given (a directory's files sorted by name). */
export async function readPactSources(sources: string[], auth: UrlAuth = {}): Promise<LoadedPact[]> {
  const out: LoadedPact[] = [];
  for (const source of sources) {
    if (isUrl(source)) {
      out.push({ location: source, kind: 'url', pact: parsePact(await fetchText(source, auth), source) });
      continue;
    }
    const resolved = path.resolve(source);
    const info = await stat(resolved).catch(() => undefined);
    if (!info) throw new PactInputError(`${source}: no such file or directory (give a pact file, a directory of pact files or a URL)`);
    const files = info.isDirectory()
      ? (await readdir(resolved))
          .filter((f) => f.toLowerCase().endsWith('.json'))
          .sort()
          .map((f) => path.join(resolved, f))
      : [resolved];
    for (const file of files) {
      const text = await readFile(file, 'utf8').catch((e: unknown) => {
        throw new PactInputError(`${file}: cannot be read (${(e as Error).message})`);
      });
      out.push({ location: file, kind: 'file', pact: parsePact(text, file) });
    }
  }
  return out;
}

async function fetchText(url: string, auth: UrlAuth): Promise<string> {
  const headers: Record<string, string> = { Accept: 'application/hal+json, application/json' };
  if (auth.token) headers['Authorization'] = `Bearer ${auth.token}`;
  else if (auth.username !== undefined) {
    headers['Authorization'] = `Basic ${Buffer.from(`${auth.username}:${auth.password ?? ''}`).toString('base64')}`;
  }
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new PactInputError(`${url}: cannot be fetched (${(error as Error).message})`);
  }
  if (!res.ok) throw new PactInputError(`${url}: answered HTTP ${res.status} (expected a pact file)`);
  return res.text();
}
