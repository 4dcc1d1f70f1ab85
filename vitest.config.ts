import { defineConfig } from 'vitest/config';

// The project's own tests (npm test). The conformance suites under suites/ are run by the CLI, not here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/support/build-dist.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    env: { PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' },
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
