import type { Exchange, Finding, Operation } from '../model.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/** Statuses that say nothing of the method: credentials refused before routing, a rate limit. */
const BEFORE_ROUTING = new Set([401, 403, 407, 429]);

/**
 * A request with a method the contract documents for no operation of the path (GET, TRACE, QUERY, OPTIONS; the
 * unsafe ones with --allow-irreversible: execute/phases/coverage-phase.ts) is answered as HTTP says an unsupported method is (RFC 9110 §15.5.6): 405 with an
 * `Allow` header listing the methods the resource supports (a MUST), or 501 for a method the server does not
 * know. A 405 without `Allow`, or whose `Allow` leaves out a method the contract documents there, and a server
 * error are errors; another 4xx is a warning, since the contract says nothing of undocumented methods (a 404
 * where the path names a record that may not exist says nothing, and is not reported). A method answered with
 * success is served: the hidden-endpoint check reports it. An OPTIONS answered with success is how servers announce their methods:
 * only an Allow that leaves out a documented method, or lists one the contract does not document, is reported (a
 * warning: no MUST governs it).
 */
export const unsupportedMethod: Check = {
  id: 'unsupported-method',
  scope: 'intent',
  appliesTo: ['unsupported-method'],
  run(ctx) {
    const probe = ctx.unsupportedMethod;
    if (!probe) return [];
    const { status, headers } = ctx.exchange.response;
    const method = ctx.exchange.request.method.toUpperCase();
    const where = `${method} ${ctx.operation.path}`;
    const expected = '405 with an Allow header (or 501)';
    if (status === 501) return [];
    if (status >= 500) return [finding(ctx, 'unsupported-method', 'error', `${where} (a method the contract does not document for the path) answered ${status}, a server error.`, { expected, actual: status })];
    // An Allow header (a 405's, or the one a successful OPTIONS announces the methods with) that leaves out a method
    // the contract documents for the path misleads every client that reads it.
    // One that lists a method the contract does not document there says the deployment serves it: a warning (the
    // contract says nothing of undocumented methods). HEAD and OPTIONS are HTTP's own, on every resource.
    const allowLeavesOut = (allow: string, severity: 'error' | 'warning') => {
      const listed = new Set(allow.toUpperCase().split(/[\s,]+/).filter(Boolean));
      const left = probe.documented.filter((m) => !listed.has(m));
      const known = new Set([...probe.documented, ...(probe.covered ?? []), 'OPTIONS', 'HEAD']);
      const more = [...listed].filter((m) => !known.has(m));
      const out = [];
      if (left.length > 0) out.push(finding(ctx, 'unsupported-method', severity, `${where} answered ${status} with "Allow: ${allow}", which leaves out ${left.join(', ')}: documented for this path${severity === 'error' ? ' (a 405 must list the methods the resource supports, RFC 9110 §15.5.6)' : ''}.`, { expected: `Allow listing ${probe.documented.join(', ')}`, actual: allow }));
      if (more.length > 0) out.push(finding(ctx, 'unsupported-method', 'warning', `${where} answered ${status} with "Allow: ${allow}", which lists ${more.join(', ')}: not documented for this path (the deployment says it serves ${more.length > 1 ? 'them' : 'it'}).`, { expected: `Allow listing ${probe.documented.join(', ')}`, actual: allow }));
      return out;
    };
    if (status === 405) {
      const allow = headers['allow'];
      if (allow === undefined) return [finding(ctx, 'unsupported-method', 'error', `${where} answered 405 without the Allow header a 405 must carry (RFC 9110 §15.5.6).`, { expected, actual: '405 without Allow' })];
      return allowLeavesOut(allow, 'error');
    }
    if (BEFORE_ROUTING.has(status)) return [];
    if (status >= 200 && status < 300) {
      // Any other method served is the hidden-endpoint check's (an error), not a second finding here.
      if (method === 'OPTIONS') return headers['allow'] === undefined ? [] : allowLeavesOut(headers['allow'], 'warning');
      return [];
    }
    if (status === 404 && probe.recordUnknown) return [];
    return [finding(ctx, 'unsupported-method', 'warning', `${where} (a method the contract does not document for the path) answered ${status}, not 405.`, { expected, actual: status })];
  },
};

/**
 * A probe whose connection the server cut without an answer, every time (Exchange error kind 'dropped'): not the
 * answer HTTP asks for, but no proof of a crash either (a front that drops a method it does not route, a parser
 * that does not know it): a warning of this check, not a server error.
 */
export function cutProbe(exchange: Exchange, operation: Operation): Finding[] {
  if (exchange.error?.kind !== 'dropped') return [];
  const method = exchange.request.method.toUpperCase();
  return [
    {
      check: 'unsupported-method',
      severity: 'warning',
      operationId: operation.operationId,
      method: operation.method,
      path: operation.path,
      message: `${method} ${operation.path} (a method the contract does not document for the path): the connection was closed without an answer, every time (${exchange.error.message}); HTTP answers 405 with an Allow header, or 501.`,
      expected: '405 with an Allow header (or 501)',
      actual: 'connection closed without an answer',
    },
  ];
}
