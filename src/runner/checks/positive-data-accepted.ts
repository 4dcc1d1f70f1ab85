import { isDeepStrictEqual } from 'node:util';
import type { Check } from './types.ts';
import { atPointer, finding } from './types.ts';
import { variedPart } from './not-a-server-error.ts';
import { offersPassword } from '../plan/named-values.ts';
import { answerErrorText } from './error-text.ts';

/** Refusals that come before the input is looked at: credentials, the method, the media types, a rate limit. */
const BEFORE_INPUT = new Set([401, 403, 405, 406, 415, 429]);

function refusesMadeUpCredentials(ctx: Parameters<Check['run']>[0]): boolean {
  const op = ctx.operation;
  if (op.secured || !op.responses.some((r) => r.status === '401')) return false;
  try {
    return offersPassword(JSON.parse(ctx.exchange.request.body ?? 'null'));
  } catch {
    return false;
  }
}

/**
 * A valid request must not be refused (4xx), and its success carries the values the examples expect. A refusal is an error, in every
 * phase that sends valid requests (the positive case, the coverage and fuzzing phases' valid ones), unless it can
 * depend on stored data: the request names a record the run did not get from the service (a path value, a
 * reference field: the record may not exist), the contract does not show a rule it may break (`x-required: not
 * shown`), or the answer is a 409 (a conflict with what the deployment holds); then a warning that says which.
 */
export const positiveDataAccepted: Check = {
  id: 'positive-data-accepted',
  scope: 'intent',
  appliesTo: ['success'],
  run(ctx) {
    const { status, json } = ctx.exchange.response;
    if (status < 200 || status > 299) {
      if (status >= 500) return []; // not-a-server-error reports it
      // A redirect (3xx) or an interim answer is no refusal: whether the contract documents it is
      // status-code-conformance's to judge.
      if (status < 400) return [];
      // Among many generated requests, one naming a record that is not there (any more) is answered 404 or 410 as
      // it should be: the positive case, on the record made for it, says whether the operation serves one.
      if (ctx.coverage && (status === 404 || status === 410)) return [];
      // A 401 to the run's own credential is credential-recognised's to judge (or, refused everywhere, the run's configuration).
      if (status === 401 && ctx.ownCredential) return [];
      // A 401 the operation documents to credentials the run made up (a login's password, on an operation that
      // asks for no credential of the run) refuses them, as it should.
      if (status === 401 && refusesMadeUpCredentials(ctx)) return [];
      const what = ctx.coverage ? ` (${ctx.coverage.label})` : '';
      const madeUp = ctx.madeUpReferences ?? [];
      const unshown = ctx.unshown ?? [];
      const gone = ctx.gone ?? [];
      // A 403 may be about the record a request names (not the caller's to act on), never about a rule of the input.
      const aboutRecord = (madeUp.length > 0 || gone.length > 0) && status === 403;
      if ((madeUp.length > 0 || unshown.length > 0 || gone.length > 0) && (!BEFORE_INPUT.has(status) || aboutRecord)) {
        const why = [
          ...(madeUp.length > 0 ? [`it names ${madeUp.join(', ')}, a record the run did not get from the service: the refusal may be about that record`] : []),
          ...(gone.length > 0 ? [`it names ${gone.join(', ')}: the refusal is about that record`] : []),
          ...(aboutRecord ? [] : unshown.map((u) => `${u}: the refusal may be right`)),
        ];
        return [finding(ctx, 'positive-data-accepted', 'warning', `A ${madeUp.length > 0 || gone.length > 0 ? 'valid request' : 'request valid by the letter of the contract'} was refused with ${status}${what}; ${why.join('; ')}.`, { expected: '2xx', actual: status })];
      }
      if (status === 409) {
        return [finding(ctx, 'positive-data-accepted', 'warning', `A valid request was refused with 409${what}: a conflict with what the deployment holds (it may depend on records the run made).`, { expected: '2xx', actual: status })];
      }
      // Each part whose valid variation is refused is a defect of its own (a blank name, a null id), as a server error
      // is; where the request without the variation was refused too, the variation is not what was refused.
      const said = answerErrorText(json, ctx.exchange.response.body, ctx.exchange.response.headers['content-type']);
      const answer = said ? ` The answer says: "${said}".` : '';
      if (ctx.coverage?.unvaried) {
        return [finding(ctx, 'positive-data-accepted', 'error', `A valid request was rejected with ${status}, as the operation's valid request without its variation was: no variation is the cause (${ctx.coverage.label} among those refused).${answer}`, { expected: '2xx', actual: status })];
      }
      return [finding(ctx, 'positive-data-accepted', 'error', `A valid request was rejected with ${status}${what}.${answer}`, { expected: '2xx', actual: status, ...(ctx.coverage ? { varied: variedPart(ctx.coverage.label) } : {}) })];
    }
    return (ctx.expect ?? [])
      .filter((e) => 'equals' in e && !isDeepStrictEqual(atPointer(json, e.pointer), e.equals))
      .map((e) =>
        finding(ctx, 'positive-data-accepted', 'error', `The response value at ${e.pointer} is not the expected one.`, {
          expected: e.equals,
          actual: atPointer(json, e.pointer) ?? null,
        }),
      );
  },
};
