/**
 * An answer's own words for why it refused a request, quoted short in a finding: the message of an error envelope
 * as APIs write them (`{"errors": {"body": ["..."]}}`, `{"errors": [{"message": "..."}]}`, `{"error": {"message":
 * "..."}}`, `{"message": "..."}`, `{"detail": "..."}`, RFC 9457's `title` and `detail`), or a short text body.
 */

/** Characters of an answer's error text a finding quotes at most. */
export const ERROR_TEXT_CHARS = 160;

/** Keys of an error map that name no field (their messages are said alone). */
const CONTAINERS = /^(body|base|non_field_errors|general|_?errors?|messages?|details?|__all__)$/i;

const MESSAGE_KEYS = ['message', 'detail', 'error_description', 'error', 'errors', 'title', 'msg', 'reason', 'description'];

/** The texts of an error value: strings as they are, arrays item by item, objects by their message-like keys (else every value). */
function texts(value: unknown, depth: number): string[] {
  if (depth > 4) return [];
  if (typeof value === 'string') return value.trim() === '' ? [] : [value.trim()];
  if (Array.isArray(value)) return value.flatMap((v) => texts(v, depth + 1));
  if (typeof value !== 'object' || value === null) return [];
  const obj = value as Record<string, unknown>;
  const keyed = MESSAGE_KEYS.filter((k) => k in obj).flatMap((k) => texts(obj[k], depth + 1));
  if (keyed.length > 0) return keyed;
  // A map of field names to messages ({"email": ["has already been taken"]}): each with its field.
  return Object.entries(obj).flatMap(([k, v]) => texts(v, depth + 1).map((t) => (!CONTAINERS.test(k) && (typeof v === 'string' || Array.isArray(v)) ? `${k} ${t}` : t)));
}

/** The answer's error text, at most ERROR_TEXT_CHARS characters (undefined: it has none). */
export function answerErrorText(json: unknown, body: string, contentType = ''): string | undefined {
  let found: string[] = [];
  if (typeof json === 'object' && json !== null) {
    const obj = json as Record<string, unknown>;
    found = Array.isArray(json) ? texts(json, 0) : MESSAGE_KEYS.some((k) => k in obj) ? MESSAGE_KEYS.filter((k) => k in obj).flatMap((k) => texts(obj[k], 1)) : [];
  } else if (typeof json === 'string') {
    found = texts(json, 0);
  } else if (/^text\/plain/i.test(contentType) && body.trim() !== '' && body.length <= 2 * ERROR_TEXT_CHARS) {
    found = [body.trim()];
  }
  const text = [...new Set(found)].join('; ').replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  return text.length > ERROR_TEXT_CHARS ? `${text.slice(0, ERROR_TEXT_CHARS - 1)}…` : text;
}
