/**
 * The engine's modules import one another in one direction: no import circle in src/runner, type-only imports
 * included (a circle of types is still two modules that cannot be read, or moved, one without the other). The
 * imports are read with TypeScript's own pre-processor.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const runner = join(root, 'src/runner');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Each module's imports of other modules of src/runner (static, dynamic and type-only). */
function importGraph(): Map<string, string[]> {
  const files = sources(runner);
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles.map((i) => i.fileName).filter((name) => name.startsWith('.')).map((name) => resolve(dirname(file), name)).filter((target) => known.has(target));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** The strongly connected components of more than one module (Tarjan), each a list of paths below src/runner. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(relative(runner, w));
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('no import circle in src/runner', () => {
  expect(circles(importGraph())).toEqual([]);
});

test('the circle finder finds a circle of type imports', () => {
  const graph = new Map([
    ['/a.ts', ['/b.ts']],
    ['/b.ts', ['/c.ts']],
    ['/c.ts', ['/a.ts']],
    ['/d.ts', ['/a.ts']],
  ]);
  expect(circles(graph).map((c) => c.length)).toEqual([3]);
});

test('the plan imports nothing of execute/ (the cases are made before anything is sent)', () => {
  const plan = join(runner, 'plan');
  const execute = join(runner, 'execute');
  const crossing = [...importGraph()].filter(([file]) => file.startsWith(plan)).flatMap(([file, targets]) => targets.filter((t) => t.startsWith(execute)).map((t) => `${relative(runner, file)} -> ${relative(runner, t)}`));
  expect(crossing).toEqual([]);
});
