/**
 * The construct table end to end: each construct's tiny contract (OpenAPI 3.0 and 3.1) run by the CLI
 * against a tiny correct server (every operation passes, exit 0) and a tiny faulty one (every operation
 * fails through response-schema-conformance and nothing else, exit 1). A schema that cannot compile errors
 * its operation (a tool problem: exit 2, reports written), never a crash.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkIds, operation, removeTemps, requireResults, runCli, tempDir } from '../support/runs.ts';
import { CONSTRUCTS, constructsContract, constructsServer, UNCOMPILABLE } from './constructs.ts';

afterAll(removeTemps);

async function contractFile(version: '3.0' | '3.1'): Promise<string> {
  const file = join(await tempDir('conformance-constructs-'), `constructs-${version}.json`);
  await writeFile(file, JSON.stringify(constructsContract(version)));
  return file;
}

async function run(version: '3.0' | '3.1', mode: 'correct' | 'faulty', select: string[]) {
  const server = await constructsServer(version, mode);
  try {
    return await runCli(['--spec', await contractFile(version), '--base-url', server.url, '--token', 'constructs-token', '--quiet', ...select]);
  } finally {
    await server.close();
  }
}

const ids = CONSTRUCTS.map((c) => c.id);

describe.each(['3.0', '3.1'] as const)('OpenAPI %s', (version) => {
  test('a correct server passes every construct (exit 0)', async () => {
    const cli = await run(version, 'correct', version === '3.1' ? ['--exclude', UNCOMPILABLE.id] : []);
    const results = requireResults(cli);
    expect(Object.fromEntries(ids.map((id) => [id, operation(results, id).outcome]))).toEqual(Object.fromEntries(ids.map((id) => [id, 'passed'])));
    expect(cli.code).toBe(0);
    // A foreign contract: the generic profile, the catalog counts its own operations only, and no pack's
    // scenario suite applies (the Customer pack's suites are not run, not listed).
    expect(results.coverage).toMatchObject({ catalogTotal: results.coverage.described, notDescribed: 0 });
    expect(results.operations.filter((o) => o.outcome === 'not-described')).toEqual([]);
    expect(results.operations.filter((o) => o.operationId.startsWith('scenario'))).toEqual([]);
  });

  test('a faulty server fails every construct through response-schema-conformance only (exit 1)', async () => {
    const cli = await run(version, 'faulty', version === '3.1' ? ['--exclude', UNCOMPILABLE.id] : []);
    const results = requireResults(cli);
    for (const id of ids) {
      const op = operation(results, id);
      expect([id, op.outcome, checkIds(op, 'error')]).toEqual([id, 'failed', ['response-schema-conformance']]);
    }
    expect(cli.code).toBe(1);
  });
});

test('a response schema that cannot compile errors its operation with where and why (exit 2, reports written)', async () => {
  const cli = await run('3.1', 'correct', ['--include', UNCOMPILABLE.id]);
  const op = operation(requireResults(cli), UNCOMPILABLE.id);
  expect(op.outcome).toBe('errored');
  const positive = op.cases.find((c) => c.name === 'positive');
  expect(positive?.errorMessage).toMatch(/#\/paths\/~1uncompilable\/get\/responses\/200: the schema cannot be compiled: exclusiveMinimum/);
  expect(cli.code).toBe(2);
  expect(cli.stderr).not.toMatch(/\n\s+at /);
});
