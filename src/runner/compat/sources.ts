/**
 * Where the base contract comes from: a file, an http(s) URL, `git-ref:<ref>:<path>` (the file as committed at
 * that ref, read with `git show`), or the version label of a pack's published contract (its `info.version`).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { parseYaml } from '../description/yaml-file.ts';
import { InputError } from '../description/errors.ts';

const run = promisify(execFile);

/** The version label (`info.version`) of a description file, when it reads. */
export async function versionOf(file: string): Promise<string | undefined> {
  try {
    const doc = parseYaml(await readFile(file, 'utf8')) as { info?: { version?: unknown } } | null;
    return typeof doc?.info?.version === 'string' ? doc.info.version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The base description files for `--base`, each paired with the revision file it is compared with (by position
 * when a pack's label names several). A value that is none of the forms is a one-line InputError.
 */
export async function resolveBase(base: string, revisions: readonly string[], packContracts: readonly string[]): Promise<string[]> {
  if (base.startsWith('git-ref:')) {
    const rest = base.slice('git-ref:'.length);
    const at = rest.indexOf(':');
    if (at <= 0) throw new InputError(`--base ${base}: write git-ref:<ref>:<path>, e.g. git-ref:v1.2.0:contract/orders.yaml`);
    const [ref, path] = [rest.slice(0, at), rest.slice(at + 1)];
    let text: string;
    try {
      text = (await run('git', ['show', `${ref}:${path}`], { maxBuffer: 64 * 1024 * 1024 })).stdout;
    } catch (error) {
      throw new InputError(`--base ${base}: git could not read ${path} at ${ref} (${String((error as Error).message).split('\n').find((l) => /fatal/.test(l))?.trim() ?? 'git show failed'})`);
    }
    const dir = await mkdtemp(join(tmpdir(), 'conformance-base-'));
    const file = join(dir, basename(path));
    await writeFile(file, text);
    return [file];
  }
  if (/^https?:\/\//i.test(base) || /[./\\]/.test(base)) return [base];
  // A label: the pack's contracts published with it.
  const labelled: string[] = [];
  for (const file of packContracts) if ((await versionOf(file)) === base) labelled.push(file);
  if (labelled.length === 0) throw new InputError(`--base ${base}: no such file, and no pack contract is published with the version label ${base}`);
  // Paired with the revision files in order (a pack's contracts are its default revision).
  return revisions.map((r) => labelled.find((f) => basename(f) === basename(r)) ?? labelled[0]!);
}
