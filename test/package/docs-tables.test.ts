/**
 * The README is the front door and docs/ holds the rest: the generated tables of docs/options.md and docs/checks.md
 * are what scripts/docs-tables.mjs makes from the code (a new option or check without regenerating fails here), every
 * link from the README into docs/ (and between the pages) reaches a file and a heading, every page of docs/ is
 * linked from the README, and the README stays within 200 lines.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const docPages = () => readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);

async function script(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/docs-tables.mjs', ...args], { cwd: root });
    return { code: 0, stderr: '' };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? '' };
  }
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings (outside code fences). */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = !fence && /^#+ (.*)$/.exec(line);
    if (m) found.add(slug(m[1]!));
  }
  return found;
}

/** Relative links to markdown files (and their anchors) of a file, outside code fences and code spans. */
function mdLinks(text: string): Array<{ target: string; anchor?: string }> {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const links: Array<{ target: string; anchor?: string }> = [];
  for (const m of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1]!;
    if (/^[a-z]+:/i.test(href)) continue;
    const [target, anchor] = href.split('#') as [string, string | undefined];
    links.push({ target, ...(anchor ? { anchor } : {}) });
  }
  return links;
}

/** The dead links of a file: a file that does not exist, or a heading the target does not have. */
function deadLinks(file: string): string[] {
  const dead: string[] = [];
  for (const { target, anchor } of mdLinks(read(file))) {
    const path = target === '' ? file : relative(root, resolve(root, dirname(file), target));
    if (!existsSync(join(root, path))) {
      dead.push(`${target}${anchor ? `#${anchor}` : ''}`);
      continue;
    }
    if (anchor && path.endsWith('.md') && !anchors(read(path)).has(anchor)) dead.push(`${target}#${anchor}`);
  }
  return dead;
}

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

describe('the docs', () => {
  test('the generated tables are what scripts/docs-tables.mjs makes from the code', async () => {
    const { code, stderr } = await script('--check');
    expect(stderr, 'run: node --import tsx scripts/docs-tables.mjs').toBe('');
    expect(code).toBe(0);
  });

  test('the check fails, naming the file, when an option or a check is missing from its table', async () => {
    for (const [file, row] of [['docs/options.md', '| `--seed <n>` |'], ['docs/checks.md', '| `use-after-delete` |']] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'docs-tables-'));
      temp.push(dir);
      cpSync(join(root, 'docs'), join(dir, 'docs'), { recursive: true });
      const lines = read(file).split('\n');
      expect(lines.some((l) => l.startsWith(row)), row).toBe(true);
      writeFileSync(join(dir, file), lines.filter((l) => !l.startsWith(row)).join('\n'));
      const { code, stderr } = await script('--check', '--root', dir);
      expect(code, file).toBe(1);
      expect(stderr).toContain(`${file}: the `);
    }
  });

  test('README.md is at most 200 lines', () => {
    expect(read('README.md').replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(200);
  });

  test("the README's links into docs/ reach a page and a heading", () => {
    const links = mdLinks(read('README.md')).filter((l) => l.target.startsWith('docs/'));
    expect(links.length).toBeGreaterThan(0);
    expect(deadLinks('README.md')).toEqual([]);
  });

  test('every page of docs/ is linked from the README', () => {
    const linked = new Set(mdLinks(read('README.md')).map((l) => l.target));
    expect(docPages().filter((page) => !linked.has(page))).toEqual([]);
  });

  test("the pages' links reach a file and a heading", () => {
    for (const page of docPages()) expect(deadLinks(page), page).toEqual([]);
  });
});
