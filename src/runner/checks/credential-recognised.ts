import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * A call that carried the run's own credential is not answered 401 (WFC 205, "wrongly not recognised as
 * authenticated"): 401 says the caller is not authenticated (RFC 9110 §15.5.2), which a credential other operations
 * accept is; a caller that may not do this is answered 403. Judged as the answers come; a credential the deployment
 * refused on every call that carried it is a configuration problem instead, said once for the run (its cases are
 * untested: execute/diagnose.ts), so what stands is a 401 from an operation while others accepted the credential.
 */
export const credentialRecognised: Check = {
  id: 'credential-recognised',
  scope: 'response',
  run(ctx) {
    const schemes = ctx.ownCredential;
    if (!schemes || ctx.exchange.response.status !== 401 || ctx.access) return [];
    const { method } = ctx.exchange.request;
    const where = `${method} ${new URL(ctx.exchange.request.url).pathname}`;
    const which = schemes.map((s) => `"${s}"`).join(', ');
    return [
      finding(ctx, 'credential-recognised', 'error', `${where} answered 401 to the run's own credential for ${schemes.length > 1 ? 'security schemes' : 'security scheme'} ${which}, which other operations accept: an authenticated caller is told it is not (403 says it may not do this).`, {
        expected: 'not 401 (the credential is valid: 403 where the caller may not)',
        actual: 401,
      }),
    ];
  },
};
