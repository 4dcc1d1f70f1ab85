import { isDeepStrictEqual } from 'node:util';
import type { JsonSchema } from '../model.ts';
import { schemaFormat } from '../description/json-schema.ts';
import { responseFor } from '../description/load.ts';
import { recordProperties } from '../plan/relations.ts';
import { mergedShape } from '../plan/keywords.ts';
import type { Check, CheckContext, RepeatContext } from './types.ts';
import { finding } from './types.ts';

/** Statuses that say nothing of what a repeated write did: too many requests, the service unavailable. */
const TRANSIENT = new Set([429, 503]);
/** A conflict or a failed precondition: an answer about the state the request's own version names. */
const CONCURRENCY = new Set([409, 412]);
/** Longest value text a message quotes. */
const QUOTED = 60;

/** Whether the schema, or any part of it (allOf, anyOf, oneOf), says so. */
function declares(schema: JsonSchema | undefined, test: (s: Record<string, unknown>) => boolean): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  if (test(schema)) return true;
  return ['allOf', 'anyOf', 'oneOf'].some((k) => Array.isArray(schema[k]) && (schema[k] as JsonSchema[]).some((part) => declares(part, test)));
}

/**
 * A property a server changes on every write of its own accord: readOnly (a version, an ETag the server keeps) or
 * a date-time (an updatedAt). A property of neither kind is the client's to set: the same PUT sets it the same.
 */
function volatile(schema: JsonSchema | undefined): boolean {
  return declares(schema, (s) => s['readOnly'] === true || schemaFormat(s) === 'date-time');
}

/** A schema of a nested record (an object of declared properties: an `author`). */
function nestedRecord(schema: JsonSchema | undefined): boolean {
  return Object.keys(recordProperties(schema === undefined ? undefined : mergedShape(schema))).length > 0;
}

/**
 * Whether a property is another record the PUT does not write: a nested record whose name the request body's
 * schema does not hold at the same place (an article's `author`, which another case's update of the user changes).
 */
function notWritten(name: string, schema: JsonSchema | undefined, sent: JsonSchema | undefined): boolean {
  if (sent === undefined || !nestedRecord(schema)) return false;
  return !(name in recordProperties(mergedShape(sent)));
}

function sentPart(sent: JsonSchema | undefined, name: string): JsonSchema | undefined {
  return sent === undefined ? undefined : recordProperties(mergedShape(sent))[name];
}

/** The value as far as the schema declares it, without its volatile properties (in nested records and lists too). */
function stable(value: unknown, schema: JsonSchema | undefined, sent?: JsonSchema): unknown {
  const shape = schema === undefined ? undefined : mergedShape(schema);
  if (Array.isArray(value)) {
    const items = typeof shape === 'object' && shape !== null ? (shape['items'] as JsonSchema | undefined) : undefined;
    return value.map((v) => stable(v, items));
  }
  if (typeof value !== 'object' || value === null) return value;
  const props = recordProperties(shape);
  // A free-form object (no properties declared) is compared as it is.
  if (Object.keys(props).length === 0) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(props).filter((k) => k in record && !volatile(props[k]) && !notWritten(k, props[k], sent)).map((k) => [k, stable(record[k], props[k], sentPart(sent, k))]));
}

/** The declared, non-volatile properties whose values differ between the two reads, as {property: [first, second]}. */
export function changedByRepeat(first: unknown, second: unknown, schema: JsonSchema | undefined, sent?: JsonSchema): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  if (typeof first !== 'object' || first === null || typeof second !== 'object' || second === null || Array.isArray(first) || Array.isArray(second)) return out;
  const props = recordProperties(schema === undefined ? undefined : mergedShape(schema));
  const a = first as Record<string, unknown>;
  const b = second as Record<string, unknown>;
  for (const [name, s] of Object.entries(props)) {
    if (volatile(s) || notWritten(name, s, sent) || (!(name in a) && !(name in b))) continue;
    const before = stable(a[name], s, sentPart(sent, name));
    const after = stable(b[name], s, sentPart(sent, name));
    if (!isDeepStrictEqual(before, after)) out[name] = [a[name], b[name]];
  }
  return out;
}

function quoted(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > QUOTED ? `${text.slice(0, QUOTED - 1)}…` : text;
}

/**
 * Whether a 409 or 412 to the repeat is about the request's own version: the first call sent If-Match, or a property
 * the first call sent reads back different (a version the write moved on: the same body names a stale one now).
 */
function staleVersion(repeat: RepeatContext): boolean {
  if (Object.keys(repeat.first.request.headers).some((k) => k.toLowerCase() === 'if-match')) return true;
  const read = repeat.reads?.[0]?.response.json;
  const sent = repeat.sent;
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent) || typeof read !== 'object' || read === null) return false;
  return Object.entries(sent).some(([k, v]) => k in read && !isDeepStrictEqual((read as Record<string, unknown>)[k], v));
}

function callOf(ctx: CheckContext): string {
  return `${ctx.exchange.request.method} ${new URL(ctx.exchange.request.url).pathname}`;
}

/** The repeat answered otherwise than a success where the first call succeeded. */
function refusedRepeat(ctx: CheckContext, repeat: RepeatContext) {
  const { status } = ctx.exchange.response;
  if (TRANSIENT.has(status) || (CONCURRENCY.has(status) && (repeat.reads?.[0] === undefined || staleVersion(repeat)))) return [];
  const message = `${callOf(ctx)} answered ${repeat.first.response.status}, then ${status} to the same call sent again: a repeated PUT must have the same effect as the first (RFC 9110 §9.2.2).`;
  return [finding(ctx, 'put-idempotent', 'error', message, { expected: '2xx', actual: status })];
}

/**
 * RFC 9110 §9.2.2: PUT is idempotent. The same PUT sent twice leaves the record as the first one did: the GET of the
 * same path reads it the same after each, but for what the server changes on every write of its own accord
 * (readOnly and date-time properties) and for the other records it holds that the PUT does not write (an `author`
 * another case's update of the user changed). A repeat refused where the first call succeeded is the same defect. A read
 * that failed or broke its schema judges nothing (the phase leaves the reads out).
 */
export const putIdempotent: Check = {
  id: 'put-idempotent',
  scope: 'intent',
  appliesTo: ['put-idempotent'],
  run(ctx) {
    const repeat = ctx.repeat;
    if (!repeat || ctx.operation.method !== 'PUT') return [];
    const firstOk = repeat.first.response.status >= 200 && repeat.first.response.status < 300;
    if (!firstOk) return [];
    const { status } = ctx.exchange.response;
    if (status < 200 || status >= 300) return refusedRepeat(ctx, repeat);
    const [before, after] = repeat.reads ?? [];
    if (!before || !after || !repeat.reader) return [];
    const schema = responseFor(repeat.reader, after.response.status)?.schema;
    const changed = Object.entries(changedByRepeat(before.response.json, after.response.json, schema, ctx.operation.requestBody?.schema));
    if (changed.length === 0) return [];
    const read = `${repeat.reader.method} ${new URL(after.request.url).pathname}`;
    const values = changed.map(([name, [a, b]]) => `${name} ${quoted(a)} after the first, ${quoted(b)} after the second`).join('; ');
    const message = `${callOf(ctx)} sent twice with the same body changed the record again: ${read} read ${values} (a repeated PUT must leave the record as the first did, RFC 9110 §9.2.2).`;
    return [
      finding(ctx, 'put-idempotent', 'error', message, {
        expected: Object.fromEntries(changed.map(([name, [a]]) => [name, a])),
        actual: Object.fromEntries(changed.map(([name, [, b]]) => [name, b])),
      }),
    ];
  },
};
