import { droppedAlone } from './dropped.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/** Any 5xx is a server error, whatever was sent (a documented 500 still means the call broke the service). */
export const notAServerError: Check = {
  id: 'not-a-server-error',
  scope: 'response',
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (status < 500) return [];
    if (ctx.coverage?.unvaried) {
      // The request without the variation breaks the server too: the varied part is not what broke it.
      return [finding(ctx, 'not-a-server-error', 'error', `The deployment answered ${status}, a server error, to the operation's valid request, with or without a variation (${ctx.coverage.label} among them).`, { expected: '< 500', actual: status })];
    }
    if (ctx.coverage) {
      return [
        finding(ctx, 'not-a-server-error', 'error', `The deployment answered ${status}, a server error, to ${ctx.expectation === 'rejected' ? 'an invalid request' : ctx.coverage.unsettled ? 'a request whose acceptance the contract does not settle' : 'a schema-valid request'} (${ctx.coverage.label}; smallest failing request of ${ctx.coverage.sent} sent).`, {
          expected: '< 500',
          actual: status,
          varied: variedPart(ctx.coverage.label),
        }),
      ];
    }
    return [finding(ctx, 'not-a-server-error', 'error', `The deployment answered ${status}, a server error.`, { expected: '< 500', actual: status })];
  },
  // A request whose connection was cut in flight as the deployment stopped answering (execute/target-down.ts
  // noteAnswer): the likely cause, a server error without a status. One cut again when sent alone while the
  // deployment answered others is the connection-dropped check's.
  unanswered(ctx) {
    const { exchange, operation } = ctx;
    if (exchange.error?.kind !== 'dropped' || droppedAlone(exchange)) return [];
    return [
      {
        check: 'not-a-server-error',
        severity: 'error',
        operationId: operation.operationId,
        method: operation.method,
        path: operation.path,
        message: `No response${ctx.coverage ? ` to ${ctx.coverage.unvaried ? `the operation's valid request, with or without a variation (${ctx.coverage.label} among them)` : ctx.coverage.label}` : ''}: ${exchange.error.message}. The request breaks the deployment (a handler that failed on it, or something in front of the service that cuts such requests).`,
        expected: 'a response',
        actual: 'connection closed without an answer',
        ...(ctx.coverage && !ctx.coverage.unvaried ? { varied: variedPart(ctx.coverage.label) } : {}),
      },
    ];
  },
};

/** The part a coverage label varies: "body.name" of `body.name = "x" (…)`, "path.id" of `path.id left out (…)`. */
export function variedPart(label: string): string {
  return /^(.+?)(?: = | left out\b| \(|: )/.exec(label)?.[1] ?? label;
}
