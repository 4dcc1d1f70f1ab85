import type { Check } from './types.ts';
import { finding } from './types.ts';

/** After a successful delete, the record is no longer served as a success. */
export const useAfterDelete: Check = {
  id: 'use-after-delete',
  appliesTo: ['use-after-delete'],
  run(ctx) {
    const read = ctx.lifecycle?.readBack;
    if (!read) return [];
    const { status } = read.response;
    if (status < 200 || status > 299) return [];
    return [
      finding(ctx, 'use-after-delete', 'error', `The deleted record is still served: ${read.request.method} ${new URL(read.request.url).pathname} answered ${status}.`, {
        expected: 'not 2xx',
        actual: status,
      }),
    ];
  },
};
