/**
 * Size limits that keep the engine readable: no file in src/runner over 600 lines, except declarative tables
 * (TABLES: files that hold data only), and no function in src/runner/execute over 60 lines (function
 * declarations, methods, arrow functions and function expressions; a function's lines are its own, from its
 * first line to its last, nested functions included). Read with TypeScript's own parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const runner = join(root, 'src/runner');
const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 60;
/** Declarative tables (data only), by path below src/runner: exempt from the file limit. */
export const TABLES = new Set<string>(['plan/coverage-table.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []));
}

function longFunctions(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const name = (node as { name?: ts.Node }).name?.getText(source) ?? '(anonymous)';
        out.push(`${relative(runner, file)}:${start + 1} ${name}: ${lines} lines`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

test(`no file in src/runner over ${MAX_FILE_LINES} lines, declarative tables apart`, () => {
  const over = sources(runner)
    .map((file) => ({ file: relative(runner, file), lines: readFileSync(file, 'utf8').split('\n').length }))
    .filter((f) => f.lines > MAX_FILE_LINES && !TABLES.has(f.file))
    .map((f) => `${f.file}: ${f.lines} lines`);
  expect(over).toEqual([]);
});

test(`no function in src/runner/execute over ${MAX_FUNCTION_LINES} lines`, () => {
  expect(sources(join(runner, 'execute')).flatMap(longFunctions)).toEqual([]);
});
