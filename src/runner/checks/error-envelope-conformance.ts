import { responseFor } from '../description/load.ts';
import type { Check } from './types.ts';
import { atPointer, finding } from './types.ts';

/**
 * The profile's error rules: the envelope where the status requires one; a 400 without envelope tolerated;
 * an unknown code a warning (the code set is open); a code documented under another status accepted.
 */
export const errorEnvelopeConformance: Check = {
  id: 'error-envelope-conformance',
  scope: 'response',
  run(ctx) {
    const { profile, operation } = ctx;
    const { response } = ctx.exchange;
    if (!profile.errorEnvelope.appliesTo.includes(operation.service)) return [];
    const rule = profile.statuses.find((s) => s.status === response.status);
    if (!rule) return [];
    const pointer = profile.errorEnvelope.codePointer;
    const documented = responseFor(operation, response.status);
    const specLocation = `${operation.specFile}#${documented?.pointer ?? `${operation.pointer}/responses`}`;
    const code = atPointer(response.json, pointer);
    if (code === undefined) {
      if (rule.envelope === 'optional') return [];
      return [
        finding(ctx, 'error-envelope-conformance', 'error', `Status ${response.status} must carry the platform error envelope (a string at ${pointer}).`, {
          expected: `envelope with ${pointer}`,
          actual: response.json ?? response.body.slice(0, 200),
          specLocation,
        }),
      ];
    }
    if (typeof code !== 'string') {
      return [finding(ctx, 'error-envelope-conformance', 'error', `The error code at ${pointer} must be a string.`, { expected: 'string', actual: code, specLocation })];
    }
    const known =
      profile.statuses.some((s) => s.codes.includes(code)) ||
      (profile.operationCodes ?? []).some((c) => c.code === code && c.operation === operation.operationId);
    if (known) return [];
    return [
      finding(ctx, 'error-envelope-conformance', profile.unknownCode, `Error code ${code} is not documented (the code set is open).`, {
        expected: rule.codes,
        actual: code,
        specLocation,
      }),
    ];
  },
};
