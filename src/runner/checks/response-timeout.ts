import type { Check } from './types.ts';

/** An answer must come within --timeout: a request that hangs is the service's doing (a network error is not). */
export const responseTimeout: Check = {
  id: 'response-timeout',
  scope: 'response',
  run: () => [],
  unanswered(ctx) {
    const { exchange, operation } = ctx;
    if (exchange.error?.kind !== 'timeout') return [];
    return [
      {
        check: 'response-timeout',
        severity: 'error',
        operationId: operation.operationId,
        method: operation.method,
        path: operation.path,
        message: `No response: ${exchange.error.message}.`,
        expected: ctx.timeoutMs !== undefined ? `a response within ${ctx.timeoutMs} ms` : 'a response',
        actual: 'timeout',
      },
    ];
  },
};
