/**
 * The peers the bench measures the CLI against, installed on first use into node_modules/.cache (never into the
 * project's dependencies): Dredd from npm, Schemathesis from PyPI in a venv. A peer that cannot be installed (no
 * network, no python3 venv) is reported with the reason, and its rows are left out.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

export interface Peer {
  /** The program and the arguments before the peer's own. */
  command: string[];
  version: string;
}

export type Installed = Peer | { missing: string };

const DREDD = 'dredd@14.1.0';
const SCHEMATHESIS = 'schemathesis==4.32.5';

function run(command: string, args: string[], cwd?: string): { ok: boolean; output: string } {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600_000 });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}` };
}

export function dredd(cache: string): Installed {
  const dir = join(cache, 'dredd');
  const bin = join(dir, 'node_modules', 'dredd', 'bin', 'dredd');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const r = run('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', DREDD]);
    if (!r.ok || !existsSync(bin)) return { missing: `npm install ${DREDD} failed: ${r.output.trim().split('\n').at(-1) ?? ''}` };
  }
  const version = /\d+\.\d+\.\d+/.exec(run(process.execPath, [bin, '--version']).output)?.[0] ?? DREDD;
  return { command: [process.execPath, bin], version: `Dredd ${version}` };
}

export function schemathesis(cache: string): Installed {
  const dir = join(cache, 'schemathesis');
  const bin = join(dir, 'bin', 'st');
  if (!existsSync(bin)) {
    const venv = run('python3', ['-m', 'venv', dir]);
    if (!venv.ok) return { missing: `python3 -m venv failed: ${venv.output.trim().split('\n').at(-1) ?? ''}` };
    const pip = run(join(dir, 'bin', 'pip'), ['install', '--quiet', SCHEMATHESIS]);
    if (!pip.ok || !existsSync(bin)) return { missing: `pip install ${SCHEMATHESIS} failed: ${pip.output.trim().split('\n').at(-1) ?? ''}` };
  }
  const version = /\d+\.\d+\.\d+/.exec(run(bin, ['--version']).output)?.[0] ?? SCHEMATHESIS;
  return { command: [bin], version: `Schemathesis ${version}` };
}

/**
 * A copy of an OpenAPI description that Dredd can expand: Dredd stops on a path parameter without an example
 * ("No example value for required parameter"), so each gets one from its schema (example, default, first enum
 * value, else a value of its type). Nothing else changes.
 */
export function dreddReady(specFile: string, out: string): string {
  const doc = parse(readFileSync(specFile, 'utf8')) as Record<string, unknown>;
  const components = (doc['components'] as { parameters?: Record<string, Record<string, unknown>> } | undefined)?.parameters ?? {};
  const valueOf = (schema: Record<string, unknown> | undefined): unknown => {
    if (!schema) return '1';
    if (schema['example'] !== undefined) return schema['example'];
    if (schema['default'] !== undefined) return schema['default'];
    if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
    if (schema['format'] === 'uuid') return '00000000-0000-4000-8000-000000000001';
    return schema['type'] === 'integer' || schema['type'] === 'number' ? 1 : '1';
  };
  const fill = (p: Record<string, unknown>) => {
    if (p['in'] === 'path' && p['example'] === undefined && p['examples'] === undefined) p['example'] = valueOf(p['schema'] as Record<string, unknown> | undefined);
  };
  Object.values(components).forEach(fill);
  for (const item of Object.values((doc['paths'] as Record<string, Record<string, unknown>>) ?? {})) {
    for (const value of Object.values(item)) {
      const list = (value as { parameters?: unknown } | null)?.parameters ?? (Array.isArray(value) ? value : undefined);
      if (Array.isArray(list)) for (const p of list) if (p && typeof p === 'object' && !('$ref' in p)) fill(p as Record<string, unknown>);
    }
  }
  writeFileSync(out, stringify(doc));
  return out;
}
