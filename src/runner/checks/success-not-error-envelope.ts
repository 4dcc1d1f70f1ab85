import { atPointer, finding } from './types.ts';
import type { Check } from './types.ts';

/** A success status must not carry the platform error envelope: a failure dressed as a success is a failure. */
export const successNotErrorEnvelope: Check = {
  id: 'success-not-error-envelope',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const { codePointer, appliesTo } = ctx.profile.errorEnvelope;
    if (response.status < 200 || response.status > 299 || !appliesTo.includes(ctx.operation.service)) return [];
    const code = atPointer(response.json, codePointer);
    if (typeof code !== 'string') return [];
    return [
      finding(ctx, 'success-not-error-envelope', 'error', `Status ${response.status} carries the platform error envelope (${codePointer} = ${code}).`, {
        expected: 'a success body',
        actual: response.json,
      }),
    ];
  },
};
