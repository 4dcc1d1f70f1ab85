import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The tests that build or download what npm ci does not bring (published applications built from their
 * registries, the public-description corpus, the JVM Pact verifier from Maven Central, actionlint from the Go
 * module proxy): `npm run test:apps` (vitest.apps.config.ts) runs them; `npm test` runs everything else.
 */
export const APP_TESTS = [
  'test/runs/real-apps.test.ts',
  'test/runs/real-apps-stacks.test.ts',
  'test/runs/real-apps-more.test.ts',
  'test/corpus/corpus.test.ts',
  'test/pact/interop-jvm.test.ts',
  'test/package/actionlint.test.ts',
];

/** What both commands share: the CLI runs compiled JavaScript, built once before any test spawns it. */
export const shared = {
  globalSetup: ['./test/support/build-dist.ts'],
  testTimeout: 120_000,
  hookTimeout: 120_000,
  env: { PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' },
  reporters: ['default', './test/support/summary-reporter.ts'],
};

// The project's own tests (npm test). The conformance suites under suites/ are run by the CLI, not here. One
// test file per core: vitest's default (one fewer than the cores) runs them one at a time on a 2-core machine,
// where most files wait on the servers and CLI runs they start (754 s one at a time, measured; see README).
export default defineConfig({
  test: { ...shared, include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...APP_TESTS], maxWorkers: Math.max(2, availableParallelism()) },
});
