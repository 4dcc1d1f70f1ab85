/** Runs the conformance CLI as a child process (as a user does) and collects its output. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './support.ts';

export const BIN = path.join(REPO_ROOT, 'bin', 'conformance.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment without any broker or token variables of the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' };
  for (const key of Object.keys(env)) if (key.startsWith('PACT_BROKER_') || key === 'CONFORMANCE_TOKEN') delete env[key];
  return { ...env, ...extra };
}

export function runConformance(args: string[], env: NodeJS.ProcessEnv = cleanEnv(), timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running CLI command and resolves once its stdout matches `ready`. */
export function startConformance(
  args: string[],
  ready: RegExp,
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ child: ChildProcess; match: RegExpExecArray; exited: Promise<CliResult> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let done = false;
    const exited = new Promise<CliResult>((res) => child.on('close', (code) => res({ code, stdout, stderr })));
    const timer = setTimeout(() => {
      if (!done) {
        child.kill('SIGKILL');
        reject(new Error(`not ready within 60 s: ${stdout} ${stderr}`));
      }
    }, 60_000);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      const match = ready.exec(stdout);
      if (match && !done) {
        done = true;
        clearTimeout(timer);
        resolve({ child, match, exited });
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    void exited.then((r) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        reject(new Error(`exited ${r.code} before ready: ${r.stderr || r.stdout}`));
      }
    });
  });
}
