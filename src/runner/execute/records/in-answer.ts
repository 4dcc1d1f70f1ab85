import type { Exchange, Operation } from '../../model.ts';
import { createdId, createdRecords, idText } from '../../plan/resources.ts';
import { idFromLocation } from '../../plan/undo.ts';

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

/** The id of the record a create answered for a path parameter: in its body by that name, else as `id`, else in the Location of `item`. */
export function answeredId(exchange: Exchange, param: string, item?: Operation): string | undefined {
  const json = exchange.response?.json;
  return createdId(json, param) ?? createdIds(json)[0] ?? (item ? idFromLocation(exchange.response?.headers['location'], item) : undefined);
}
