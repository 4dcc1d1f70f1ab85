import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { call } from './support.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const children: ChildProcess[] = [];

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[], env: Record<string, string | undefined> = {}): Run {
  const childEnv: Record<string, string | undefined> = { ...process.env, CONFORMANCE_TOKEN: undefined, ...env };
  for (const key of Object.keys(childEnv)) if (childEnv[key] === undefined) delete childEnv[key];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/reference-service/main.ts', ...args], { cwd: repoRoot, env: childEnv });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function firstLine(r: Run, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!r.stdout().includes('\n')) {
    if (Date.now() > deadline) throw new Error(`no output in ${timeoutMs} ms; stderr: ${r.stderr()}`);
    if (r.child.exitCode !== null) throw new Error(`exited with ${r.child.exitCode}; stderr: ${r.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return r.stdout().split('\n')[0] ?? '';
}

function withTimeout<T>(p: Promise<T>, ms = 30_000): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms))]);
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('reference-service CLI', () => {
  test.each([['SIGTERM'], ['SIGINT']] as const)(
    'starts with --token, prints the URLs (never the token), serves, and exits 0 on %s',
    async (signal) => {
      const r = run(['--port', '0', '--token', 'cli-secret-token']);
      const line = await firstLine(r);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+) /.exec(line)?.[1];
      expect(url).toBeDefined();
      expect(line).toContain(`${url}/customer-service`);
      expect(line).toContain(`${url}/foreign-trade-service`);
      expect(line).not.toContain('cli-secret-token');
      const ok = await call(`${url}/customer-service/caches/keys`, 'GET', { auth: 'Bearer cli-secret-token' });
      expect(ok.status).toBe(200);
      const denied = await call(`${url}/customer-service/caches/keys`, 'GET');
      expect(denied.status).toBe(401);
      r.child.kill(signal);
      expect(await withTimeout(r.exit)).toBe(0);
      expect(r.stdout().trim().split('\n')).toHaveLength(1);
    },
  );

  test('takes the token from CONFORMANCE_TOKEN and honours --host', async () => {
    const r = run(['--port', '0', '--host', '127.0.0.1'], { CONFORMANCE_TOKEN: 'env-token' });
    const url = /listening on (\S+) /.exec(await firstLine(r))?.[1];
    expect((await call(`${url}/foreign-trade-service/reference-numbers/validate`, 'POST', { auth: 'Bearer env-token', json: {} })).json).toEqual({
      IsValid: false,
    });
    r.child.kill('SIGTERM');
    expect(await withTimeout(r.exit)).toBe(0);
  });

  test.each([
    ['no token at all', ['--port', '0'], /token/],
    ['an empty --token', ['--port', '0', '--token', ''], /token/],
    ['a non-numeric --port', ['--port', 'abc', '--token', 't'], /--port/],
    ['an out-of-range --port', ['--port', '70000', '--token', 't'], /--port/],
    ['a negative --port', ['--port', '-1', '--token', 't'], /port/],
    ['an unknown option', ['--prot', '1', '--token', 't'], /unknown option/],
  ])('%s → one-line error, exit 2', async (_label, args, message) => {
    const r = run(args);
    expect(await withTimeout(r.exit)).toBe(2);
    const lines = r.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(r.stdout()).toBe('');
  });
});
