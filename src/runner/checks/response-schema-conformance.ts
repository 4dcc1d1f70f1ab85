import { mediaEntries, responseFor } from '../description/load.ts';
import { factsOf } from '../plan/keywords.ts';
import type { ResponseSpec } from '../model.ts';
import { mediaTypeMatches } from './content-type-conformance.ts';
import { isJsonMediaType } from './json-wellformed.ts';
import { itemFindings } from './sequential-items.ts';
import type { Check, CheckContext } from './types.ts';
import { finding, mediaType } from './types.ts';

type Entry = ReturnType<typeof mediaEntries>[number];

/** Statuses and methods whose answers carry no body (RFC 9110 §9.3.2, §15.3.5, §15.3.6, §15.4.5). */
const NO_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * A declared body must be present and match its schema, judged by the media type it is answered in: a JSON (or
 * `+json`) body is parsed and validated against its media type's schema (ajv 2020-12 with formats; integers
 * beyond 2^53 judged on their exact digits); a `text/*` body against a schema that admits strings, as a string;
 * any other body for its media type only (content-type-conformance; response-body-readable for XML). An empty
 * success body where the response declares only JSON or XML is an error, as is any empty body where the response
 * declares content with a schema an empty value does not meet. A schema the
 * tool cannot compile throws SchemaCompileError: the case errors (a tool problem), it never fails the service.
 */
export const responseSchemaConformance: Check = {
  id: 'response-schema-conformance',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    // Truncated, too deep or invalid JSON where JSON is declared: response-body-readable says so.
    if (!spec || response.truncated) return [];
    const entries = mediaEntries(spec);
    if (response.body.trim() === '') return emptyBody(ctx, spec, entries);
    const actual = mediaType(response.headers);
    const jsonEntry = entries.find((e) => isJsonMediaType(e.type.split(';')[0]?.trim().toLowerCase()));
    let entry = actual ? chooseEntry(entries, actual, ctx) : (jsonEntry ?? entries[0]);
    // Answered in a media type the response does not declare (content-type-conformance says so): a body that is
    // JSON all the same is held to the declared JSON schema; any other body is not judged as JSON.
    if (!entry && actual) {
      if (jsonEntry?.schema === undefined || response.json === undefined) return [];
      entry = jsonEntry;
    }
    const location = `${ctx.operation.specFile}#${spec.pointer}`;
    // A stream (OpenAPI 3.2 `itemSchema`): each item judged on its own.
    if (entry?.schema === undefined && entry?.itemSchema !== undefined) return itemFindings(ctx, spec, entry, location);
    if (entry?.schema === undefined) return [];
    const judged = specFor(spec, entry);
    const json = actual === undefined || entry === jsonEntry ? isJsonMediaType(entry.type.split(';')[0]?.trim().toLowerCase()) || response.json !== undefined : isJsonMediaType(actual);
    if (json) {
      if (response.jsonError) return [];
      if (response.json === undefined) {
        return [finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} body is not JSON.`, { specLocation: location, expected: 'a JSON body', actual: response.body.slice(0, 200) })];
      }
      return schemaFindings(ctx, judged, response.json, response.body, location);
    }
    // Text is judged as the string it is, where its schema admits one.
    if (actual?.startsWith('text/') && admitsString(entry.schema)) return schemaFindings(ctx, judged, response.body, undefined, location);
    return [];
  },
};

function schemaFindings(ctx: CheckContext, spec: ResponseSpec, data: unknown, raw: string | undefined, location: string) {
  const { response } = ctx.exchange;
  const errors = ctx.validator.validateResponse(spec, data, raw);
  if (errors.length === 0) return [];
  return [
    finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} does not match the schema: ${errors[0]?.message}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}.`, {
      specLocation: location,
      schemaErrors: errors.slice(0, 20),
      ...(errors[0]?.expected !== undefined ? { expected: errors[0].expected } : {}),
      actual: data,
    }),
  ];
}

/** The declared media type an answer in `actual` is judged by: the most specific that covers it. */
function chooseEntry(entries: Entry[], actual: string, ctx: CheckContext): Entry | undefined {
  const covering = entries.filter((e) => mediaTypeMatches(e.type, actual, ctx.profile.mediaTypeEquivalents));
  const rank = (e: Entry) => {
    const type = e.type.split(';')[0]!.trim().toLowerCase();
    return type === actual ? 0 : type.startsWith('*/') ? 3 : type.includes('*') ? 2 : 1;
  };
  return covering.sort((a, b) => rank(a) - rank(b))[0];
}

/** The response as judged in one of its media types (its own schema; compiled apart from the others). */
function specFor(spec: ResponseSpec, entry: Entry): ResponseSpec {
  const { schemaRef: _ref, ...rest } = spec;
  return { ...rest, schema: entry.schema, pointer: `${spec.pointer}/content/${entry.type.replace(/~/g, '~0').replace(/\//g, '~1')}`, ...(entry.schemaRef !== undefined ? { schemaRef: entry.schemaRef } : {}) };
}

/** A media type whose documents are never empty: JSON (and `+json`), XML (and `+xml`). */
function emptyIsNoDocument(type: string): boolean {
  const base = type.split(';')[0]!.trim().toLowerCase();
  return isJsonMediaType(base) || /^[a-z]+\/(?:[^;]*\+)?xml$/.test(base);
}

function admitsString(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return schema !== false;
  const types = factsOf(schema as Record<string, unknown>).types;
  return types.length === 0 || types.includes('string');
}

/**
 * An answer without a body where the response declares content: an error where the declared media type's schema
 * is met by no empty value (neither "" nor null). A HEAD, a 204, 205 or 304 never carries one.
 */
function emptyBody(ctx: CheckContext, spec: ResponseSpec, entries: Entry[]) {
  const { request, response } = ctx.exchange;
  if (entries.length === 0 || request.method === 'HEAD' || NO_BODY_STATUSES.has(response.status) || response.status < 200) return [];
  // A success whose declared media types are all JSON or XML owes a document: an empty body is none, whatever value
  // the schema admits (a 200 with `schema: {}` and nothing sent; Schemathesis reports it too, ST109). An error
  // answer's empty body is judged by its schema: a body the contract does not show may be empty.
  if (response.status < 300 && entries.every((e) => emptyIsNoDocument(e.type))) {
    return [
      finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} has no body; the contract declares ${entries.map((e) => e.type).join(', ')}, and an empty body is no ${entries.length > 1 ? 'document of either' : 'such document'}.`, {
        specLocation: `${ctx.operation.specFile}#${spec.pointer}/content`,
        expected: `a ${entries[0]!.type} body`,
        actual: '(empty body)',
      }),
    ];
  }
  const actual = mediaType(response.headers);
  const entry = (actual ? chooseEntry(entries, actual, ctx) : undefined) ?? entries[0];
  if (entry?.schema === undefined) return [];
  const judged = specFor(spec, entry);
  if (ctx.validator.validateResponse(judged, '', '""').length === 0 || ctx.validator.validateResponse(judged, null, 'null').length === 0) return [];
  return [
    finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} has no body; the contract declares ${entry.type} with a schema an empty body does not meet.`, {
      specLocation: `${ctx.operation.specFile}#${spec.pointer}/content`,
      expected: `a ${entry.type} body`,
      actual: '(empty body)',
    }),
  ];
}
