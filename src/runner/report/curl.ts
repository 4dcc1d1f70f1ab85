/**
 * A copy-able curl command for a recorded (redacted) request, for POSIX shells (bash, zsh, sh).
 *
 * Every argument is single-quoted (a single quote inside becomes '\''), so nothing in a URL, header or body
 * is expanded by the shell. The one exception is the credential: the engine stores the run's token as
 * `Bearer $CONFORMANCE_TOKEN`, and that header is emitted in double quotes so the shell substitutes the
 * variable the user exports. `-g` turns curl's URL globbing off ({} and [] are data); `--path-as-is` is added
 * when the path has dot segments, so curl sends it unchanged.
 */
import type { RecordedRequest } from '../model.ts';
import { ownString } from './text.ts';

/** The variable the engine writes in place of the token. */
export const TOKEN_VARIABLE = 'CONFORMANCE_TOKEN';

/** The variables a reproduction reads credentials from: the token, each security scheme's (--auth), each identity's (--identity). */
const CREDENTIAL_VARIABLE = `(?:${TOKEN_VARIABLE}|CONFORMANCE_AUTH_[A-Z0-9_]+|CONFORMANCE_IDENTITY_[A-Z0-9_]+)`;
const TOKEN_VALUE = new RegExp(`^(?:[A-Za-z]+ )?\\$${CREDENTIAL_VARIABLE}$`);
/** A credential variable in a text (not a refused variant of it, `$CONFORMANCE_TOKEN~changed`). */
const VARIABLE_IN_TEXT = new RegExp(`\\$(${CREDENTIAL_VARIABLE})(?![~A-Za-z0-9_])`, 'g');

/** The credential variables a text names (CONFORMANCE_TOKEN, CONFORMANCE_AUTH_API_KEY). */
export function credentialVariables(text: string): string[] {
  return [...text.matchAll(VARIABLE_USED)].map((m) => m[1]!);
}

/** A credential variable as a shell command reads it ($NAME or ${NAME}). */
const VARIABLE_USED = new RegExp(`\\$\\{?(${CREDENTIAL_VARIABLE})(?![~A-Za-z0-9_])`, 'g');

/**
 * One shell word for a text: single-quoted, or where it names a credential variable, double-quoted with every
 * other character escaped so that only the variable is expanded.
 */
export function credentialWord(text: string, braces = false): string {
  if (credentialVariables(text).length === 0) return shellQuote(text);
  let out = '"';
  let at = 0;
  for (const m of text.matchAll(VARIABLE_IN_TEXT)) {
    const end = m.index! + m[0].length;
    const bare = !braces && !/^[A-Za-z0-9_]/.test(text.slice(end));
    out += `${doubleQuoteEscape(text.slice(at, m.index))}${bare ? `$${m[1]}` : `\${${m[1]}}`}`;
    at = end;
  }
  return `${out}${doubleQuoteEscape(text.slice(at))}"`;
}

/** Headers curl computes from what it sends; copying them could contradict the actual body. */
const DERIVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** Wraps text in single quotes for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A body of bytes (one per character, e.g. one that is not UTF-8) as one shell word: printf writes the bytes
 * (printable ASCII as is, the rest as octal escapes, which POSIX printf knows), the command substitution makes
 * them curl's argument.
 */
export function bytesWord(text: string): string {
  let format = '';
  for (const ch of text) {
    const code = ch.charCodeAt(0) & 0xff;
    format += code >= 0x20 && code < 0x7f && ch !== '\\' && ch !== '%' && ch !== "'" ? ch : `\\${code.toString(8).padStart(3, '0')}`;
  }
  return `"$(printf '${format}')"`;
}

/** Escapes text for use inside double quotes in a POSIX shell ($, `, ", \ are special there). */
function doubleQuoteEscape(text: string): string {
  return text.replace(/[$`"\\]/g, (ch) => `\\${ch}`);
}

/** True when the header value is the token placeholder ("Bearer $CONFORMANCE_TOKEN"). */
export function carriesToken(value: string): boolean {
  return TOKEN_VALUE.test(value);
}

/** The curl command reproducing the request, on one line. */
export function toCurl(request: RecordedRequest): string {
  const args: string[] = ['curl', '-g'];
  if (hasDotSegments(request.url)) args.push('--path-as-is');
  const hasBody = request.body !== undefined;
  if (request.method === 'HEAD') args.push('--head');
  else if (request.method !== 'GET' || hasBody) args.push('-X', request.method);
  args.push(credentialWord(request.url));
  // The engine asks for compressed answers; --compressed makes curl ask the same and print them decoded.
  if (Object.keys(request.headers).some((name) => name.toLowerCase() === 'accept-encoding')) args.push('--compressed');
  for (const [name, value] of Object.entries(request.headers)) {
    if (DERIVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase() === 'accept-encoding') continue;
    if (carriesToken(value)) {
      args.push('-H', credentialWord(`${name}: ${value}`));
    } else if (value === '') {
      // "Name:" would make curl drop the header; "Name;" sends it with an empty value.
      args.push('-H', shellQuote(`${name};`));
    } else {
      args.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (!hasBody && (request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH')) {
    // The HTTP client says "no body" with Content-Length: 0 on these methods; curl would send no length at all.
    args.push('-H', shellQuote('content-length: 0'));
  }
  if (hasBody) {
    // Without a recorded content-type, stop curl from adding application/x-www-form-urlencoded.
    if (!Object.keys(request.headers).some((name) => name.toLowerCase() === 'content-type')) args.push('-H', shellQuote('Content-Type:'));
    if (request.bodyEncoding === 'latin1') args.push('--data-binary', bytesWord(request.body ?? ''));
    else args.push('--data-raw', shellQuote(request.body ?? ''));
  }
  // Kept for every failing case until the reports are written: most were two bytes a character (29 MB at
  // 2,770 operations instead of 15).
  return ownString(args.join(' '));
}

function hasDotSegments(url: string): boolean {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';
  return path.split('/').some((segment) => segment === '.' || segment === '..' || /^%2e(%2e)?$/i.test(segment));
}
