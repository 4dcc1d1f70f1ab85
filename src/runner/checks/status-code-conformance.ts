import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { finding, specLocation } from './types.ts';

/**
 * The status must be one the operation documents (exact code, range or default), whatever the request was: a
 * refusal of invalid input with an undocumented 400 is an undocumented answer too. A platform profile may list
 * statuses every operation of its services may answer (`commonStatuses`). Refused credentials may be answered 401
 * or 403 (RFC 9110 §15.5.2, §15.5.4) documented or not: auth-enforced judges which one.
 */
export const statusCodeConformance: Check = {
  id: 'status-code-conformance',
  scope: 'response',
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (responseFor(ctx.operation, status)) return [];
    if (ctx.profile.commonStatuses?.includes(status)) return [];
    if (ctx.expectation === 'auth-rejected' && (status === 401 || status === 403)) return [];
    const documented = ctx.operation.responses.map((r) => r.status);
    return [
      finding(ctx, 'status-code-conformance', 'error', `Status ${status} is not documented for ${ctx.operation.operationId}.`, {
        expected: [...documented, ...(ctx.profile.commonStatuses ?? []).map(String)],
        actual: status,
        specLocation: specLocation(ctx.operation, `${ctx.operation.pointer}/responses`),
      }),
    ];
  },
};
