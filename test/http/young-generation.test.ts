/**
 * A large contract keeps V8's young generation at its start-up size for the whole run (young-generation.ts), the
 * request thread included: starting a worker thread gives V8's flags their start-up values again, and the worker
 * sets the run's flags again (v8-flags.ts). Run in a child process of its own (the flags are the process's).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { removeTemps, tempDir } from '../support/runs.ts';

afterAll(removeTemps);

/** The young generation's size (MiB) once a contract of `bytes` is sized for and a request thread started, and after churn. */
async function youngGenerationAfter(bytes: number, reapply: boolean): Promise<{ large: boolean; before: number; after: number }> {
  const dir = await tempDir();
  const contract = join(dir, 'contract.yaml');
  writeFileSync(contract, `# ${'x'.repeat(bytes)}\n`);
  const src = (path: string) => JSON.stringify(pathToFileURL(join(process.cwd(), 'src/runner', path)).href);
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { sizeYoungGeneration } = await import(${src('young-generation.ts')});
    const { v8Flags } = await import(${src('v8-flags.ts')});
    const { WorkerTransport } = await import(${src('http/transport.ts')});
    const large = sizeYoungGeneration([${JSON.stringify(contract)}]);
    const transport = new WorkerTransport({ client: {}, pool: { timeoutMs: 1000, connections: 2 }, v8Flags: ${reapply ? 'v8Flags()' : '[]'} });
    // The thread is up (its flags set again) once it has answered a request: a refused connection, here.
    await transport.transfer({ method: 'GET', url: 'http://127.0.0.1:9/', headers: {} }, 1024, 1000);
    const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size >> 20;
    const before = size();
    let keep = [];
    for (let i = 0; i < 5e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 200000) keep = []; }
    const after = size();
    await transport.close();
    process.stdout.write(JSON.stringify({ large, before, after }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out) as { large: boolean; before: number; after: number };
}

describe('the young generation of a large run', () => {
  test('a large contract: held where it was, the request thread started beside it', async () => {
    const large = await youngGenerationAfter(1.5 * 1024 * 1024, true);
    expect(large.large).toBe(true);
    expect(large.after).toBe(large.before);
    expect(large.after).toBeLessThanOrEqual(8);
  }, 120_000);

  test('without the request thread setting the flags again, it grows once the thread starts; a small contract lets it grow', async () => {
    const unset = await youngGenerationAfter(1.5 * 1024 * 1024, false);
    expect(unset.after).toBeGreaterThan(unset.before);
    const small = await youngGenerationAfter(10_000, true);
    expect(small.large).toBe(false);
    expect(small.after).toBeGreaterThan(small.before);
  }, 120_000);
});
