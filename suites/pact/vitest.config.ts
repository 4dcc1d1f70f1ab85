import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

// Consumer pact tests: `npx vitest run --config suites/pact/vitest.config.ts`.
// They write contract/pacts/<consumer>-<provider>.json, or PACT_OUTPUT_DIR when it is set.
export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  test: {
    include: ['suites/pact/consumers/**/*.pact.test.ts'],
    globalSetup: ['suites/pact/consumers/global-setup.ts'],
    testTimeout: 60_000,
    env: { PACT_DO_NOT_TRACK: 'true', NO_COLOR: '1' },
  },
});
