/**
 * What a request body says of records, beside its path:
 *  - a body field named like a path parameter (`PUT /todos/{id}` with `{"id": …}`) names the same record: it
 *    is sent with the path's value, so that a schema-valid request does not contradict itself;
 *  - a body field that refers to another record (`user_id`, `orderId`) holds a value the run either got
 *    from the service or made up. A refusal of a positive request that names a made-up record is the service's
 *    answer to a reference that does not exist, not a refusal of valid input.
 * Derived from the names in the contract and the values in the answers only.
 */
import { LosslessNumber } from 'lossless-json';
import type { JsonSchema, Operation } from '../../model.ts';
import { factsOf, mergedShape } from '../../plan/keywords.ts';
import { pathRecordFields, referenceStem } from '../../plan/relations.ts';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body's properties, those of a top-level allOf merged (`allOf: [Fields, {id}]`). */
function bodyProperties(op: Operation): Record<string, JsonSchema> {
  return op.requestBody ? factsOf(mergedShape(op.requestBody.schema)).properties : {};
}

/** A path value as the body field's type: a number where the field is numeric, else the text; undefined if it cannot be. */
function typed(text: string, schema: JsonSchema | undefined): unknown {
  const types = schema === undefined ? [] : factsOf(schema).types;
  if ((types.includes('integer') || types.includes('number')) && !types.includes('string')) {
    const n = Number(text);
    return /^-?\d+(\.\d+)?$/.test(text) && Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n)) ? n : undefined;
  }
  if (types.length === 0 || types.includes('string')) return text;
  return undefined;
}

/**
 * The body with each field named like a path parameter set to the path's value (where the body has the field),
 * also inside a one-member envelope (JSON:API's `{"data": {"id": …, "type": …}}`) when the body's top level names
 * none. A bare `id` is the record's own: where the path ends in a parameter of another name (`/pettypes/{petTypeId}`),
 * it names the record that parameter does. With `keepNull`, a `null` stays: it names no record, so it does not
 * contradict the path (a variation of the body may mean to send it).
 */
export function alignBodyToPath(op: Operation, body: unknown, pathParams: Record<string, string>, options: { keepNull?: boolean } = {}): unknown {
  const byField: Record<string, string> = {};
  for (const [field, param] of pathRecordFields(op)) if (pathParams[param] !== undefined) byField[field] = pathParams[param];
  return alignObject(body, bodyProperties(op), byField, options.keepNull === true, true);
}

function alignObject(body: unknown, properties: Record<string, JsonSchema>, pathParams: Record<string, string>, keepNull: boolean, top: boolean): unknown {
  if (!isRecord(body)) return body;
  let out: Record<string, unknown> | undefined;
  let names = false;
  for (const [name, text] of Object.entries(pathParams)) {
    if (!Object.hasOwn(body, name) || text === undefined) continue;
    names = true;
    if ((typeof body[name] === 'string' && body[name].includes('{{')) || (keepNull && body[name] === null)) continue;
    const value = typed(text, properties[name]);
    if (value === undefined || value === body[name]) continue;
    out ??= { ...body };
    out[name] = value;
  }
  if (out || names || !top) return out ?? body;
  const keys = Object.keys(body);
  const only = keys.length === 1 ? keys[0] : undefined;
  if (only === undefined || !isRecord(body[only])) return body;
  const inner = properties[only];
  const aligned = alignObject(body[only], inner === undefined ? {} : factsOf(inner).properties, pathParams, keepNull, false);
  return aligned === body[only] ? body : { [only]: aligned };
}

/** A field that refers to another record by its name: `userId`, `user_id`, `orderID`, `orderUuid` (a bare `id` is the record's own). */
export function isReferenceName(name: string): boolean {
  return referenceStem(name) !== undefined;
}

/** The body with one field set to a record's id, typed as the field is; the body unchanged when the id cannot be that type. */
export function withReference(op: Operation, body: unknown, name: string, id: string): unknown {
  if (!isRecord(body)) return body;
  const value = typed(id, bodyProperties(op)[name]);
  return value === undefined ? body : { ...body, [name]: value };
}

/**
 * The body with each top-level field that refers to another record, and holds a value of the plan's making
 * (not a {{template}}), set to a record the run has seen of that kind (`user_id` from the ids of `/users`),
 * where one fits the field's schema; newest first.
 */
export function fillReferences(op: Operation, body: unknown, planned: unknown, candidates: (name: string) => string[], fits: (schema: JsonSchema, value: unknown) => boolean | undefined): unknown {
  if (!isRecord(body)) return body;
  const properties = bodyProperties(op);
  let out: Record<string, unknown> | undefined;
  for (const [name, current] of Object.entries(body)) {
    if (!isReferenceName(name) || current === null || typeof current === 'object') continue;
    const fromPlan = isRecord(planned) ? planned[name] : undefined;
    if (typeof fromPlan === 'string' && fromPlan.includes('{{')) continue;
    const schema = properties[name];
    for (const text of [...candidates(name)].reverse()) {
      const value = typed(text, schema);
      if (value === undefined || (schema !== undefined && fits(schema, value) !== true)) continue;
      out ??= { ...body };
      out[name] = value;
      break;
    }
  }
  return out ?? body;
}

/**
 * The top-level body fields that refer to another record with a value the run did not get from the service:
 * not a {{template}} of the plan (a record the run made), not a path parameter's value, not a value seen in an
 * answer. Shown as "user_id = 245".
 */
export function madeUpReferences(body: unknown, planned: unknown, pathParams: Record<string, string>, seen: (value: string, name: string) => boolean): string[] {
  const out: string[] = [];
  // A field named like a reference at any depth, and the `id` of a nested object (`owner: {id: 5}`, JSON:API's
  // `relationships.entry.data.id`): another record's. Only the body's own top-level `id` is the record's.
  const walk = (value: unknown, plannedHere: unknown, at: string, depth: number): void => {
    if (depth > 5) return;
    if (Array.isArray(value)) return value.slice(0, 8).forEach((v, i) => walk(v, Array.isArray(plannedHere) ? plannedHere[i] : undefined, `${at}[${i}]`, depth + 1));
    if (!isRecord(value)) return;
    for (const [name, field] of Object.entries(value)) {
      const where = at === '' ? name : `${at}.${name}`;
      // An integer read exactly (lossless-json) is a number too.
      const exact = field instanceof LosslessNumber;
      const fromPlan = isRecord(plannedHere) ? plannedHere[name] : undefined;
      if (field !== null && typeof field === 'object' && !exact) {
        walk(field, fromPlan, where, depth + 1);
        continue;
      }
      const names = isReferenceName(name) || (depth > 0 && /^(id|uuid)$/i.test(name));
      if (!names || field === null || field === undefined) continue;
      if (typeof fromPlan === 'string' && fromPlan.includes('{{')) continue;
      const text = String(field);
      if (Object.values(pathParams).includes(text) || seen(text, name)) continue;
      out.push(`${where} = ${exact || typeof field === 'bigint' ? text : JSON.stringify(field)}`);
    }
  };
  walk(body, planned, '', 0);
  return out;
}

/**
 * Why a valid request's refusal may be right all the same: what it names that the run did not get from the
 * service (madeUpNames), and the rules of the request the contract says it does not show (unshownRules).
 */
export type Doubts = (request: { pathParams?: Record<string, string>; query?: Record<string, unknown>; body?: unknown; noBody?: boolean }) => { madeUpReferences?: string[]; unshown?: string[] };

/**
 * The rules of a request the contract says it does not show (`x-required: not shown`): whether a body is required
 * (on the request body), which properties of a schema are (on the schema). A request that leaves out what they may
 * require is valid by the letter only.
 */
export function unshownRules(op: Operation, request: { query?: Record<string, unknown>; body?: unknown; noBody?: boolean }, planned?: unknown): string[] {
  // A parameter whose type is not shown, sent: whatever value it has, the service may refuse it.
  const params = op.parameters.filter((p) => p.in === 'query' && typeof p.schema === 'object' && p.schema['x-type'] === 'not shown' && request.query?.[p.name] !== undefined);
  const out = params.length > 0 ? [`the type of ${params.map((p) => `query.${p.name}`).join(', ')} is not shown`] : [];
  return [...out, ...bodyRulesNotShown(op, request, planned)];
}

function bodyRulesNotShown(op: Operation, request: { body?: unknown; noBody?: boolean }, planned?: unknown): string[] {
  const body = op.requestBody;
  if (!body) return [];
  if (request.noBody || request.body === undefined) return body.requiredNotShown ? ['whether a body is required is not shown'] : [];
  const schema = body.schema;
  if (typeof schema !== 'object' || !isRecord(request.body)) return [];
  const sent = request.body;
  const out: string[] = [];
  const properties = factsOf(schema).properties;
  const left = Object.keys(properties).filter((name) => !Object.hasOwn(sent, name));
  if (schema['x-required'] === 'not shown' && left.length > 0) out.push(`which body fields are required is not shown (${left.join(', ')} left out)`);
  // A property whose type is not shown (`x-type: not shown`) sent another value than the example's.
  const untyped = Object.entries(properties).filter(([name, s]) => typeof s === 'object' && s['x-type'] === 'not shown' && Object.hasOwn(sent, name) && !(isRecord(planned) && JSON.stringify(planned[name]) === JSON.stringify(sent[name])));
  if (untyped.length > 0) out.push(`the type of ${untyped.map(([name]) => name).join(', ')} is not shown`);
  return out;
}

/**
 * What a request names that the run did not get from the service (`known` says which values it did): a path
 * value, a query parameter named like a reference to another record (`user_id`, `petId`), a body field that is one.
 * A valid request refused may be refused for one of them (the record may not exist): shown as "{id} = 5",
 * "query.user_id = 9", "owner_id = 245".
 */
export function madeUpNames(request: { pathParams?: Record<string, string>; query?: Record<string, unknown>; body?: unknown }, planned: unknown, known: Known): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(request.pathParams ?? {})) if (!known.path(name, value)) out.push(`{${name}} = ${JSON.stringify(value)}`);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (!isReferenceName(name) || value === undefined || value === null || typeof value === 'object') continue;
    if (!known.reference(name, String(value))) out.push(`query.${name} = ${typeof value === 'bigint' ? String(value) : JSON.stringify(value)}`);
  }
  return [...out, ...madeUpReferences(request.body, planned, request.pathParams ?? {}, (value, name) => known.reference(name, value))];
}

/** Which values the run got from the service: for a path parameter of the operation, for a field naming another record. */
export interface Known {
  path(name: string, value: string): boolean;
  reference(name: string, value: string): boolean;
}

/** The body without the optional top-level fields that name a record the run did not get from the service. */
export function withoutMadeUpReferences(op: Operation, body: unknown, planned: unknown, known: (name: string, value: string) => boolean): unknown {
  if (!isRecord(body) || !op.requestBody) return body;
  const required = new Set(factsOf(mergedShape(op.requestBody.schema)).required);
  const madeUp = madeUpReferences(body, planned, {}, (value, name) => known(name, value)).map((m) => m.split(' = ')[0] ?? '');
  const drop = madeUp.filter((name) => !required.has(name));
  if (drop.length === 0) return body;
  return Object.fromEntries(Object.entries(body).filter(([name]) => !drop.includes(name)));
}
