import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { finding, mediaType } from './types.ts';

function matches(declared: string, actual: string): boolean {
  const [type, sub] = declared.toLowerCase().split(';')[0]!.trim().split('/');
  const [aType, aSub] = actual.split('/');
  if (type === '*' || (type === aType && (sub === '*' || sub === aSub))) return true;
  return sub === 'json' && type === aType && (aSub?.endsWith('+json') ?? false);
}

/** A response with a body must carry one of the media types its documented response declares. */
export const contentTypeConformance: Check = {
  id: 'content-type-conformance',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    if (!spec || spec.contentTypes.length === 0 || response.body.trim() === '') return [];
    const actual = mediaType(response.headers);
    if (actual && spec.contentTypes.some((d) => matches(d, actual))) return [];
    return [
      finding(ctx, 'content-type-conformance', 'error', `Response ${response.status} has content type ${actual ?? '(none)'}, not one the contract declares.`, {
        expected: spec.contentTypes,
        actual: response.headers['content-type'] ?? null,
        specLocation: `${ctx.operation.specFile}#${spec.pointer}/content`,
      }),
    ];
  },
};
