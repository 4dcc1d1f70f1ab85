import { isDeepStrictEqual } from 'node:util';
import { comparableFields, PAGE_RECORDS, recordSchema } from '../plan/relations.ts';
import { responseFor } from '../description/load.ts';
import type { Profile } from '../description/profile.ts';
import type { SchemaValidator } from './schema.ts';
import { answersAsUnknownRoute } from './operation-present.ts';
import type { Check, RelatedRead } from './types.ts';
import type { Operation } from '../model.ts';
import { finding } from './types.ts';

/** The entries of a list answer: a bare array, or a page's array (a known name, else its one array property). */
function listEntries(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const page = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const arrays = page ? Object.keys(page).filter((k) => Array.isArray(page[k])) : [];
  const property = PAGE_RECORDS.find((k) => arrays.includes(k)) ?? (arrays.length === 1 ? arrays[0] : undefined);
  return page && property !== undefined ? (page[property] as unknown[]) : [];
}

/** The records of a list answer: a bare array or a page's data. */
export function listRecords(body: unknown): Array<Record<string, unknown>> {
  return listEntries(body).filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r));
}

/** An entry of a list that is an id itself, not a record: a string or a finite number. */
function isIdEntry(entry: unknown): entry is string | number {
  return typeof entry === 'string' || (typeof entry === 'number' && Number.isFinite(entry));
}

/**
 * The ids a list answer lists: each record's id, and each entry that is an id itself (a collection may answer
 * its members' ids, `["3f…", …]` or `{"pet_ids": [1, 2]}`, as its schema says when its items are strings or
 * integers).
 */
export function listedIds(body: unknown): unknown[] {
  return listEntries(body).flatMap((e) => (isIdEntry(e) ? [e] : typeof e === 'object' && e !== null && !Array.isArray(e) ? [(e as Record<string, unknown>)['id']] : []));
}

/** Whether a list answer lists the record of that id: as a record, or as the id itself. */
export function listsRecord(body: unknown, id: unknown): boolean {
  return id !== undefined && id !== null && listEntries(body).some((e) => (isIdEntry(e) ? String(e) === String(id) : typeof e === 'object' && e !== null && !Array.isArray(e) && isRecordOf(e as Record<string, unknown>, id)));
}

/** Query parameters that choose a page of a list. */
const PAGING = /^(limit|offset|page|pages?ize|page_size|per_?page|size|cursor|skip|top|first|after|before|current_?page|page_?number|page\[[a-z_]+\])$/i;
/** Fewer records than this on a page is not a page cut short by a default size (defaults are 10, 20, 25, 50, 100). */
const MIN_PAGE_SIZE = 10;
/** Fields of a page that count the whole collection. */
const TOTALS = ['total', 'count', 'totalCount', 'total_count', 'totalItems', 'total_items', 'totalElements', 'totalRecords'];

/**
 * Whether a list answer holds the whole collection: a record missing from it then is missing. A page whose total
 * is larger than what it holds (or only as large, on a full-looking page), one with a link to the next, or a full-looking page (ten records or more, the
 * smallest default page size in use) of a list that takes paging parameters and says no total, may hold only the
 * first page: a record missing from it proves nothing.
 */
export function listComplete(body: unknown, list: Pick<Operation, 'parameters'>): boolean {
  const held = listedIds(body).length;
  const page = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const total = page ? TOTALS.map((k) => page[k]).find((v): v is number => typeof v === 'number') : undefined;
  const pageable = list.parameters.some((p) => p.in === 'query' && PAGING.test(p.name));
  // A full-looking page whose total is what it holds may be a total that counts one page (paging-kept's finding,
  // on the list): the record may be on the next page, and its writer is not blamed for it.
  if (total !== undefined) return total < held || (total === held && !(pageable && held >= MIN_PAGE_SIZE));
  const links = page ? ['next', 'nextPage', 'next_page', 'links'].some((k) => typeof page[k] === 'string' || (k === 'links' && typeof page[k] === 'object' && page[k] !== null && typeof (page[k] as Record<string, unknown>)['next'] === 'string')) : false;
  if (links) return false;
  return held < MIN_PAGE_SIZE || !pageable;
}

/** Whether a listed record is the one of that id (an integer id and its path text are the same id). */
export function isRecordOf(record: Record<string, unknown>, id: unknown): boolean {
  const own = record['id'];
  return own !== undefined && own !== null && id !== undefined && String(own) === String(id);
}

/**
 * The read's own failures are its operation's, not the writer's: a 5xx, an unknown route (unless the reader is
 * proven served: then it is the reader's answer about the record, as many frameworks word every 404 alike), a
 * status the reader does not document, or a success body that does not conform to the reader's own schema.
 */
export function readerAtFault(read: RelatedRead, profile: Profile, validator?: SchemaValidator): boolean {
  const { response } = read.exchange;
  if (response.status >= 500 || (!read.readerPresent && answersAsUnknownRoute(response, profile))) return true;
  const spec = responseFor(read.operation, response.status);
  if (!spec) return true;
  if (validator && response.status < 300 && spec.schema !== undefined && response.json !== undefined) {
    return validator.validate(`${read.operation.specFile}#${spec.pointer}`, spec.schema, response.json).length > 0;
  }
  return false;
}

/** Fields sent that read back different, as {field: [sent, read]}. */
export function differences(sent: unknown, record: Record<string, unknown>, read: RelatedRead): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const field of comparableFields(sent, recordSchema(read.operation))) {
    const value = (sent as Record<string, unknown>)[field];
    if (field in record && !isDeepStrictEqual(record[field], value)) out[field] = [value, record[field]];
    else if (!(field in record)) continue; // not returned: the contract does not say it is
  }
  return out;
}

/**
 * Read-your-writes, reported on the writer: the id a create answered is served by every reader of the
 * record (by id, under it, in its collection's list), as the record asked for, with the fields sent.
 */
export const createdResourceReadable: Check = {
  id: 'created-resource-readable',
  scope: 'intent',
  appliesTo: ['created-readable'],
  run(ctx) {
    const out = [];
    for (const read of ctx.reads ?? []) {
      if (readerAtFault(read, ctx.profile, ctx.validator)) continue;
      const { status, json } = read.exchange.response;
      const where = `${read.operation.method} ${new URL(read.exchange.request.url).pathname}`;
      if (status < 200 || status > 299) {
        out.push(finding(ctx, 'created-resource-readable', 'error', `The created record ${read.id} is not served: ${where} (${read.operation.operationId}) answered ${status}.`, { expected: '2xx', actual: status }));
        continue;
      }
      if (read.role === 'nested') continue;
      let record: Record<string, unknown> | undefined;
      if (read.role === 'list') {
        record = listRecords(json).find((r) => isRecordOf(r, read.id));
        // A list of ids (its entries strings or integers, not records) lists the record by its id: nothing to compare.
        if (!record && listsRecord(json, read.id)) continue;
        if (!record && !listComplete(json, read.operation)) continue;
        if (!record) {
          out.push(finding(ctx, 'created-resource-readable', 'error', `The created record ${read.id} is missing from its collection's list (${read.operation.operationId}).`, { expected: read.id, actual: listedIds(json) }));
          continue;
        }
      } else {
        record = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
        if (record && 'id' in record && !isRecordOf(record, read.id)) {
          out.push(finding(ctx, 'created-resource-readable', 'error', `${read.operation.operationId} answered another record (${String(record['id'])}) for the created ${read.id}.`, { expected: read.id, actual: record['id'] }));
          continue;
        }
      }
      if (!record) continue;
      const diff = differences(read.sent, record, read);
      const derived = Object.keys(diff).filter((k) => read.derived?.includes(k));
      const wrong = Object.keys(diff).filter((k) => !derived.includes(k));
      const pick = (keys: string[], at: 0 | 1) => Object.fromEntries(keys.map((k) => [k, diff[k]![at]]));
      if (wrong.length > 0) {
        out.push(
          finding(ctx, 'created-resource-readable', 'error', `The created record reads back different from what was sent (${wrong.join(', ')}) through ${read.operation.operationId}.`, {
            expected: pick(wrong, 0),
            actual: pick(wrong, 1),
          }),
        );
      }
      if (derived.length > 0) {
        out.push(
          finding(ctx, 'created-resource-readable', 'warning', `The created record reads back different from what was sent (${derived.join(', ')}) through ${read.operation.operationId}, and as sent in a create with only the fields it requires: the service derives ${derived.length > 1 ? 'them' : 'it'} from other fields it was sent, which the contract does not show.`, {
            expected: pick(derived, 0),
            actual: pick(derived, 1),
          }),
        );
      }
    }
    return out;
  },
};
