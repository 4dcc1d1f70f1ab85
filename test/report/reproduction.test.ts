/**
 * Reproduction reproduces: the bash script results.json gives for a failing case that needed setup calls is
 * run with bash against the faulty deployment after the run (which deleted everything it created). It
 * creates what the call needs, shows the same fault, and deletes what it created; with jq, node and python3
 * out of reach it still works (grep/sed).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Handler, Reply } from '../../src/reference-service/index.ts';
import type { CaseResult, RunResults } from '../../src/runner/model.ts';
import { objectBody, operation, removeTemps, requireResults, runCli, startVariant, tempDir, TOKEN, type StartedVariant } from '../support/runs.ts';

function onSuccess(change: (reply: Reply) => Reply): Handler {
  return async (_req, next) => {
    const reply = await next();
    return reply.status === 200 ? change(reply) : reply;
  };
}

interface Bash {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(script: string, env: Record<string, string>): Promise<Bash> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A PATH with only what a plain Debian with curl has (no jq, node or python3). */
function plainPath(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const tool of ['bash', 'curl', 'mktemp', 'grep', 'sed', 'head', 'cat', 'rm']) {
    for (const where of ['/usr/bin', '/bin']) {
      try {
        symlinkSync(join(where, tool), join(dir, tool));
        break;
      } catch {
        /* try the next place */
      }
    }
  }
  return dir;
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

describe('the reproduction script of a case with setup calls', () => {
  let started: StartedVariant;
  let results: RunResults;
  let positive: CaseResult;

  beforeAll(async () => {
    // The reader answers sequenceNumber as a string: its positive case needs an address type and a field.
    started = await startVariant({
      handlers: {
        'get-address-type-field-by-id': onSuccess((reply) => ({ ...reply, body: { ...objectBody(reply), sequenceNumber: String(objectBody(reply)['sequenceNumber']) } })),
      },
    });
    const { args, env } = started.target('env');
    const run = await runCli([...args, '--quiet', '--include', 'get-address-type-field-by-id'], { env });
    results = requireResults(run);
    const found = operation(results, 'get-address-type-field-by-id').cases.find((c) => c.name === 'positive');
    if (!found) throw new Error('no positive case');
    positive = found;
  }, 180_000);

  afterAll(async () => {
    await started?.close();
    await removeTemps();
  });

  test('results.json carries it: creates, the call, clean-up; the token only as $CONFORMANCE_TOKEN', () => {
    expect(positive.outcome).toBe('failed');
    const script = positive.reproduction ?? '';
    expect(script).toMatch(/^#!\/usr\/bin\/env bash\n/);
    expect(script).not.toContain(TOKEN);
    expect(script).toContain('${CONFORMANCE_TOKEN}');
    // Two creates (address type, field) among the setup steps, then the call.
    const steps = [...script.matchAll(/==> (step \d+ of \d+|the call): ([A-Z]+)/g)].map((m) => `${m[1]?.startsWith('step') ? 'step' : 'call'} ${m[2]}`);
    expect(steps.filter((s) => s === 'step POST')).toHaveLength(2);
    expect(steps.at(-1)).toBe('call GET');
    expect(script).toContain('created+=(');
    // The calls come first (in a function run at the end), the helpers after them.
    expect(script.indexOf('==> step 1 of')).toBeLessThan(script.indexOf('json_get() {'));
    // The call's ids come from the creates' answers, not from the run (whose records are deleted).
    const callLine = script.split('\n').map((l) => l.trim()).find((l) => l.startsWith(`call ${steps.length} `)) ?? '';
    expect(callLine).toContain('"${V1}"');
    expect(callLine).toContain('"${V2}"');
    expect(callLine.match(uuid)).toBeNull();
  });

  test('run with bash after the run, it shows the fault again and deletes what it created', async () => {
    const run = await bash(positive.reproduction ?? 'exit 99', { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CONFORMANCE_TOKEN: TOKEN });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/"sequenceNumber":"\d+"/);
    expect(run.stdout).toContain('reproduced: HTTP 200, as in the run');
    // Two records created, two deleted (the field first).
    expect(run.stdout.match(/clean-up: HTTP 2\d\d/g)).toHaveLength(2);
    expect(run.stdout).not.toContain(TOKEN);
  });

  test('without jq, node or python3 (grep and sed only) it still reproduces', async () => {
    const dir = plainPath(join(await tempDir(), 'bin'));
    const run = await bash(positive.reproduction ?? 'exit 99', { PATH: dir, CONFORMANCE_TOKEN: TOKEN });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/"sequenceNumber":"\d+"/);
    expect(run.stdout.match(/clean-up: HTTP 2\d\d/g)).toHaveLength(2);
  });

  test('without the token it stops with one line and sends nothing', async () => {
    const run = await bash(positive.reproduction ?? 'exit 99', { PATH: process.env['PATH'] ?? '/usr/bin:/bin' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/CONFORMANCE_TOKEN/);
    expect(run.stdout).toBe('');
  });

  test('against a deployment whose reader was fixed, it says it did not reproduce', async () => {
    const fixed = await startVariant();
    try {
      const script = (positive.reproduction ?? '').split(started.svc.url).join(fixed.svc.url);
      const run = await bash(script, { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CONFORMANCE_TOKEN: TOKEN });
      // Same status (200), but the body now holds a number: the script prints it for the reader to see.
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/"sequenceNumber":\d+/);
    } finally {
      await fixed.close();
    }
  });
});
