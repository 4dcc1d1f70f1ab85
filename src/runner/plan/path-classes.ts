/**
 * The coverage classes of a path parameter beyond a query parameter's (plan/coverage-classes.ts): segments sent
 * already percent-encoded, as they are, which no value of the parameter's schema is (only the answer is judged:
 * a documented status, media type and schema, no server error; an undocumented 400 or 404 is the usual
 * status-code finding), and a value beyond int64 in a string id.
 *
 * - invalid-percent-encoding: `%ZZ` (no escape), `%C0%AF` (an overlong UTF-8 sequence: `/` in two bytes, which
 *   lenient decoders turn into a separator), `%FF` (a lone byte that starts no UTF-8 character).
 * - encoded-separator: `%2F`, `%3F`, `%23` inside the value: a server that decodes before it routes reads another
 *   path, a query or a fragment.
 * - dot-segment: `..%2F` before the value: a traversal once `%2F` is decoded before routing. Dot segments
 *   themselves (`.`, `..`, `%2E%2E`, `.%2e`) are not sent: WHATWG URL parsing, which undici applies to every
 *   request, resolves them (`/items/%2E%2E` goes out as `/`), and a server that resolves them rightly serves
 *   another route.
 * - beyond-int64 (of a string parameter that takes digits): `9223372036854775808`, what a server that casts a
 *   string id to a 64-bit integer breaks on. It names no record anywhere, so every method gets it, DELETE too.
 */
import type { JsonSchema } from '../model.ts';
import { accepts } from './accepts.ts';
import { factsOf } from './keywords.ts';

/** A path segment sent as it is: already percent-encoded. */
export interface RawSegment {
  readonly raw: string;
}

export function isRawSegment(v: unknown): v is RawSegment {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { raw?: unknown }).raw === 'string' && Object.keys(v).length === 1;
}

/** The text of a neutral value around an encoded character (names no record: a made-up word). */
const AROUND = 'conformance';

export const RAW_SEGMENTS: ReadonlyArray<{ raw: string; class: string; note: string }> = [
  { raw: '%ZZ', class: 'invalid-percent-encoding', note: 'an invalid percent-escape, sent raw' },
  { raw: '%C0%AF', class: 'invalid-percent-encoding', note: 'an overlong UTF-8 sequence for "/", sent raw' },
  { raw: '%FF', class: 'invalid-percent-encoding', note: 'a lone byte that is no UTF-8, sent raw' },
  { raw: `${AROUND}%2Fx`, class: 'encoded-separator', note: 'an encoded "/" inside the value, sent raw' },
  { raw: `${AROUND}%3Fx`, class: 'encoded-separator', note: 'an encoded "?" inside the value, sent raw' },
  { raw: `${AROUND}%23x`, class: 'encoded-separator', note: 'an encoded "#" inside the value, sent raw' },
  { raw: `..%2F${AROUND}`, class: 'dot-segment', note: 'a dot segment behind an encoded "/", sent raw' },
];

/** The raw segments, as values of a path target. */
export function rawSegments(): Array<{ value: RawSegment; class: string; note: string }> {
  return RAW_SEGMENTS.map((s) => ({ value: { raw: s.raw }, class: s.class, note: s.note }));
}

/** 2^63 as digits: the first integer beyond int64. */
export const BEYOND_INT64_TEXT = (2n ** 63n).toString();

/**
 * 2^63 as the text of a string path parameter that takes it (no format, no enum; a pattern or lengths that allow
 * it), else undefined.
 */
export function beyondInt64Text(schema: JsonSchema): string | undefined {
  if (typeof schema !== 'object') return undefined;
  const facts = factsOf(schema);
  if (!facts.types.includes('string') || facts.types.includes('integer') || facts.format !== undefined || facts.allowed !== undefined) return undefined;
  return accepts(schema, BEYOND_INT64_TEXT) === true ? BEYOND_INT64_TEXT : undefined;
}

/** A path value that cannot go in a URL as one segment: a dot segment (the URL parser resolves it). */
export function isDotSegment(text: string): boolean {
  return text === '.' || text === '..';
}
