import { responseFor } from '../spec/load.ts';
import type { Check } from './types.ts';
import { finding, specLocation } from './types.ts';

/** The status must be one the operation documents (exact code, range or default). */
export const statusCodeConformance: Check = {
  id: 'status-code-conformance',
  appliesTo: ['success', 'rejected'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (responseFor(ctx.operation, status)) return [];
    // A refusal that any 4xx expresses correctly is not held to the documented statuses.
    if (ctx.anyClientError && status >= 400 && status < 500) return [];
    const documented = ctx.operation.responses.map((r) => r.status);
    return [
      finding(ctx, 'status-code-conformance', 'error', `Status ${status} is not documented for ${ctx.operation.operationId}.`, {
        expected: documented,
        actual: status,
        specLocation: specLocation(ctx.operation, `${ctx.operation.pointer}/responses`),
      }),
    ];
  },
};
