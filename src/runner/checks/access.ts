import type { Check, CheckContext } from './types.ts';
import { finding } from './types.ts';

const is2xx = (status: number) => status >= 200 && status <= 299;

function what(ctx: CheckContext): string {
  const { method, url } = ctx.exchange.request;
  return `${method} ${new URL(url).pathname}`;
}

/**
 * Object level authorization (BOLA): another identity's call on a record the run created with its own. Where the
 * contract (x-ownership: per-identity) or the profile declares the path's records owned, its success is an error,
 * and a 403 where an unknown record gets 404 is a warning (the answer tells the caller the record exists). Where
 * nothing declares ownership the call is only reported (the access table), never judged.
 */
export const objectAccessAcrossIdentities: Check = {
  id: 'object-access-across-identities',
  scope: 'intent',
  appliesTo: ['object-access'],
  run(ctx) {
    const access = ctx.access;
    if (!access?.owned) return [];
    const { status } = ctx.exchange.response;
    const owner = access.owner ?? 'another identity';
    if (is2xx(status)) {
      return [
        finding(ctx, 'object-access-across-identities', 'error', `Identity ${access.identity} was served a record identity ${owner} created: ${what(ctx)} answered ${status}, where the contract declares the records of ${ctx.operation.path} owned by the identity that created them.`, {
          expected: 'refused (404 or 403)',
          actual: status,
        }),
      ];
    }
    if (status === 403 && access.unknownRecordStatus === 404) {
      return [
        finding(ctx, 'object-access-across-identities', 'warning', `Identity ${access.identity} got 403 for a record of identity ${owner} where a record that does not exist gets 404: the answer tells the caller that the record exists.`, {
          expected: 404,
          actual: 403,
        }),
      ];
    }
    return [];
  },
};

/**
 * Function level authorization (BFLA): a call by an identity whose declared scopes (or roles) lack what the
 * operation's security requirement (or the profile) names. Its success is an error.
 */
export const functionAccessWithoutScope: Check = {
  id: 'function-access-without-scope',
  scope: 'intent',
  appliesTo: ['function-access'],
  run(ctx) {
    const access = ctx.access;
    if (!access?.lacking) return [];
    const { status } = ctx.exchange.response;
    if (!is2xx(status)) return [];
    const { scopes, roles } = access.lacking;
    const needed = [
      ...(scopes?.length ? [`the scope${scopes.length > 1 ? 's of any of its requirements' : ''} ${scopes.map((l) => l.join(' + ')).join(' or ')}`] : []),
      ...(roles?.length ? [`the role${roles.length > 1 ? 's' : ''} ${roles.join(', ')}`] : []),
    ].join(' and ');
    return [
      finding(ctx, 'function-access-without-scope', 'error', `Identity ${access.identity}, which lacks ${needed}, was let through: ${what(ctx)} answered ${status}.`, {
        expected: 'refused (403)',
        actual: status,
      }),
    ];
  },
};
