import { droppedAlone } from './dropped.ts';
import { variedPart } from './not-a-server-error.ts';
import type { Check } from './types.ts';
import { specLocation } from './types.ts';

/**
 * WFC 100 without a status: a request whose connection the deployment closes without an answer on every attempt,
 * again when it is sent alone (no other request of the run in flight), while the deployment answers other requests
 * (execute/caller.ts droppedOrNot decides it). A handler that crashed: Go's net/http and Rust's hyper cut the
 * connection of a request whose handler panicked. A cut whose lone re-send is answered is judged on that answer.
 */
export const connectionDropped: Check = {
  id: 'connection-dropped',
  scope: 'response',
  run: () => [],
  unanswered(ctx) {
    const { exchange, operation, coverage } = ctx;
    if (!droppedAlone(exchange)) return [];
    const sent = coverage ? ` (${coverage.unvaried ? `the operation's valid request, with or without a variation: ${coverage.label} among them` : coverage.label})` : '';
    return [
      {
        check: 'connection-dropped',
        severity: 'error',
        operationId: operation.operationId,
        method: operation.method,
        path: operation.path,
        message: `${exchange.request.method.toUpperCase()} ${operation.path}${sent} got no response: ${exchange.error?.message ?? 'the connection was closed'}; the request breaks the deployment (a handler that crashed on it, or something in front of the service that cuts such requests).`,
        expected: 'a response',
        actual: 'connection closed without an answer',
        specLocation: specLocation(operation),
        ...(coverage && !coverage.unvaried ? { varied: variedPart(coverage.label) } : {}),
      },
    ];
  },
};
