import { isSequentialMedia } from '../description/openapi32.ts';
import { XMLValidator } from 'fast-xml-parser';
import { responseFor } from '../description/load.ts';
import { MAX_JSON_DEPTH, TOO_DEEP } from '../model.ts';
import type { Check } from './types.ts';
import { finding, mediaType } from './types.ts';

/** application/xml, text/xml and the structured-syntax `+xml` types (RFC 7303). */
export function isXmlMediaType(type: string | undefined): boolean {
  return type !== undefined && /^(application|text)\/(.+\+)?xml$/.test(type);
}

/**
 * A body the run can read and use. Larger than the body cap (--max-body-size): only its first bytes were read, so
 * its status, media type and headers were judged and its body not (a warning, never a failure: a large page is
 * no defect). Not usable as what it says it is: JSON nested deeper than the client keeps, or not valid JSON where
 * JSON is declared (by the answer's content type, or the contract where it has none), or XML that is not
 * well-formed: the case fails rather than pass unexamined.
 */
export const responseBodyReadable: Check = {
  id: 'response-body-readable',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    if (response.truncated) {
      const cap = ctx.bodyCapBytes ?? Buffer.byteLength(response.body);
      const length = Number(response.headers['content-length']);
      const size = Number.isSafeInteger(length) && length > cap ? `${length} bytes (Content-Length)` : `more than ${cap} bytes`;
      return [
        finding(ctx, 'response-body-readable', 'warning', `Response ${response.status} body is ${size}: not judged past ${cap} bytes (--max-body-size); its status, media type and headers were.`, {
          expected: `a body within ${cap} bytes to judge it whole`,
          actual: size,
        }),
      ];
    }
    const actual = mediaType(response.headers);
    const spec = responseFor(ctx.operation, response.status);
    // A sequence of JSON texts (JSON Lines, NDJSON, JSON text sequences) is no one JSON text: its items are judged apart.
    const isJson = (t: string) => /json/i.test(t) && !isSequentialMedia(t);
    const declaredJson = actual !== undefined ? isJson(actual) : (spec?.contentTypes ?? []).some(isJson);
    if (response.jsonError && declaredJson) {
      // As deep as the request it answers (a body nested thousands of levels deep, stored and sent back): the depth
      // is the request's own, not the service's doing; noted as not judged.
      const echo = response.jsonError.startsWith(TOO_DEEP) && deeperThan(ctx.exchange.request.body, MAX_JSON_DEPTH);
      if (echo) return [finding(ctx, 'response-body-readable', 'warning', `Response ${response.status}: ${response.jsonError}, as deep as the request it answers: not judged.`, { expected: 'a JSON body', actual: response.body.slice(0, 200) })];
      return [finding(ctx, 'response-body-readable', 'error', `Response ${response.status}: ${response.jsonError}.`, { expected: 'a JSON body', actual: response.body.slice(0, 200) })];
    }
    if (isXmlMediaType(actual) && response.body.trim() !== '') {
      const verdict = XMLValidator.validate(response.body);
      if (verdict !== true) {
        const { msg, line, col } = verdict.err;
        return [
          finding(ctx, 'response-body-readable', 'error', `Response ${response.status} is labelled ${actual} but is not well-formed XML: ${msg} (line ${line}, column ${col}).`, {
            expected: 'a well-formed XML document',
            actual: response.body.slice(0, 200),
          }),
        ];
      }
    }
    return [];
  },
};

/** Whether a JSON text nests arrays or objects deeper than `limit` (brackets outside strings counted, nothing parsed). */
function deeperThan(text: string | undefined, limit: number): boolean {
  if (text === undefined) return false;
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === 0x5c) i++;
      else if (c === 0x22) quoted = false;
    } else if (c === 0x22) quoted = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
