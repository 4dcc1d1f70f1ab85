import { responseFor } from '../description/load.ts';
import type { Profile } from '../description/profile.ts';
import type { Check } from './types.ts';
import { finding, mediaType } from './types.ts';

/**
 * Whether a declared media type (wildcards `*` / `*` and `type/*`, a suffix wildcard `application/*+json`,
 * parameters ignored) covers the one answered. A structured-syntax suffix is a media type of its own: an
 * `application/problem+json` answer does not meet a declared `application/json` (a client that reads one may not
 * read the other), unless the profile declares the two equivalent for its platform.
 */
export function mediaTypeMatches(declared: string, actual: string, equivalents: Profile['mediaTypeEquivalents'] = []): boolean {
  const d = declared.split(';')[0]!.trim().toLowerCase();
  const [type = '', sub = ''] = d.split('/');
  const [aType = '', aSub = ''] = actual.split('/');
  if (type === '*' && (sub === '*' || sub === '')) return true;
  if (type === aType && (sub === '*' || sub === aSub)) return true;
  if (type === aType && sub.startsWith('*+') && aSub.endsWith(sub.slice(1))) return true;
  return equivalents.some((group) => group.some((g) => g.toLowerCase() === d) && group.some((g) => g.toLowerCase() === actual));
}

/** A response with a body must carry exactly one of the media types its documented response declares. */
export const contentTypeConformance: Check = {
  id: 'content-type-conformance',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    if (!spec || spec.contentTypes.length === 0 || response.body.trim() === '') return [];
    const actual = mediaType(response.headers);
    if (actual && spec.contentTypes.some((d) => mediaTypeMatches(d, actual, ctx.profile.mediaTypeEquivalents))) return [];
    return [
      finding(ctx, 'content-type-conformance', 'error', `Response ${response.status} has content type ${actual ?? '(none)'}, not one the contract declares.`, {
        expected: spec.contentTypes,
        actual: response.headers['content-type'] ?? null,
        specLocation: `${ctx.operation.specFile}#${spec.pointer}/content`,
      }),
    ];
  },
};
