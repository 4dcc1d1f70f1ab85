/** The ids of the records a create answered, in any of the three create shapes (record, bare array, page). */
export function createdIds(body: unknown): string[] {
  const records = Array.isArray(body)
    ? body
    : typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data)
      ? (body as { data: unknown[] }).data
      : [body];
  return records.flatMap((r) => {
    const id = (r as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? [id] : [];
  });
}
