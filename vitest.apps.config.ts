import { defineConfig } from 'vitest/config';
import { APP_TESTS, shared } from './vitest.config.ts';

// npm run test:apps: the tests that build or download (the list and why are in vitest.config.ts). One file at a
// time: each runs a published application and the engine against it, both busy, under the runs' time limits.
export default defineConfig({ test: { ...shared, include: APP_TESTS, maxWorkers: 1 } });
