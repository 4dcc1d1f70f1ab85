import { fileURLToPath } from 'node:url';

/** The repository root (src/runner/cli and dist/runner/cli are the same depth below it). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DEFAULT_SPECS = ['contract/customer-service.openapi.yaml', 'contract/foreign-trade-service.openapi.yaml'];
