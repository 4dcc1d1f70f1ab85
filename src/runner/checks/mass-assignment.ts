import { isDeepStrictEqual } from 'node:util';
import type { AssignedProperty } from '../plan/mass-assignment.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/** How the request schema rules a property out, as the finding words it. */
const WHY: Record<AssignedProperty['why'], string> = {
  'not-accepted': 'which its request schema does not accept',
  'read-only': 'which its request schema marks readOnly',
};

/**
 * Mass assignment (WFC 203): a write sent properties it must not set (its request schema does not accept them, or
 * marks them readOnly), each with a value the record did not hold. A refusal is right (a strict deployment refuses
 * properties it does not know); a success is followed by the record as its reader shows it (else as the write
 * answered it), and a property that shows the sent value was applied. One absent from the record shows nothing.
 */
export const massAssignment: Check = {
  id: 'mass-assignment',
  scope: 'intent',
  appliesTo: ['mass-assignment'],
  run(ctx) {
    const assigned = ctx.massAssignment;
    const { status } = ctx.exchange.response;
    const record = assigned?.record;
    if (!assigned || status < 200 || status > 299 || typeof record !== 'object' || record === null || Array.isArray(record)) return [];
    const shown = record as Record<string, unknown>;
    const applied = assigned.sent.filter((p) => Object.hasOwn(shown, p.name) && isDeepStrictEqual(shown[p.name], p.value));
    if (applied.length === 0) return [];
    const { method, path } = ctx.operation;
    const parts = (['not-accepted', 'read-only'] as const).flatMap((why) => {
      const names = applied.filter((p) => p.why === why).map((p) => `\`${p.name}\``);
      return names.length > 0 ? [`${names.join(', ')}, ${WHY[why]}`] : [];
    });
    const seen = assigned.shownBy === 'read' ? 'as the record read after it shows' : 'as its answer shows';
    return [
      finding(ctx, 'mass-assignment', 'error', `${method} ${path} applied ${parts.join(', and ')} (${seen}).`, {
        expected: 'refused, or left as it was',
        actual: Object.fromEntries(applied.map((p) => [p.name, p.value])),
      }),
    ];
  },
};
