import { rmSync } from 'node:fs';
import path from 'node:path';
import { pactOutputDir } from './pact-dir.ts';

/**
 * Pact merges new interactions into an existing pact file, so an interaction removed from a test would live
 * on in the published pact. Each run therefore starts by removing the pact files these consumers own.
 */
export const OWNED_PACT_FILES = [
  'onboarding-portal-customer-service.json',
  'trade-finance-back-office-foreign-trade-service.json',
];

export default function setup(): void {
  process.env['PACT_DO_NOT_TRACK'] = 'true';
  const dir = pactOutputDir();
  for (const file of OWNED_PACT_FILES) rmSync(path.join(dir, file), { force: true });
}
