import { isRecordOf, listedIds, listRecords, listsRecord, readerAtFault } from './created-resource-readable.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * Ownership, reported on the reader: a list under a parent holds that parent's children and no other's; a
 * get-by-id answers the record asked for, whose owner field names the parent in its path, and does not
 * serve a child under another parent.
 */
export const ownership: Check = {
  id: 'ownership',
  scope: 'intent',
  appliesTo: ['ownership'],
  run(ctx) {
    const out = [];
    for (const read of ctx.reads ?? []) {
      if (readerAtFault(read, ctx.profile)) continue;
      const { status, json } = read.exchange.response;
      const ok = status >= 200 && status <= 299;
      const where = new URL(read.exchange.request.url).pathname;
      if (read.crossParent) {
        const record = json as Record<string, unknown> | undefined;
        if (ok && ((record !== undefined && isRecordOf(record, read.id)) || record?.['id'] === undefined)) {
          out.push(finding(ctx, 'ownership', 'error', `Record ${read.id} is served under a parent it does not belong to (${where} answered ${status}).`, { expected: 'not served', actual: status }));
        }
        continue;
      }
      // Not serving a created record is read-your-writes, reported on the create (created-resource-readable).
      if (!ok) continue;
      const records = read.role === 'list' ? listRecords(json) : [json as Record<string, unknown>];
      if (read.role === 'list') {
        const ids = listedIds(json);
        const strangers = (read.foreign ?? []).filter((id) => listsRecord(json, id));
        if (strangers.length > 0) out.push(finding(ctx, 'ownership', 'error', `The list under the parent holds children of another parent (${strangers.join(', ')}).`, { expected: read.members, actual: ids }));
      } else if (records[0]?.['id'] !== undefined && !isRecordOf(records[0], read.id)) {
        out.push(finding(ctx, 'ownership', 'error', `${where} answered record ${String(records[0]['id'])}, not the one asked for (${read.id}).`, { expected: read.id, actual: records[0]['id'] }));
      }
      if (read.owner) {
        const { field, value } = read.owner;
        const wrong = records.filter((r) => field in r && r[field] !== value);
        if (wrong.length > 0) {
          out.push(finding(ctx, 'ownership', 'error', `Owner field ${field} of ${wrong.map((r) => String(r['id'])).join(', ')} does not name the parent ${value} in the path.`, { expected: value, actual: wrong.map((r) => r[field]) }));
        }
      }
    }
    return out;
  },
};
