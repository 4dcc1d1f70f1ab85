import { TOO_DEEP } from '../model.ts';
import type { Check } from './types.ts';
import { finding, mediaType } from './types.ts';

/** True for application/json and any structured-syntax `+json` media type (RFC 6839). */
export function isJsonMediaType(type: string | undefined): boolean {
  return type !== undefined && (type === 'application/json' || /^[a-z0-9.+-]+\/[a-z0-9.+-]*\+json$/.test(type));
}

/** Why a body labelled JSON is not exactly one JSON text (RFC 8259 §2, §8.1), or undefined when it is. */
export function jsonDefect(body: string, invalidUtf8: boolean, parsed = false): string | undefined {
  if (invalidUtf8) return 'is not valid UTF-8';
  if (body.startsWith('\uFEFF')) return 'starts with a byte-order mark';
  // The client parsed it already: one JSON text (a second parse of a megabyte answer is a megabyte of garbage).
  if (parsed) return undefined;
  try {
    JSON.parse(body);
    return undefined;
  } catch (error) {
    return `is not one JSON text (${(error as Error).message.split('\n')[0]})`;
  }
}

/** A body labelled JSON must be exactly one JSON text: valid UTF-8, no byte-order mark, nothing after it. */
export const jsonWellformed: Check = {
  id: 'json-wellformed',
  scope: 'response',
  run(ctx) {
    const { response } = ctx.exchange;
    const type = mediaType(response.headers);
    if (!isJsonMediaType(type) || response.truncated || response.body.trim() === '') return [];
    const defect = jsonDefect(response.body, response.invalidUtf8 === true, response.json !== undefined || response.jsonError?.startsWith(TOO_DEEP) === true);
    if (!defect) return [];
    return [
      finding(ctx, 'json-wellformed', 'error', `The ${response.status} body is labelled ${type} but ${defect}.`, {
        expected: 'exactly one JSON text (RFC 8259)',
        actual: response.body.slice(0, 200),
      }),
    ];
  },
};
