/**
 * The negative cases of the body's other declared media types (plan/cases.ts plans those of the first JSON one): a
 * required property left out and a value of the wrong kind, in each declared media type the engine encodes that
 * can carry them (plan/parameters.ts encodeBody). A JSON type (application/json, application/merge-patch+json, a
 * `+json` one) carries any JSON value. A form (application/x-www-form-urlencoded, multipart/form-data) carries
 * text: a field left out, and text no declared type of the field parses ("not-a-number" for a number or an integer,
 * "not-a-boolean" for a boolean; a string field, or one a text may be, has none). Other media types (XML, text,
 * bytes) are not built field by field: none.
 */
import type { JsonSchema, RequestBodySpec } from '../model.ts';
import { accepts } from './accepts.ts';
import { factsOf, mergedShape } from './keywords.ts';
import type { InputClass } from './input-tiers.ts';
import { isOmitted, wrongKindValues } from './values.ts';

export interface MediaNegative {
  /** The case name without its `negative: ` prefix. */
  name: string;
  body: Record<string, unknown>;
  inputClass: Extract<InputClass, 'missing-required' | 'wrong-type'>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bare(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

export function isJsonMedia(contentType: string): boolean {
  return /^[^/]+\/([^;]*\+)?json$/.test(bare(contentType));
}

export function isFormMedia(contentType: string): boolean {
  return ['application/x-www-form-urlencoded', 'multipart/form-data'].includes(bare(contentType));
}

/** A form field that carries a file (binary or base64, a content media type), or an array of them. */
function isFile(schema: JsonSchema): boolean {
  if (typeof schema !== 'object') return false;
  const facts = factsOf(schema);
  if (facts.format === 'binary' || facts.format === 'base64' || schema['contentMediaType'] !== undefined || schema['contentEncoding'] !== undefined) return true;
  return facts.types.includes('array') && facts.hasItems && isFile(facts.items);
}

/** Text no declared type of a form field parses; undefined where a text may be what it declares. */
function wrongText(schema: JsonSchema): string | undefined {
  const types = factsOf(schema).types.filter((t) => t !== 'null');
  const text = types.length === 0 ? undefined : types.every((t) => t === 'integer' || t === 'number') ? 'not-a-number' : types.every((t) => t === 'boolean') ? 'not-a-boolean' : undefined;
  return text !== undefined && accepts(schema, text) === false ? text : undefined;
}

/**
 * The negatives of one media type for its positive body; `suffix` names the media type in each case name (for every
 * media type beyond the first).
 */
export function mediaNegatives(media: RequestBodySpec, body: unknown, suffix: boolean): MediaNegative[] {
  const json = isJsonMedia(media.contentType);
  if (!isRecord(body) || (!json && !isFormMedia(media.contentType))) return [];
  const as = suffix ? ` (as ${bare(media.contentType)})` : '';
  const schema = mergedShape(media.schema);
  const facts = factsOf(schema);
  const out: MediaNegative[] = [];
  for (const field of facts.required) {
    if (!Object.hasOwn(body, field)) continue;
    const { [field]: _left, ...rest } = body;
    out.push({ name: `missing body field ${field}${as}`, body: rest, inputClass: 'missing-required' });
  }
  for (const [field, prop] of Object.entries(facts.properties)) {
    if (isOmitted(prop) || (!json && isFile(prop))) continue;
    // JSON: a JSON kind no parser turns into the declared type; a form: text no declared type parses.
    const wrong = json ? wrongKindValues(prop, body[field])[0] : wrongText(prop);
    if (wrong !== undefined) out.push({ name: `wrong type for body field ${field}${as}`, body: { ...body, [field]: wrong }, inputClass: 'wrong-type' });
  }
  return out;
}
