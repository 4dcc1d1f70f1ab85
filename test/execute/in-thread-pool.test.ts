/**
 * The scenario suites run in the thread that started vitest (execute/in-thread-pool.ts), not on a worker thread
 * of vitest's: each suite file records the thread it ran in, and what its tests did comes back to vitest as with
 * vitest's own pool (a passing and a failing test). vitest runs in a process of its own here: its worker runtime
 * cannot share a thread with the one running this file.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, test } from 'vitest';
import { ROOT, removeTemps, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** Runs two suite files under the pool given and answers which thread started vitest, which ran each file, and each test's state. */
async function runSuites(pool: 'in-thread' | 'threads'): Promise<{ starter: number; ranIn: number[]; tests: Record<string, string> }> {
  const dir = await tempDir('conformance-pool-');
  const suite = (name: string, body: string) =>
    `import { threadId } from 'node:worker_threads';\nimport { appendFileSync } from 'node:fs';\ntest(${JSON.stringify(name)}, () => { appendFileSync(${JSON.stringify(join(dir, 'threads.txt'))}, threadId + '\\n'); ${body} });\n`;
  await writeFile(join(dir, 'a.test.mjs'), suite('holds', 'expect(1 + 1).toBe(2);'));
  await writeFile(join(dir, 'b.test.mjs'), suite('breaks', 'expect(1 + 1).toBe(3);'));
  const script = `
import { threadId } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';
const { createVitest } = await import(${JSON.stringify(pathToFileURL(require.resolve('vitest/node')).href)});
const { suitePoolOptions } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/runner/execute/in-thread-pool.ts')).href)});
const tests = {};
const collect = { onTestRunEnd(modules) { for (const m of modules) for (const t of m.children.allTests()) tests[t.name] = t.result().state; } };
// The options the run gives vitest (a single worker with this pool), or vitest's own thread pool; four workers
// otherwise, as a machine of five cores gets (two in one thread would run two files at once in it).
const options = ${pool === 'in-thread' ? 'await suitePoolOptions()' : "{ pool: 'threads' }"};
if (options.pool === 'threads' && ${pool === 'in-thread'}) throw new Error('no in-thread pool');
const vitest = await createVitest('test', { config: false, root: ${JSON.stringify(dir)}, watch: false, include: ['*.test.mjs'], globals: true, isolate: false, maxWorkers: 4, ...options, reporters: [collect] }, { logLevel: 'silent', server: { watch: null } });
await vitest.start();
await vitest.close();
// vitest's runtime took this thread's console for the suites' output: the answer goes to a file.
writeFileSync(${JSON.stringify(join(dir, 'answer.json'))}, JSON.stringify({ starter: threadId, tests }));
process.exitCode = 0;
`;
  const file = join(dir, 'start.mts');
  await writeFile(file, script);
  await run(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, timeout: 60_000 });
  const answer = JSON.parse(await readFile(join(dir, 'answer.json'), 'utf8')) as { starter: number; tests: Record<string, string> };
  const ranIn = (await readFile(join(dir, 'threads.txt'), 'utf8')).trim().split('\n').map(Number);
  return { ...answer, ranIn };
}

test('the suites run in the thread that started vitest, their results reported as vitest\'s own pool reports them', async () => {
  const inThread = await runSuites('in-thread');
  expect(inThread.ranIn).toHaveLength(2);
  expect(inThread.ranIn.every((t) => t === inThread.starter)).toBe(true);
  expect(inThread.tests).toEqual({ holds: 'passed', breaks: 'failed' });
  // vitest's own thread pool, for comparison: another thread, the same results.
  const threads = await runSuites('threads');
  expect(threads.ranIn).toHaveLength(2);
  expect(threads.ranIn.every((t) => t !== threads.starter)).toBe(true);
  expect(threads.tests).toEqual(inThread.tests);
}, 120_000);
