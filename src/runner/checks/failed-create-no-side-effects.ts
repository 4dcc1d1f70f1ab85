import { listRecords } from './created-resource-readable.ts';
import type { Check, RelatedRead } from './types.ts';
import { finding } from './types.ts';

/** How deep a record is searched for the marker (nested objects and arrays). */
const MAX_DEPTH = 8;

/** Whether a value holds the marker in one of its strings (a record, its nested objects and arrays). */
export function carriesMarker(value: unknown, marker: string, depth = 0): boolean {
  if (typeof value === 'string') return value.includes(marker);
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return false;
  return Object.values(value).some((v) => carriesMarker(v, marker, depth + 1));
}

/**
 * The records a read after a refused create shows that carry its marker: the list's entries that do, or the record
 * read by id when it does. A read of a PUT's own id (no marker: the id is the client's) shows its record by any 2xx.
 */
export function storedRecords(read: RelatedRead): unknown[] {
  const { status, json } = read.exchange.response;
  if (status < 200 || status > 299 || !read.refused) return [];
  const marker = read.refused.marker;
  if (marker === undefined) return read.role === 'item' ? [json ?? null] : [];
  if (read.role === 'list') return listRecords(json).filter((r) => carriesMarker(r, marker));
  return read.role === 'item' && typeof json === 'object' && json !== null && carriesMarker(json, marker) ? [json] : [];
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

/**
 * A create refused with a 4xx stores nothing (WFC 104): no read after it lists or serves a record carrying the
 * marker the refused body held, and a PUT's own id is not served. A success to the invalid create is
 * negative-data-rejected's business; a server error is not-a-server-error's.
 */
export const failedCreateNoSideEffects: Check = {
  id: 'failed-create-no-side-effects',
  scope: 'intent',
  appliesTo: ['refused-create'],
  run(ctx) {
    const { status } = ctx.exchange.response;
    if (status < 400 || status > 499) return [];
    const call = `${ctx.exchange.request.method} ${pathOf(ctx.exchange.request.url)}`;
    const out = [];
    for (const read of ctx.reads ?? []) {
      const [record] = storedRecords(read);
      if (record === undefined || !read.refused) continue;
      const where = `${read.exchange.request.method} ${pathOf(read.exchange.request.url)}`;
      const readStatus = read.exchange.response.status;
      const { marker, change } = read.refused;
      const id = typeof record === 'object' && record !== null ? (record as Record<string, unknown>)['id'] : undefined;
      const shown = id === undefined || id === null ? read.id || undefined : String(id);
      const message =
        marker === undefined
          ? `${call} answered ${status} to an invalid create (${change}), yet ${where} then answered ${readStatus}: the refused request stored the record it names.`
          : `${call} answered ${status} to an invalid create (${change}), yet ${where} ${read.role === 'list' ? 'lists' : 'serves'} a record carrying its marker ${marker}${shown ? ` (id ${shown})` : ''}: the refused create was stored.`;
      out.push(finding(ctx, 'failed-create-no-side-effects', 'error', message, { expected: `no record stored by the refused ${ctx.exchange.request.method}`, actual: { status, read: where, readStatus, ...(shown ? { id: shown } : {}) } }));
    }
    return out;
  },
};
