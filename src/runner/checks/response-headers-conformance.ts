import { responseFor } from '../description/load.ts';
import { factsOf } from '../plan/keywords.ts';
import type { JsonSchema } from '../model.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/** What the client records of a header whose value it keeps secret (http/redact.ts). */
const REDACTED = /\[redacted\]|\$CONFORMANCE_/;

/**
 * The headers a documented response declares: a required one must be present, and a present one's value must
 * match its schema (read as OpenAPI's `simple` style: numbers and booleans from their text, arrays split at commas).
 */
export const responseHeadersConformance: Check = {
  id: 'response-headers-conformance',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const spec = responseFor(ctx.operation, response.status);
    if (!spec?.headers) return [];
    const out = [];
    for (const header of spec.headers) {
      const value = response.headers[header.name.toLowerCase()];
      const location = `${ctx.operation.specFile}#${header.pointer}`;
      if (value === undefined) {
        if (header.required) {
          out.push(finding(ctx, 'response-headers-conformance', 'error', `Response ${response.status} lacks the header ${header.name}, which the contract declares required.`, { specLocation: location, expected: `a ${header.name} header`, actual: null }));
        }
        continue;
      }
      if (REDACTED.test(value)) continue;
      const typed = header.contentType !== undefined && /json/i.test(header.contentType) ? parsedJson(value) : simple(value, header.schema);
      const errors = ctx.validator.validate(`header:${location}`, header.schema, typed);
      if (errors.length === 0) continue;
      out.push(
        finding(ctx, 'response-headers-conformance', 'error', `Response ${response.status} header ${header.name}: ${JSON.stringify(value)} does not match its schema: ${errors[0]?.message}.`, {
          specLocation: location,
          schemaErrors: errors.slice(0, 5),
          ...(errors[0]?.expected !== undefined ? { expected: errors[0].expected } : {}),
          actual: value,
        }),
      );
    }
    return out;
  },
};

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A header's text as the value its schema describes (OpenAPI's simple style); text that reads as none stays text. */
function simple(text: string, schema: JsonSchema): unknown {
  if (typeof schema !== 'object') return text;
  const facts = factsOf(schema);
  const value = text.trim();
  if (facts.types.includes('string') || facts.types.length === 0) return value;
  if (facts.types.includes('array')) return value === '' ? [] : value.split(',').map((item) => simple(item, facts.items));
  if ((facts.types.includes('integer') || facts.types.includes('number')) && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) return Number(value);
  if (facts.types.includes('boolean') && /^(true|false)$/.test(value)) return value === 'true';
  return value;
}
