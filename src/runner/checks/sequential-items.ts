/**
 * A streamed answer (OpenAPI 3.2's sequential media types) judged item by item against its media type's
 * `itemSchema`: JSON Lines and NDJSON one JSON text a line, JSON text sequences (RFC 7464) one a record, server-sent
 * events one event a blank-line-separated block, as the object of its fields (`data`, `event`, `id`, `retry`).
 */
import type { JsonSchema, ResponseSpec } from '../model.ts';
import type { CheckContext } from './types.ts';
import { finding } from './types.ts';

/** The items of a body in a sequential media type: each a value, or the text that is not one (`bad`). */
export function sequenceItems(type: string, body: string): Array<{ value?: unknown; bad?: string }> {
  const base = type.split(';')[0]!.trim().toLowerCase();
  if (base === 'text/event-stream') return events(body).map((value) => ({ value }));
  const texts = base === 'application/json-seq' ? body.split('\u001e') : body.split(/\r?\n/);
  return texts
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((text) => {
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { bad: text.slice(0, 200) };
      }
    });
}

/** Server-sent events (the WHATWG event-stream format): each event's fields; comments and empty events left out. */
function events(body: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const block of body.split(/\r?\n\r?\n|\r\r/)) {
    const event: Record<string, unknown> = {};
    const data: string[] = [];
    for (const line of block.split(/\r?\n|\r/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) event['retry'] = Number(value);
      else if (field === 'event' || field === 'id') event[field] = value;
    }
    if (data.length > 0) event['data'] = data.join('\n');
    if (Object.keys(event).length > 0) out.push(event);
  }
  return out;
}

/** The findings of a streamed answer: the first item that is no value or breaks the item schema, named by its index. */
export function itemFindings(ctx: CheckContext, spec: ResponseSpec, entry: { type: string; itemSchema?: JsonSchema }, location: string) {
  const { response } = ctx.exchange;
  const items = sequenceItems(entry.type, response.body);
  for (const [index, item] of items.entries()) {
    if (item.bad !== undefined) {
      return [finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} (${entry.type}): item ${index} is not JSON.`, { specLocation: location, expected: 'a JSON text', actual: item.bad })];
    }
    const errors = ctx.validator.validate(`${location}/content/${entry.type}/itemSchema`, entry.itemSchema ?? {}, item.value);
    if (errors.length > 0) {
      return [
        finding(ctx, 'response-schema-conformance', 'error', `Response ${response.status} (${entry.type}): item ${index} does not match the item schema: ${errors[0]?.message}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}.`, {
          specLocation: location,
          schemaErrors: errors.slice(0, 20).map((e) => ({ ...e, instancePath: `/${index}${e.instancePath}` })),
          ...(errors[0]?.expected !== undefined ? { expected: errors[0].expected } : {}),
          actual: item.value,
        }),
      ];
    }
  }
  return [];
}
