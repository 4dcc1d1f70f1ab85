import type { Check } from './types.ts';
import { finding } from './types.ts';

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

function isRecord(v: unknown, requires: string[]): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && requires.every((f) => f in v);
}

/** A create answers one of three shapes: a record, a bare array of records, or a page {total, data[]}. */
export const createShape: Check = {
  id: 'create-shape',
  scope: 'response',
  run(ctx) {
    const rule = ctx.profile.createShape.operations.find((o) => o.operation === ctx.operation.operationId);
    const { response } = ctx.exchange;
    if (!rule || response.status < 200 || response.status > 299) return [];
    const body = response.json;
    const requires = rule.recordRequires;
    if (Array.isArray(body) && body.every((r) => isRecord(r, requires))) return [];
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'data' in body) {
      const page = body as { total?: unknown; data: unknown };
      const totalOk =
        page.total === undefined ||
        (typeof page.total === 'number' && Number.isInteger(page.total) && BigInt(page.total) >= INT64.min && BigInt(page.total) <= INT64.max);
      if (Array.isArray(page.data) && page.data.every((r) => isRecord(r, requires)) && totalOk) return [];
    } else if (isRecord(body, requires)) {
      return [];
    }
    return [
      finding(ctx, 'create-shape', 'error', `The create response is none of the three shapes (record${requires.length ? ` with ${requires.join(', ')}` : ''}, bare array of records, page {total, data[]}).`, {
        expected: ctx.profile.createShape.shapes,
        actual: body ?? response.body.slice(0, 200),
      }),
    ];
  },
};
