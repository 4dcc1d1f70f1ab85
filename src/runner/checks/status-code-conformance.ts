import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { finding, specLocation } from './types.ts';

/**
 * The status must be one the operation documents (exact code, range or default), whatever the request was: a
 * refusal of invalid input with an undocumented 400 is an undocumented answer too. A platform profile may list
 * statuses every operation of its services may answer (`commonStatuses`). A refused credential is held to what the
 * operation documents too (a 403 where only 401 is declared is undocumented), unless the profile says its platform
 * may answer any of its reject statuses everywhere (`auth.rejectStatusesEverywhere`). An operation that documents
 * neither 401 nor 403 says nothing of how it refuses credentials: either is taken there (RFC 9110 §15.5.2, §15.5.4).
 * auth-enforced judges which of the reject statuses came.
 */
export const statusCodeConformance: Check = {
  id: 'status-code-conformance',
  scope: 'response',
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (responseFor(ctx.operation, status)) return [];
    if (ctx.profile.commonStatuses?.includes(status)) return [];
    if (ctx.expectation === 'auth-rejected' && refusalFree(ctx.operation.responses, ctx.profile.auth, status)) return [];
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

/**
 * A refused credential's status the operation need not document: one of the platform's reject statuses where its
 * profile allows them everywhere, or 401/403 where the operation documents neither (it says nothing of refusals).
 */
function refusalFree(responses: ReadonlyArray<{ status: string }>, auth: { rejectStatuses: number[]; rejectStatusesEverywhere?: boolean }, status: number): boolean {
  if (auth.rejectStatusesEverywhere) return auth.rejectStatuses.includes(status);
  return (status === 401 || status === 403) && !responses.some((r) => r.status === '401' || r.status === '403');
}
