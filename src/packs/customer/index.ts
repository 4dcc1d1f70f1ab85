/**
 * The Customer pack: the Customer domain service and the foreign-trade service (their contracts, the platform's
 * profile, examples, catalog, waivers, consumer pacts and provider states, scenario suites, the embedded reference
 * service with its OTP source, and `--foreign-trade-base-url`). The engine (src/runner) knows none of it.
 */
import { fileURLToPath } from 'node:url';
import type { Pack } from '../../runner/pack.ts';

/** The repository root: src/packs/customer and its bundle (dist/runner/cli) are both three levels below it. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const contract = (file: string) => `${ROOT}contract/${file}`;

export const customerPack: Pack = {
  name: 'customer',
  title: 'the Customer domain service and the foreign-trade service',
  services: ['customer-service', 'foreign-trade-service'],
  primaryService: 'customer-service',
  contracts: [contract('customer-service.openapi.yaml'), contract('foreign-trade-service.openapi.yaml')],
  profile: contract('profile.yaml'),
  examples: contract('examples.yaml'),
  catalog: contract('catalog.yaml'),
  waivers: contract('waivers.yaml'),
  pacts: contract('pacts'),
  suites: { root: ROOT, include: ['suites/scenarios/**/*.test.ts'], exclude: ['suites/pact/**', 'suites/generated/**'] },
  baseUrlOptions: [{ flag: '--foreign-trade-base-url', service: 'foreign-trade-service', description: 'foreign-trade-service base URL' }],
  providerStates: async () => (await import('./provider-states.ts')).PROVIDER_STATES,
  // A record already gone: besides 404, the platform's 400 ERR_PLAT_4 ("not found").
  goneAnswers: [{ status: 400, code: 'ERR_PLAT_4' }],
  otpFields: ['oneTimePassword', 'otp'],
  async startReference({ token }) {
    const { startReferenceService, OTP_ROUTE, PACT_STATES_ROUTE } = await import('../../reference-service/index.ts');
    const service = await startReferenceService({ token });
    return {
      baseUrls: { 'customer-service': service.customerBaseUrl, 'foreign-trade-service': service.foreignTradeBaseUrl },
      otpSourceUrl: `${service.url}${OTP_ROUTE}`,
      stateChangeUrl: (provider) => `${service.url}${PACT_STATES_ROUTE}/${encodeURIComponent(provider)}`,
      close: () => service.close(),
    };
  },
};
