/**
 * The targets of the coverage classes (plan/coverage-classes.ts): the parameters and the top-level body fields
 * of an operation (and the fields of a one-member envelope object, a form's fields, a text body), each with its
 * verdict on a value and the request that sends it; and the keys by which two items sending the same request meet.
 */
import { stringify as losslessStringify, LosslessNumber } from 'lossless-json';
import type { JsonSchema, Operation, ParameterSpec, RequestBodySpec } from '../model.ts';
import { accepts } from './accepts.ts';
import type { PositiveRequest } from './arbitraries.ts';
import type { CoverageRequest } from './coverage-request.ts';
import { emptyIsAmbiguous } from './empty-values.ts';
import { factsOf, mergedShape } from './keywords.ts';
import { isDotSegment, isRawSegment } from './path-classes.ts';
import { pathRecordFields } from './relations.ts';
import { isOmitted } from './values.ts';

export type Verdict = boolean | undefined;
export type Where = ParameterSpec['in'] | 'body';

export const ABSENT = Symbol('absent');
export type Value = unknown | typeof ABSENT;

/** One input the coverage classes vary: a parameter, a top-level body field (or a field of a one-member envelope), a text body. */
export interface Target {
  where: Where;
  name: string;
  schema: JsonSchema;
  required: boolean;
  /** Whether the positive request has it. */
  present: boolean;
  /** A parameter sent as one JSON text (described by a JSON media type): its values are any JSON, as a body field's. */
  json?: boolean;
  /** A parameter whose empty value a server may read as left out (plan/empty-values.ts). */
  emptyAmbiguous?: Pick<ParameterSpec, 'in' | 'required'>;
  /** A body field named like a path parameter: it names the path's record, so no valid variation of it (but null) is sent. */
  namesPath?: true;
  /** A field of the body's one-member envelope object (`data.id`): not one of the fields all-at-bound moves. */
  nested?: true;
  /** A form field or a text body: its values are text, as a URL parameter's are. */
  text?: true;
  /** What the positive request sends (ABSENT: nothing; undefined: not known here, e.g. a path id filled in later). */
  positiveValue: Value | undefined;
  verdict(value: Value): Verdict;
  request(value: Value): Omit<CoverageRequest, 'label' | 'valid' | 'class'> | undefined;
}

/** Header parameters OpenAPI says are ignored (the engine sets them itself). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

export function isJson(contentType: string): boolean {
  return /json/i.test(contentType.split(';')[0] ?? '');
}

/**
 * The body declared as JSON: a JSON media type, or the JSON a range (`*\/*`) stands for where its schema says
 * what the JSON holds (a range with a schema that takes anything takes any bytes: malformed JSON among them).
 */
export function jsonBody(op: Operation): RequestBodySpec | undefined {
  return declaredBodies(op).find((b) => isJson(b.contentType) && (b.range === undefined || factsOf(b.schema).types.length > 0 || factsOf(b.schema).hasProperties));
}

export function declaredBodies(op: Operation) {
  return op.requestBodies && op.requestBodies.length > 0 ? op.requestBodies : op.requestBody ? [op.requestBody] : [];
}



export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when the value holds a number JSON.stringify cannot write as sent (beyond 2^53, or `5.0`). */
export function hasBigInt(v: unknown): boolean {
  if (typeof v === 'bigint' || v instanceof LosslessNumber) return true;
  if (Array.isArray(v)) return v.some(hasBigInt);
  return isRecord(v) && Object.values(v).some(hasBigInt);
}

/** A value as URL, header or cookie text (arrays in the simple style). */
function text(v: unknown): string {
  if (Array.isArray(v)) return v.map(text).join(',');
  return typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** A query value the engine serialises as it would the typed one (BigInt as its digits, JSON-safe). */
function queryValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  return Array.isArray(v) ? v.map(queryValue) : v;
}

export function targetsOf(op: Operation, positive: PositiveRequest): Target[] {
  const targets: Target[] = [];
  for (const where of ['path', 'query', 'header', 'cookie'] as const) {
    for (const p of op.parameters) {
      if (p.in !== where) continue;
      if (where === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) continue;
      targets.push(parameterTarget(p, positive));
    }
  }
  const json = jsonBody(op);
  if (json && isRecord(positive.body)) {
    const body = positive.body;
    const positiveOk = accepts(json.schema, body);
    const bodyFacts = factsOf(mergedShape(json.schema));
    const pathNames = new Set(pathRecordFields(op).keys());
    for (const [name, schema] of Object.entries(bodyFacts.properties)) {
      if (isOmitted(schema)) continue;
      const target = bodyFieldTarget(name, schema, json.schema, json.contentType, body, positiveOk, bodyFacts.required.includes(name));
      targets.push(pathNames.has(name) ? { ...target, namesPath: true } : target);
    }
    // A one-member envelope (JSON:API's `{"data": {"type": …, "id": …, "attributes": {…}}}`): the fields of its
    // object, and of that object's objects (the record's attributes), are the body's fields too.
    const [envelope, ...others] = Object.keys(body);
    const envelopeSchema = envelope === undefined ? undefined : bodyFacts.properties[envelope];
    if (envelope !== undefined && others.length === 0 && envelopeSchema !== undefined && isRecord(body[envelope])) {
      const nestedTargets = (schema: JsonSchema, within: string[], depth: number): void => {
        const inner = factsOf(mergedShape(schema));
        const object = objectAt(body, within);
        for (const [name, field] of Object.entries(inner.properties)) {
          if (isOmitted(field)) continue;
          const target = { ...bodyFieldTarget(name, field, json.schema, json.contentType, body, positiveOk, inner.required.includes(name), false, within), nested: true as const };
          targets.push(depth === 1 && pathNames.has(name) ? { ...target, namesPath: true } : target);
        }
        if (depth > 1) return;
        for (const [name, field] of Object.entries(inner.properties)) if (!isOmitted(field) && isRecord(object[name])) nestedTargets(field, [...within, name], depth + 1);
      };
      nestedTargets(envelopeSchema, [envelope], 1);
    }
    return targets;
  }
  // A form's fields are text, as a query parameter's are: their classes are a query parameter's (a number that is
  // no number, a bound, an enum, a field left out), sent in the form. A file field is left as it is.
  const first = op.requestBody;
  if (first && isForm(first.contentType) && isRecord(positive.body)) {
    const body = positive.body;
    const positiveOk = accepts(first.schema, body);
    const facts = factsOf(mergedShape(first.schema));
    for (const [name, schema] of Object.entries(facts.properties)) {
      if (isOmitted(schema) || isFileField(schema)) continue;
      targets.push({ ...bodyFieldTarget(name, schema, first.schema, first.contentType, body, positiveOk, facts.required.includes(name), true), text: true });
    }
  } else if (first && /^text\//i.test(first.contentType) && typeof positive.body === 'string') {
    // A text body is one value: the classes of its schema (lengths, a pattern, an enum), sent as that text.
    const schema = first.schema;
    targets.push({
      where: 'body',
      name: '',
      schema,
      required: first.required,
      present: true,
      text: true,
      positiveValue: positive.body,
      verdict: (value) => (value === ABSENT ? !first.required : accepts(schema, value)),
      request: (value) => (value === ABSENT ? undefined : { rawBody: text(value), contentType: first.contentType }),
    });
  }
  return targets;
}

function isForm(contentType: string): boolean {
  return /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(contentType);
}

/** A form field that carries a file (binary or base64, a content media type), or an array of them. */
function isFileField(schema: JsonSchema): boolean {
  if (typeof schema !== 'object') return false;
  const facts = factsOf(schema);
  if (facts.format === 'binary' || facts.format === 'base64' || schema['contentMediaType'] !== undefined || schema['contentEncoding'] !== undefined) return true;
  return facts.types.includes('array') && facts.hasItems && isFileField(facts.items);
}

function positiveParameter(p: ParameterSpec, positive: PositiveRequest): Value | undefined {
  switch (p.in) {
    case 'path':
      return positive.pathParams[p.name];
    case 'query':
      return positive.query[p.name] === undefined ? ABSENT : positive.query[p.name];
    case 'header':
      return positive.headers?.[headerName(p.name, positive.headers)];
    case 'cookie':
      return positive.cookies?.[p.name];
  }
}

/** The header's name as the positive request spells it (header names are case-insensitive), else as declared. */
function headerName(name: string, headers: Record<string, string> | undefined): string {
  return Object.keys(headers ?? {}).find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
}

function parameterTarget(p: ParameterSpec, positive: PositiveRequest): Target {
  const json = p.contentType !== undefined && isJson(p.contentType);
  return {
    ...(json ? { json } : {}),
    ...(emptyIsAmbiguous(p) ? { emptyAmbiguous: p } : {}),
    where: p.in,
    name: p.name,
    schema: p.schema,
    required: p.required,
    present: p.in === 'query' ? p.name in positive.query : true,
    positiveValue: positiveParameter(p, positive),
    // Parameters are independent of each other: the parameter's own schema decides. A raw segment is no value of it.
    verdict: (value) => (value === ABSENT ? !p.required : isRawSegment(value) ? false : accepts(p.schema, value)),
    request: (value) => {
      switch (p.in) {
        case 'path':
          if (isRawSegment(value)) return { rawPathParams: { [p.name]: value.raw } };
          // A dot segment goes out resolved (another route): not sent.
          return value === ABSENT || isDotSegment(text(value)) ? undefined : { pathParams: { [p.name]: text(value) } };
        case 'query': {
          const { [p.name]: _left, ...rest } = positive.query;
          return { query: value === ABSENT ? rest : { ...positive.query, [p.name]: json ? value : queryValue(value) } };
        }
        case 'header':
          return value === ABSENT ? undefined : { headers: { [headerName(p.name, positive.headers)]: text(value) } };
        case 'cookie':
          return value === ABSENT ? undefined : { cookies: { [p.name]: text(value) } };
      }
    },
  };
}

/** The object at a path of field names inside a body (the body itself for none). */
function objectAt(body: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  return path.reduce<Record<string, unknown>>((o, key) => o[key] as Record<string, unknown>, body);
}

/** The body with the object at the path replaced. */
function withObjectAt(body: Record<string, unknown>, path: readonly string[], object: Record<string, unknown>): Record<string, unknown> {
  const [first, ...rest] = path;
  if (first === undefined) return object;
  return { ...body, [first]: withObjectAt(body[first] as Record<string, unknown>, rest, object) };
}

/** A body field's target; `within`: the path of the object that holds it (the body's one-member envelope, an object of it). */
function bodyFieldTarget(name: string, schema: JsonSchema, bodySchema: JsonSchema, contentType: string, body: Record<string, unknown>, positiveOk: Verdict, required: boolean, asText = false, within: readonly string[] = []): Target {
  const host = objectAt(body, within);
  const variant = (value: Value, sent = false): Record<string, unknown> => {
    let changed: Record<string, unknown>;
    if (value !== ABSENT) changed = { ...host, [name]: sent && asText ? queryValue(value) : value };
    else {
      const { [name]: _left, ...rest } = host;
      changed = rest;
    }
    return withObjectAt(body, within, changed);
  };
  return {
    where: 'body',
    name: [...within, name].join('.'),
    schema,
    required,
    present: Object.hasOwn(host, name),
    positiveValue: Object.hasOwn(host, name) ? host[name] : ABSENT,
    verdict: (value) => {
      // A value its property's schema rejects makes any body holding it invalid (`properties` applies to all).
      if (value !== ABSENT && accepts(schema, value) === false) return false;
      const whole = accepts(bodySchema, variant(value));
      if (whole === true) return true;
      // Invalid only where the positive body was valid: else the rest of the body (a {{template}}) may be why.
      return whole === false && positiveOk === true ? false : undefined;
    },
    request: (value) => {
      const v = variant(value, true);
      return !asText && hasBigInt(v) ? { rawBody: losslessStringify(v) as string, contentType } : { body: v };
    },
  };
}


/**
 * Two items with the same key send the same request. A target's items differ from the positive request in one
 * value, keyed by that value as sent (URL text; a body field's JSON); an item replacing the whole body is keyed
 * by what it sends instead (they cannot meet a target's key).
 */
export function targetKey(t: Target, value: Value): string {
  if (value === ABSENT) return `${t.where}\u0000${t.name}\u0000absent`;
  if (isRawSegment(value)) return `${t.where}\u0000${t.name}\u0000raw\u0000${value.raw}`;
  if (t.where === 'body') return `body\u0000${t.name}\u0000${valueKey(value)}`;
  const items = Array.isArray(value) ? value : [value];
  return `${t.where}\u0000${t.name}\u0000${items.map((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))).join('\u0000')}`;
}

export function valueKey(value: unknown): string {
  if (value === ABSENT) return '\u0000absent';
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { '\u0000bigint': v.toString() } : v));
  }
}

export function wholeKey(item: Pick<CoverageRequest, 'body' | 'rawBody' | 'contentType' | 'noBody'>): string {
  return `whole\u0000${item.noBody ? 'none' : item.rawBody !== undefined ? `${item.contentType}\u0000${item.rawBody}` : valueKey(item.body)}`;
}
