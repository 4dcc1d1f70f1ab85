/**
 * Where the input a request varies is: a path, query, header or cookie parameter, the body, or none (the plain
 * request, a credential, a method, or several inputs at once: a fuzzing draw across locations, a lifecycle call,
 * a record made first). Every request a case sends is counted once in one of them (execute/case-run.ts), and the
 * counts are summed per operation and per run (results.json `requestsByLocation`); `conformance plan` shows the
 * planned share. Counters only: no request is kept for them.
 */
import type { InputLocation, LocationCounts, Operation } from '../model.ts';
import { RESERVED_HEADERS } from './fuzz-inputs.ts';

export type { InputLocation, LocationCounts };

export const INPUT_LOCATIONS: readonly InputLocation[] = ['path', 'query', 'header', 'cookie', 'body', 'none'];

/** The classes that vary a request header (Accept, Content-Type) whatever else they carry. */
const HEADER_CLASSES = new Set(['accept-declared', 'accept-undeclared', 'malformed-content-type']);

/** What a coverage item or a shrinking step carries that says where it varies the request. */
export interface Varied {
  location?: InputLocation;
  class?: string;
  method?: string;
  pathParams?: Record<string, string>;
  rawPathParams?: Record<string, string>;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
  cookies?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  noBody?: boolean;
}

/** The location a coverage item varies: its own where it says, else the first part it overrides. */
export function locationOf(item: Varied): InputLocation {
  if (item.location !== undefined) return item.location;
  if (item.method !== undefined) return 'none';
  if (item.class !== undefined && HEADER_CLASSES.has(item.class)) return 'header';
  if (item.rawPathParams !== undefined || item.pathParams !== undefined) return 'path';
  if (item.body !== undefined || item.rawBody !== undefined || item.noBody) return 'body';
  if (item.query !== undefined) return 'query';
  if (item.headers !== undefined) return 'header';
  if (item.cookies !== undefined) return 'cookie';
  return 'none';
}

/**
 * The location a fuzzing draw varies: the one location the operation's drawn parts are in (the body, the query,
 * ...; the path where its parameters are drawn), else none (a draw across several varies the whole request).
 */
export function fuzzLocation(op: Operation, varyPath: ReadonlySet<string>): InputLocation {
  const drawn = new Set<InputLocation>();
  if (op.requestBody) drawn.add('body');
  for (const p of op.parameters) {
    if (p.in === 'path' ? varyPath.has(p.name) : p.in !== 'header' || !RESERVED_HEADERS.has(p.name.toLowerCase())) drawn.add(p.in);
  }
  const [only, ...more] = drawn;
  return only !== undefined && more.length === 0 ? only : 'none';
}

/** Adds `n` requests at a location. */
export function count(counts: LocationCounts, location: InputLocation, n = 1): void {
  if (n > 0) counts[location] = (counts[location] ?? 0) + n;
}

/** The sum of several counts, in the canonical order of the locations; undefined when none counts a request. */
export function summed(all: Iterable<LocationCounts | undefined>): LocationCounts | undefined {
  const total: LocationCounts = {};
  for (const counts of all) for (const [location, n] of Object.entries(counts ?? {})) count(total, location as InputLocation, n);
  const ordered = Object.fromEntries(INPUT_LOCATIONS.filter((l) => total[l] !== undefined).map((l) => [l, total[l]])) as LocationCounts;
  return Object.keys(ordered).length > 0 ? ordered : undefined;
}

/** "path 12 (3%) · query 40 (10%) · …": each location's requests and share of all of them. */
export function shareLine(counts: LocationCounts): string {
  const total = INPUT_LOCATIONS.reduce((n, l) => n + (counts[l] ?? 0), 0);
  if (total === 0) return 'none';
  return INPUT_LOCATIONS.map((l) => {
    const n = counts[l] ?? 0;
    const pct = (n * 100) / total;
    return `${l} ${n} (${n === 0 ? '0' : pct < 1 ? '<1' : Math.round(pct)}%)`;
  }).join(' · ');
}

/** The location a case's own requests vary unless a request says otherwise: a negative case's input, else none. */
export function caseLocation(planned: { kind: string; location?: InputLocation; omits?: { in: InputLocation } }): InputLocation {
  if (planned.kind !== 'negative') return 'none';
  return planned.location ?? planned.omits?.in ?? 'none';
}
