import type { RecordedResponse } from '../model.ts';
import type { Check } from './types.ts';
import { finding } from './types.ts';

/**
 * How each runtime prints a stack trace: `frames` match one frame line each (a line of the text, from its start);
 * `headers` match lines that only a trace prints around its frames. One line or one header alone is no trace:
 * ordinary messages ("error at line 3", "invalid value at /name") may look like one.
 */
interface TraceStyle {
  language: string;
  frames: RegExp[];
  headers: RegExp[];
}

/** A JavaScript or TypeScript source location with its line and column (Node, browsers' bundles). */
const JS_LOCATION = String.raw`(?:(?:file:\/\/|webpack:\/\/|[A-Za-z]:\\)?[^\s()]*[\\/])?[^\s()\\/]+\.(?:[cm]?js|[cm]?ts|jsx|tsx):\d+:\d+`;

export const TRACE_STYLES: readonly TraceStyle[] = [
  {
    language: 'Java/Kotlin (JVM)',
    // at com.acme.Foo.bar(Foo.java:42), at java.base/java.lang.Thread.run(Thread.java:829) ~[app.jar:1.0]
    frames: [/^[ \t]*at (?:[\w.$-]+(?:@[\w.-]+)?\/)*[\w$]+(?:\.[\w$<>-]+)+\((?:[\w$.-]+\.(?:java|kt|kts|scala|groovy|clj)(?::\d+)?|Native Method|Unknown Source)\)/],
    headers: [/^Exception in thread "[^"]*" [\w$]+(?:\.[\w$]+)+/, /^[ \t]*Caused by: [\w$]+(?:\.[\w$]+)+(?::|[ \t\r]*$)/, /^[ \t]*\.\.\. \d+ (?:more|common frames omitted)[ \t\r]*$/],
  },
  {
    language: '.NET',
    // at Acme.Foo.Bar(String name) in C:\src\Foo.cs:line 42, at System.Threading.Tasks.Task.Execute()
    frames: [/^[ \t]*at [\w`<>|$[\],+]+(?:\.[\w`<>|$[\],+]+)+\((?![^()\n]*\.(?:java|kt|scala|groovy):\d+\))[^()\n]*\)(?: in .+:line \d+)?[ \t\r]*$/],
    headers: [/^[ \t]*--- End of (?:inner exception )?stack trace/],
  },
  {
    language: 'Python',
    // File "/app/x.py", line 3, in f
    frames: [/^[ \t]*File "[^"\n]+", line \d+(?:, in \S+)?[ \t\r]*$/],
    headers: [/^[ \t]*Traceback \(most recent call last\):[ \t\r]*$/, /^During handling of the above exception, another exception occurred:/],
  },
  {
    language: 'Node.js',
    // at Object.<anonymous> (/app/x.js:10:15), at async Promise.all (index 0), at /app/x.js:10:15
    frames: [
      new RegExp(String.raw`^[ \t]*at (?:async )?(?:new )?[^\s()]+(?: \[as [^\]\n]+\])? \((?:${JS_LOCATION}|node:[\w/.-]+:\d+:\d+|<anonymous>|native|index \d+)\)[ \t\r]*$`),
      new RegExp(String.raw`^[ \t]*at (?:async )?(?:${JS_LOCATION}|node:[\w/.-]+:\d+:\d+)[ \t\r]*$`),
    ],
    headers: [],
  },
  {
    language: 'Go',
    // /app/main.go:42 +0x1d (a panic, debug.Stack), or a file line under its function's line (pkg/errors)
    frames: [/^[ \t]*(?:[A-Za-z]:)?[^\s:]*\.go:\d+ \+0x[0-9a-f]+[ \t\r]*$/, /(?<=^[^\s()]+\([^()\n]*\)\r?\n)[ \t]+(?:[A-Za-z]:)?[^\s:]*\.go:\d+[ \t\r]*$/],
    headers: [/^goroutine \d+ \[[^\]\n]+\]:[ \t\r]*$/, /^panic: \S/],
  },
  {
    language: 'Ruby',
    // app/models/x.rb:12:in 'save', from app/models/x.rb:12:in `block in save'
    frames: [/^[ \t]*(?:from )?(?:[A-Za-z]:)?[^\s:]+\.rb:\d+:in [`'][^'\n]+'[ \t\r]*$/],
    headers: [],
  },
  {
    language: 'PHP',
    // #0 /var/www/x.php(12): foo(), #1 [internal function]: bar(), #2 {main}
    frames: [/^[ \t]*#\d+ (?:[^\n]+\.php\(\d+\): \S|\[internal function\]: \S|\{main\}[ \t\r]*$)/],
    headers: [/^[ \t]*Stack trace:[ \t\r]*$/, /^[ \t]*PHP (?:Fatal|Parse|Warning|Notice)[\w ]*:/],
  },
];

/** Cheap first pass: a text without any of these holds no frame of any style. */
const ANY_FRAME = /\bat |File "|\.go:\d|\.rb:\d|#\d+ /;

/** The same in a body as sent: in JSON text a frame may follow an escape (`\\tat `), a quote is escaped (`File \\"`). */
const ANY_FRAME_ESCAPED = /at |File \\?"|\.go:\d|\.rb:\d|#\d+ /;

/** What is scanned of a body: its first 256 KiB. */
export const SCAN_BYTES = 256 * 1024;

export interface TraceSeen {
  language: string;
  /** The first frame line, trimmed and shortened. */
  frame: string;
}

/**
 * The trace a text carries, if any: in one style, a header line and a frame line, or two frame lines. Lines are
 * split at CR LF or LF; each frame line counts once.
 */
export function findStackTrace(text: string): TraceSeen | undefined {
  if (!ANY_FRAME.test(text)) return undefined;
  for (const style of COMPILED) {
    const starts = new Set<number>();
    for (const frame of style.frames) for (const m of text.matchAll(frame)) starts.add(m.index);
    if (starts.size === 0) continue;
    if (starts.size < 2 && !style.headers.some((h) => h.test(text))) continue;
    const first = Math.min(...starts);
    return { language: style.language, frame: shorten(text.slice(first, lineEnd(text, first)).trim()) };
  }
  return undefined;
}

/** The styles with their patterns made to match at every line: frames found all at once, headers anywhere. */
const COMPILED = TRACE_STYLES.map((style) => ({
  language: style.language,
  frames: style.frames.map((f) => new RegExp(f.source, 'gm')),
  headers: style.headers.map((h) => new RegExp(h.source, 'm')),
}));

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end < 0 ? text.length : end;
}

function shorten(line: string, max = 100): string {
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * The texts of a body to scan: its text; an HTML page's text (tags out, entities decoded); a JSON body's string
 * values, or, for JSON that was not parsed (cut at the body cap), its text with the escapes of line breaks undone.
 */
export function bodyTexts(response: Pick<RecordedResponse, 'body' | 'json'>): string[] {
  const body = head(response.body);
  // Most bodies hold no sign of a frame, escaped or not: their JSON is not walked.
  if (!ANY_FRAME_ESCAPED.test(body)) return [];
  const out = [body];
  if (/<(?:br|pre|p|div|li|td)\b/i.test(body)) out.push(htmlText(body));
  if (typeof response.json === 'object' && response.json !== null) out.push(jsonStrings(response.json));
  else if (response.json === undefined && /^\s*[[{]/.test(body) && body.includes('\\n')) out.push(unescaped(body));
  return out;
}

/** JSON text with its string escapes of line breaks, tabs, quotes and backslashes undone (frames then stand on lines of their own). */
function unescaped(json: string): string {
  const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\', '/': '/' };
  return json.replace(/\\([nrt"\\/])/g, (_, c: string) => escapes[c] ?? c);
}

/** The first SCAN_BYTES of a text (bytes of UTF-8: a long text is measured only when it could be longer). */
function head(text: string): string {
  if (text.length <= SCAN_BYTES / 3) return text;
  const bytes = Buffer.from(text.slice(0, SCAN_BYTES), 'utf8');
  return bytes.length <= SCAN_BYTES ? text.slice(0, SCAN_BYTES) : bytes.subarray(0, SCAN_BYTES).toString('utf8');
}

const ENTITIES: Record<string, string> = { nbsp: ' ', lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", '#39': "'", '#x27': "'", '#x2F': '/', '#47': '/' };

/** The text of an HTML page as its lines read: a <br> or a block's end breaks a line (Express's error page breaks frames with <br>). */
function htmlText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/(?:p|div|li|tr|pre|h\d)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/\u00a0/g, ' ')
    .replace(/&(nbsp|lt|gt|amp|quot|apos|#39|#x27|#x2F|#47);/gi, (all, name: string) => ENTITIES[name] ?? ENTITIES[name.toLowerCase()] ?? all);
}

/** A JSON value's string values, each on lines of its own, up to SCAN_BYTES characters in all. */
function jsonStrings(value: unknown): string {
  const out: string[] = [];
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total < SCAN_BYTES) {
    const v = stack.pop();
    if (typeof v === 'string') {
      out.push(v);
      total += v.length + 1;
    } else if (typeof v === 'object' && v !== null) {
      const children = Array.isArray(v) ? v : Object.values(v);
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
  return out.join('\n').slice(0, SCAN_BYTES);
}

/**
 * No answer carries a stack trace (WFC 209, leaked stack trace): frames name the service's code, files and
 * libraries, which help an attacker and tell a client nothing. Any status and media type; a JSON body's string
 * values are searched too (frames are escaped inside them).
 */
export const stackTraceNotExposed: Check = {
  id: 'stack-trace-not-exposed',
  scope: 'response',
  run(ctx) {
    const { request, response } = ctx.exchange;
    let seen: TraceSeen | undefined;
    for (const text of bodyTexts(response)) if ((seen = findStackTrace(text))) break;
    if (!seen) return [];
    const call = `${request.method} ${new URL(request.url).pathname}`;
    return [
      finding(ctx, 'stack-trace-not-exposed', 'error', `${call} answered ${response.status} with a ${seen.language} stack trace in its body (first frame: ${seen.frame}), which exposes the service's internals.`, {
        expected: 'no stack trace in the response',
        actual: `a ${seen.language} stack trace`,
      }),
    ];
  },
};
