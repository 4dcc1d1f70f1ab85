import { listsRecord, readerAtFault } from './created-resource-readable.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * After a successful delete, the record is no longer served as a success, nor listed under its parent. (A write to
 * it that succeeds is its writer's defect: execute/phases/stateful.ts reports it on that operation.)
 */
export const useAfterDelete: Check = {
  id: 'use-after-delete',
  scope: 'intent',
  appliesTo: ['use-after-delete'],
  run(ctx) {
    const out = [];
    const read = ctx.lifecycle?.readBack;
    if (read && read.response.status >= 200 && read.response.status <= 299) {
      out.push(
        finding(ctx, 'use-after-delete', 'error', `The deleted record is still served: ${read.request.method} ${new URL(read.request.url).pathname} answered ${read.response.status}.`, {
          expected: 'not 2xx',
          actual: read.response.status,
        }),
      );
    }
    for (const list of (ctx.reads ?? []).filter((r) => r.role === 'list')) {
      const { status, json } = list.exchange.response;
      if (readerAtFault(list, ctx.profile) || status < 200 || status > 299) continue;
      if (listsRecord(json, list.id)) {
        out.push(finding(ctx, 'use-after-delete', 'error', `The deleted record ${list.id} is still listed by ${list.operation.operationId}.`, { expected: 'not listed', actual: list.id }));
      }
    }
    return out;
  },
};
