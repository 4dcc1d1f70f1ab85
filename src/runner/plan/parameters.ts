import type { JsonSchema, Operation, ParameterSpec } from '../model.ts';
import { schemaFormat, schemaProperties, schemaTypes } from '../description/json-schema.ts';
import type { Random } from './random.ts';
import { generate, isOmitted, UNKNOWN } from './values.ts';
import { mergedShape } from './keywords.ts';

/**
 * Parameter values and body encodings of a request, from the operation's own description: every location
 * (path, query, header, cookie), the required ones always, the optional ones on a seeded coin toss, and the
 * body in the media type the operation declares (JSON, form-urlencoded, multipart with files).
 */

export type Optional = 'some' | 'none' | 'all';

/** Header names the tool sets itself; a parameter of that name is left to the tool. */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization', 'content-length', 'host', 'cookie']);

/** A value for one parameter: its example, else one built from its schema; undefined when none can be built. */
export function parameterValue(param: ParameterSpec, random: Random): unknown {
  if (param.example !== undefined) return param.example;
  const value = generate(param.schema, random);
  if (value !== UNKNOWN && value !== undefined) return value;
  // A path parameter needs some value: a plain token when the contract shows no type.
  return param.in === 'path' ? `conf-${random.word(6)}` : undefined;
}

/** Values of the parameters in one location: required always, optional per `optional`. */
export function parameterValues(op: Operation, where: ParameterSpec['in'], random: Random, optional: Optional = 'some'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const param of op.parameters) {
    if (param.in !== where) continue;
    if (where === 'header' && RESERVED_HEADERS.has(param.name.toLowerCase())) continue;
    if (!param.required) {
      const send = optional === 'all' || (optional === 'some' && random.next() < 0.5);
      if (!send) continue;
    }
    const value = parameterValue(param, random);
    if (value !== undefined) out[param.name] = value;
  }
  return out;
}

/** A path, header or cookie value as text (arrays comma-separated, objects as JSON). */
export function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map(asText).join(',');
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

export function stringValues(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, asText(v)]));
}

/** An operation's required header and query values, drawn in that order (what a call of a sequence sends besides path and body). */
export function requiredParams(op: Operation, random: Random): { query: Record<string, unknown>; headers?: Record<string, string> } {
  const headers = stringValues(parameterValues(op, 'header', random, 'none'));
  return { query: parameterValues(op, 'query', random, 'none'), ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

/** True when a path parameter is an id in the uuid format (random ids of it are well-formed). */
export function isUuidParam(param: ParameterSpec): boolean {
  return schemaFormat(param.schema) === 'uuid';
}

export interface EncodedBody {
  body: string;
  contentType: string;
}

/**
 * The body encoded in a media type: JSON as JSON, form-urlencoded as key=value pairs (nested values as JSON),
 * multipart/form-data with a part per property (binary properties as small text files). Other types: JSON
 * text for a structured value, the value itself for a string.
 */
export function encodeBody(value: unknown, contentType: string, schema: JsonSchema, boundarySeed: string): EncodedBody {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? 'application/json';
  if (type === 'application/x-www-form-urlencoded' && isRecord(value)) {
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(value)) {
      for (const item of Array.isArray(v) ? v : [v]) form.append(k, typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item));
    }
    return { body: form.toString(), contentType: type };
  }
  if (type === 'multipart/form-data' && isRecord(value)) {
    const boundary = `----conformance${boundarySeed.replace(/[^A-Za-z0-9]/g, '').slice(0, 24)}`;
    const props = schemaProperties(mergedShape(schema));
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      for (const item of Array.isArray(v) ? v : [v]) {
        const file = isFile(props[k]);
        const text = typeof item === 'object' && item !== null ? JSON.stringify(item) : String(item);
        parts.push(
          `--${boundary}\r\nContent-Disposition: form-data; name="${k}"${file ? `; filename="${k}.txt"` : ''}\r\n` +
            `${file ? 'Content-Type: application/octet-stream\r\n' : ''}\r\n${text}\r\n`,
        );
      }
    }
    return { body: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
  }
  if (/json/.test(type) || typeof value !== 'string') return { body: JSON.stringify(value), contentType: contentType };
  return { body: value, contentType };
}

function isFile(schema: JsonSchema | undefined): boolean {
  if (schema === undefined || typeof schema !== 'object') return false;
  const format = schemaFormat(schema);
  if (format === 'binary' || format === 'base64') return true;
  if (typeof schema['contentMediaType'] === 'string' || typeof schema['contentEncoding'] === 'string') return true;
  const items = schema['items'];
  return schemaTypes(schema).includes('array') && typeof items === 'object' && items !== null && isFile(items as JsonSchema);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Removes readOnly properties from a request body built from an example (the server sets them). */
export function withoutReadOnly(value: unknown, schema: JsonSchema): unknown {
  if (!isRecord(value)) return value;
  const props = schemaProperties(mergedShape(schema));
  return Object.fromEntries(Object.entries(value).filter(([k]) => !(props[k] !== undefined && isOmitted(props[k]))));
}
