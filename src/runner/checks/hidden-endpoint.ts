import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * WFC 210, a hidden accessible endpoint: a request with a method the contract documents for no operation of the
 * path (the unsupported-method probes: execute/phases/coverage-phase.ts) that the deployment answers with success
 * (2xx) acted on a call no client of the contract knows of, where it had to fail for the credentials (401, 403) or
 * say the method is not there (404, 405, 501). Any other refusal (a 400, a 404 about the record) does not act: the
 * unsupported-method check says what HTTP expects of it. HTTP's own are not hidden: OPTIONS answered with success
 * (how a server announces its methods; unsupported-method judges its Allow), HEAD where GET is documented (a GET
 * without its body, RFC 9110 §9.3.2). A TRACE answered with success is served: it echoes the request back (RFC
 * 9110 §9.3.8), headers and credentials included, on a path the contract gives no such method (Cross-Site
 * Tracing), so it is a hidden endpoint too.
 */
export const hiddenEndpoint: Check = {
  id: 'hidden-endpoint',
  scope: 'intent',
  appliesTo: ['unsupported-method'],
  run(ctx) {
    const probe = ctx.unsupportedMethod;
    if (!probe) return [];
    const { status } = ctx.exchange.response;
    if (status < 200 || status >= 300) return [];
    const method = ctx.exchange.request.method.toUpperCase();
    if (method === 'OPTIONS') return [];
    const known = new Set([...probe.documented, ...(probe.covered ?? [])]);
    if (method === 'HEAD' && known.has('GET')) return [];
    const documented = probe.documented.join(', ');
    return [
      finding(ctx, 'hidden-endpoint', 'error', `${method} ${ctx.operation.path} answered ${status}: the deployment serves a method the contract does not document for the path (it documents ${documented}), where a refusal was expected (405 or 501, a 404, or 401/403 for the credentials).`, {
        expected: '405 with an Allow header (or 501, 404, 401, 403)',
        actual: status,
      }),
    ];
  },
};
