import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root (this file is suites/pact/consumers/pact-dir.ts). */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Where the consumer tests write their pact files: contract/pacts/ (the consumers' published pacts), unless
 * PACT_OUTPUT_DIR names another directory (the project's own tests write to a temporary one and compare).
 */
export function pactOutputDir(): string {
  const override = process.env['PACT_OUTPUT_DIR'];
  return override ? path.resolve(override) : path.join(repoRoot, 'contract', 'pacts');
}
