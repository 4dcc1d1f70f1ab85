import { createdRecords, idText } from '../plan/resources.ts';

/**
 * The ids of the records a create answered, in any of the three create shapes (record, bare array, page), as text
 * (an integer id too). Whether the answer conforms is judged apart: a create whose answer breaks its schema still
 * made the record it names.
 */
export function createdIds(body: unknown): string[] {
  return createdRecords(body).flatMap((r) => {
    const id = idText((r as { id?: unknown } | null)?.id);
    return id !== undefined ? [id] : [];
  });
}
