import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root (src/runner/cli and dist/runner/cli are the same depth below it). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The tool as reports name it: its command, and the version package.json gives. */
export function toolIdentity(): { name: string; version: string } {
  try {
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version?: string };
    return { name: 'conformance', version: pkg.version ?? '0.0.0' };
  } catch {
    return { name: 'conformance', version: '0.0.0' };
  }
}
