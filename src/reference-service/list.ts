/**
 * Ordering and paging of list operations. The seed shows the parameters but not their semantics
 * (§4.2, §8); the reference service's choices:
 *  - orderBy names a record field (exact name, else the first case-insensitive match); an unknown field
 *    keeps the default order (insertion order). orderSort "desc" (any case) sorts descending, anything
 *    else ascending. The sort is stable; missing values sort last.
 *  - Paging applies only when pageSize > 0: pageIndex is 0-based (absent or negative: 0), the answer is
 *    records [pageIndex*pageSize, (pageIndex+1)*pageSize). pageSize absent or <= 0: the whole list.
 */
import type { ListQuery } from './validate.ts';

export function applyListQuery<T extends object>(records: readonly T[], query: ListQuery): T[] {
  let out = [...records];
  if (query.orderBy !== undefined && out.length > 0) {
    const key = resolveKey(out, query.orderBy);
    if (key !== undefined) {
      const sign = query.orderSort === 'desc' ? -1 : 1;
      out.sort((a, b) => compareValues(valueOf(a, key), valueOf(b, key), sign));
    }
  }
  const size = query.pageSize ?? 0;
  if (size > 0) {
    const index = Math.max(0, query.pageIndex ?? 0);
    const start = index * size;
    out = start >= out.length ? [] : out.slice(start, start + size);
  }
  return out;
}

function valueOf(record: object, key: string): unknown {
  return (record as Record<string, unknown>)[key];
}

function resolveKey(records: readonly object[], wanted: string): string | undefined {
  const keys = new Set(records.flatMap((r) => Object.keys(r)));
  if (keys.has(wanted)) return wanted;
  const lower = wanted.toLowerCase();
  return [...keys].find((k) => k.toLowerCase() === lower);
}

function compareValues(a: unknown, b: unknown, sign: number): number {
  const aMissing = a === undefined || a === null;
  const bMissing = b === undefined || b === null;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return sign * (a - b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return sign * (Number(a) - Number(b));
  const sa = String(a);
  const sb = String(b);
  return sign * (sa < sb ? -1 : sa > sb ? 1 : 0);
}
