/**
 * The create body of the small item servers (`{"name": "..."}` with 1 to 20 characters and nothing else), read as
 * such a server reads it: the name, or the message of the 400 it answers.
 */
export function namedItemBody(contentType: string | undefined, chunks: Buffer[]): { name: string } | { refused: string } {
  if ((contentType ?? '').split(';')[0]?.trim().toLowerCase() !== 'application/json') return { refused: 'JSON only' };
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return { refused: 'the body is not JSON' };
  }
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const name = fields?.['name'];
  if (!fields || Object.keys(fields).some((k) => k !== 'name') || typeof name !== 'string' || [...name].length < 1 || [...name].length > 20) return { refused: 'name: 1 to 20 characters' };
  return { name };
}
