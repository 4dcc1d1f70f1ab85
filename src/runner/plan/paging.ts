/**
 * Paging as a contract names it: a list (a GET whose 200 answers records: a bare array or a page's array) with a
 * query parameter that sets the page size (by its name, `limit`, `pageSize`, `per_page`, `size`, `top`, or its
 * description, "page size", "per page", "items per page") and a way to the next page: a page index or offset
 * parameter (`page`, `pageIndex`, `pageNumber`, `offset`, `skip`, by name or description) or a next link the page
 * schema declares (`next`, `nextPage`, `links.next`). Derived from the contract, never from an operation id.
 */
import type { JsonSchema, Operation, ParameterSpec } from '../model.ts';
import { factsOf } from './keywords.ts';
import { listSchema } from './relations.ts';
import { responseFor } from '../description/load.ts';

const SIZE_NAME = /^(limit|pages?[-_]?size|per[-_]?page|size|top|max[-_]?results|page\[size\]|page\[limit\])$/i;
const SIZE_WORDS = /\b(page size|per page|items per page|records per page|results per page|number of (items|records|results|entries) (to return|per page|on a page|returned))\b/i;
const INDEX_NAME = /^(page|pages?[-_]?(index|number|no)|page\[number\]|current[-_]?page)$/i;
const OFFSET_NAME = /^(offset|skip|start|page\[offset\])$/i;
const INDEX_WORDS = /\b(page (index|number)|which page|the page to)\b/i;
const OFFSET_WORDS = /\b(offset|records to skip|items to skip|number of (items|records) to skip)\b/i;
/** The name of the case that pages through a list. */
export const PAGING_CASE = 'paging';

/** Fields of a page that count the whole collection. */
export const PAGE_TOTALS = ['total', 'count', 'totalCount', 'total_count', 'totalItems', 'total_items', 'totalElements', 'totalRecords', 'total_results', 'totalResults'];
/** Fields of a page that link to the next one. */
export const PAGE_NEXT = ['next', 'nextPage', 'next_page', 'nextLink', 'next_link'];

/** How a list is paged: the size parameter, and the index or offset parameter that steps through the pages. */
export interface Paging {
  size: { name: string; smallest: number };
  step?: { name: string; kind: 'index' | 'offset'; first: number };
  /** The page schema declares a total, or a next link. */
  total: boolean;
  next: boolean;
}

/** What the contract says of a parameter in words: its schema's description (the engine keeps no other). */
function words(p: ParameterSpec): string {
  const schema = p.schema;
  return typeof schema === 'object' && typeof schema['description'] === 'string' ? schema['description'] : '';
}

/** The smallest integer the parameter's schema takes, where it sets one. */
function integerLow(p: ParameterSpec): number | undefined {
  const low = factsOf(p.schema as JsonSchema).integer?.lo;
  return low !== undefined && Number.isSafeInteger(low) && low > Number.MIN_SAFE_INTEGER ? low : undefined;
}

/** The properties of the list's 200 page schema (none for a bare array). */
function pageProperties(op: Operation): Record<string, unknown> {
  const schema = responseFor(op, 200)?.schema;
  const props = typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>)['properties'] : undefined;
  return typeof props === 'object' && props !== null ? (props as Record<string, unknown>) : {};
}

/** The list's paging, where its contract names a page size and a way to the next page. */
export function pagingOf(op: Operation): Paging | undefined {
  if (op.method !== 'GET' || listSchema(op) === undefined) return undefined;
  const query = op.parameters.filter((p) => p.in === 'query');
  const size = query.find((p) => SIZE_NAME.test(p.name)) ?? query.find((p) => SIZE_WORDS.test(words(p)));
  if (!size) return undefined;
  const props = pageProperties(op);
  const links = props['links'] ?? props['_links'];
  const linksNext = typeof links === 'object' && links !== null && typeof (links as Record<string, unknown>)['properties'] === 'object' && 'next' in ((links as Record<string, unknown>)['properties'] as object);
  const next = PAGE_NEXT.some((k) => k in props) || linksNext;
  const total = PAGE_TOTALS.some((k) => k in props);
  const index = query.find((p) => p !== size && (INDEX_NAME.test(p.name) || INDEX_WORDS.test(words(p))));
  const offset = query.find((p) => p !== size && (OFFSET_NAME.test(p.name) || OFFSET_WORDS.test(words(p))));
  const stepParam = index ?? offset;
  const step = stepParam ? { name: stepParam.name, kind: stepParam === index ? ('index' as const) : ('offset' as const), first: integerLow(stepParam) ?? (stepParam === index && !/index/i.test(stepParam.name) ? 1 : 0) } : undefined;
  if (!step && !next) return undefined;
  return { size: { name: size.name, smallest: Math.max(1, integerLow(size) ?? 1) }, ...(step ? { step } : {}), total, next };
}
