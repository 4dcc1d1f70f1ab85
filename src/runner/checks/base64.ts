/** RFC 4648 base64, standard or URL-safe alphabet, padding optional (the `byte` format as the engine judges it). */
export function isBase64(s: string): boolean {
  const m = /^([A-Za-z0-9+/]*|[A-Za-z0-9_-]*)(={0,2})$/.exec(s);
  if (!m) return false;
  const length = m[1]?.length ?? 0;
  const padding = m[2]?.length ?? 0;
  // Padded: whole 4-character groups. Unpadded: a last group of one character never encodes a byte.
  return padding > 0 ? (length + padding) % 4 === 0 : length % 4 !== 1;
}
