/**
 * The GitHub Action (action.yml, composite) and the workflow that runs it in a shard matrix with a merged
 * report, checked by actionlint (which also reads the local action's inputs). actionlint is built from the Go
 * module proxy, so this file is part of `npm run test:apps`: .ci/run installs it; elsewhere the test builds it
 * with `go install` when Go is there, else it skips with the reason.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../support/runs.ts';

const run = promisify(execFile);
const WORKFLOW = '.github/workflows/conformance.yml';

function which(cmd: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function findActionlint(): string | undefined {
  const candidates = [process.env['ACTIONLINT'], which('actionlint'), join(process.env['GOBIN'] ?? join(process.env['GOPATH'] ?? join(homedir(), 'go'), 'bin'), 'actionlint')];
  const found = candidates.find((c): c is string => !!c && existsSync(c));
  if (found) return found;
  const go = which('go') ?? (existsSync('/usr/local/go/bin/go') ? '/usr/local/go/bin/go' : undefined);
  if (!go) return undefined;
  execFileSync(go, ['install', 'github.com/rhysd/actionlint/cmd/actionlint@v1.7.12'], { stdio: 'ignore', timeout: 600_000 });
  return candidates.slice(2).find((c): c is string => !!c && existsSync(c));
}

const actionlint = findActionlint();
if (!actionlint) {
  if (process.env['CI']) throw new Error('actionlint is missing: .ci/run installs it with go install');
  console.log('skipping the actionlint checks: no actionlint and no Go to build it');
}

describe.skipIf(!actionlint)('actionlint', () => {
  test('the action and the workflow pass actionlint', async () => {
    const { stdout } = await run(actionlint!, ['-no-color', WORKFLOW], { cwd: ROOT });
    expect(stdout).toBe('');
  });

  test('actionlint does check the local action: an input it does not define is an error', async () => {
    const bad = readFileSync(join(ROOT, WORKFLOW), 'utf8').replace('shard: ${{ matrix.shard }}/4', 'shardz: x');
    const child = execFile(actionlint!, ['-no-color', '-stdin-filename', WORKFLOW, '-'], { cwd: ROOT });
    child.stdin!.end(bad);
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(out).toContain('input "shardz" is not defined in action "Customer service conformance"');
  });
});
