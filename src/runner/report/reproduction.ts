/**
 * A runnable bash script that reproduces a case with its whole chain of calls: the calls that created what
 * the case needed (their answers' ids captured at run time, never the ids of the original run, which it has
 * deleted), the case's own calls, then the clean-up of every record the script created (newest first, on
 * any exit). Pure: recorded (redacted) requests in, script text out.
 *
 * The script needs bash and curl only. Values are read from JSON answers with jq, node or python3, whichever
 * is installed, else with grep/sed (the first "key": "value" or "key": 123 pair of the pointer's last key). The token
 * comes from $CONFORMANCE_TOKEN in the user's shell; nothing else is expanded by the shell (every literal
 * is single-quoted).
 *
 * Exit codes: 0 the last call answered the status the run saw; 3 it answered another status; 2 a setup call
 * failed or a value could not be read from an answer.
 */
import type { HttpMethod, RecordedRequest } from '../model.ts';
import { namesRecord } from '../plan/relations.ts';
import { bytesWord, carriesToken, credentialVariables, credentialWord, shellQuote } from './curl.ts';

export interface ChainStep {
  request: RecordedRequest;
  /** What the run got back (to find the values later calls reuse, and the status to compare with). */
  response?: { status: number; json?: unknown };
  /** For a call that created a record: how to delete it again (URL with the created id in it). */
  undo?: { method: HttpMethod; url: string };
}

export interface ReproductionOptions {
  /** One line: what the run found (e.g. "response-schema-conformance: ... must be boolean"). */
  finding?: string;
  /** Title line, e.g. "list-orders › positive". */
  title?: string;
}

/**
 * Values shorter than this are not treated as ids carried from one answer into a later call, unless the answer
 * gives them under a name that names a record (`id`, `categoryId`, `owner_id`: plan/relations.ts namesRecord), as
 * an integer id or a short string one is: then they are carried into a path segment or a body field of the same
 * kind of name, never into a query value (a page number "4" is not the record 4).
 */
const MIN_VALUE_LENGTH = 8;

/** Headers curl computes from what it sends (and accept-encoding: curl would not decode what it asked for). */
const DERIVED_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'host', 'accept-encoding']);

type Part = { text: string } | { variable: string };

/** Parts as one shell word: literals single-quoted, variables double-quoted, nothing between them. */
function word(parts: Part[]): string {
  const merged: Part[] = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if ('text' in p && p.text === '') continue;
    if ('text' in p && last && 'text' in last) last.text += p.text;
    else merged.push('text' in p ? { text: p.text } : p);
  }
  const out = merged.map((p) => ('text' in p ? shellQuote(p.text) : `"\${${p.variable}}"`)).join('');
  return out === '' ? "''" : out;
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** String and integer leaves of a JSON value (an integer as its digits), shallowest first, each with its JSON pointer. */
function leaves(value: unknown): Array<[value: string, pointer: string, integer: boolean]> {
  const out: Array<[string, string, boolean]> = [];
  let level: Array<[string, unknown]> = [['', value]];
  for (let depth = 0; depth < 8 && level.length > 0; depth++) {
    const next: Array<[string, unknown]> = [];
    for (const [pointer, v] of level) {
      if (typeof v === 'string') out.push([v, pointer, false]);
      else if (typeof v === 'number' && Number.isSafeInteger(v)) out.push([String(v), pointer, true]);
      else if (Array.isArray(v)) v.slice(0, 50).forEach((item, i) => next.push([`${pointer}/${i}`, item]));
      else if (typeof v === 'object' && v !== null) for (const [k, item] of Object.entries(v)) next.push([`${pointer}/${escapePointer(k)}`, item]);
    }
    level = next;
  }
  return out;
}

/** The last key of a JSON pointer names a record (an id of the answer's record or of another). */
function pointerNamesRecord(pointer: string): boolean {
  const key = pointer.split('/').at(-1) ?? '';
  return !/^\d+$/.test(key) && namesRecord(key.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Whether a value may be carried from an answer: long enough to be nobody else's, or given as a record's id. */
function carried(value: string, pointer: string): boolean {
  return value.length >= MIN_VALUE_LENGTH || pointerNamesRecord(pointer);
}

interface Capture {
  variable: string;
  step: number;
  pointer: string;
  /** The answer gave an integer: carried into a JSON body unquoted. */
  integer: boolean;
  /** Shorter than MIN_VALUE_LENGTH: carried only where a name says it is a record's id. */
  short: boolean;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The URL as parts: path segments and query values equal to a captured value become its variable. */
function urlParts(url: string, lookup: (value: string) => Capture | undefined, used: Set<Capture>): Part[] {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) return [{ text: url }];
  const parts: Part[] = [{ text: m[1] ?? '' }];
  const literal = (text: string) => {
    const last = parts[parts.length - 1];
    if (last && 'text' in last) last.text += text;
    else parts.push({ text });
  };
  const piece = (raw: string, query: boolean) => {
    const found = lookup(decode(raw));
    const capture = found && !(query && found.short) ? found : undefined;
    if (capture) {
      used.add(capture);
      parts.push({ variable: capture.variable });
    } else literal(raw);
  };
  (m[2] ?? '').split('/').forEach((segment, i) => {
    if (i > 0) literal('/');
    piece(segment, false);
  });
  if (m[3]) {
    literal('?');
    m[3].slice(1).split('&').forEach((pair, i) => {
      if (i > 0) literal('&');
      const at = pair.indexOf('=');
      if (at < 0) return literal(pair);
      literal(pair.slice(0, at + 1));
      piece(pair.slice(at + 1), true);
    });
  }
  if (m[4]) literal(m[4]);
  return parts;
}

/**
 * A JSON body as parts: string values equal to a captured value become its variable; so do short ones and
 * integers, where the field's name names a record (an integer unquoted).
 */
function bodyParts(body: string, lookup: (value: string) => Capture | undefined, used: Set<Capture>): Part[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return [{ text: body }];
  }
  const marks = new Map<string, Capture>();
  const mark = (capture: Capture): string => {
    const text = `\u0000${marks.size}\u0000`;
    marks.set(text, capture);
    return text;
  };
  const marked = (value: unknown, key: string): unknown => {
    if (typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))) {
      const capture = lookup(String(value));
      const fits = capture && capture.integer === (typeof value === 'number') && (!capture.short || namesRecord(key));
      return fits ? mark(capture) : value;
    }
    if (Array.isArray(value)) return value.map((v) => marked(v, key));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, marked(v, k)]));
    return value;
  };
  let text: string;
  try {
    const replaced = marked(json, '');
    if (marks.size === 0) return [{ text: body }];
    // Compact JSON; the captured values are strings, so each mark sits inside quotes and stays inside them.
    text = JSON.stringify(replaced);
  } catch {
    // Nested deeper than the stack walks (a body thousands of levels deep): sent as it is.
    return [{ text: body }];
  }
  const parts: Part[] = [];
  let rest = text;
  for (const [text, capture] of marks) {
    const quoted = JSON.stringify(text);
    const at = rest.indexOf(quoted);
    if (at < 0) continue;
    const quote = capture.integer ? '' : '"';
    parts.push({ text: `${rest.slice(0, at)}${quote}` }, { variable: capture.variable }, { text: quote });
    used.add(capture);
    rest = rest.slice(at + quoted.length);
  }
  parts.push({ text: rest });
  return parts;
}

function headerArgs(request: RecordedRequest): string[] {
  const args: string[] = [];
  for (const [name, value] of Object.entries(request.headers)) {
    if (DERIVED_HEADERS.has(name.toLowerCase())) continue;
    if (carriesToken(value)) {
      args.push('-H', credentialWord(`${name}: ${value}`, true));
    } else if (value === '') {
      args.push('-H', shellQuote(`${name};`));
    } else {
      args.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (request.body !== undefined && !Object.keys(request.headers).some((n) => n.toLowerCase() === 'content-type')) args.push('-H', shellQuote('Content-Type:'));
  return args;
}

function methodArgs(request: RecordedRequest): string[] {
  if (request.method === 'HEAD') return ['--head'];
  if (request.method !== 'GET' || request.body !== undefined) return ['-X', request.method];
  return [];
}

/** Helpers, after the steps so a reader sees the calls first. */
const HELPERS = String.raw`# ---- helpers ----
command -v curl >/dev/null 2>&1 || { echo "this script needs curl" >&2; exit 2; }
work=$(mktemp -d)
created=()  # clean-up calls for what this script created, run newest first on exit

# json_get POINTER < body.json: the value at a JSON pointer (jq, node or python3; else grep/sed by key)
json_get() {
  if command -v jq >/dev/null 2>&1; then
    jq -r --arg p "$1" 'getpath($p | ltrimstr("/") | split("/") | map(gsub("~1"; "/") | gsub("~0"; "~") | (tonumber? // .))) // empty'
  elif command -v node >/dev/null 2>&1; then
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{let v=JSON.parse(s);for(const k of process.argv[1].split("/").slice(1))v=v==null?v:v[k.replace(/~1/g,"/").replace(/~0/g,"~")];if(v!=null)console.log(typeof v==="object"?JSON.stringify(v):String(v))})' "$1"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1].split("/")[1:]:
    k=k.replace("~1","/").replace("~0","~")
    v=v[int(k)] if isinstance(v,list) else (v or {}).get(k)
if v is not None: print(v if isinstance(v,str) else json.dumps(v))' "$1"
  else
    key=${'$'}{1##*/}
    grep -o "\"$key\"[[:space:]]*:[[:space:]]*\(\"[^\"]*\"\|-\{0,1\}[0-9][0-9]*\)" | head -n 1 | sed 's/.*:[[:space:]]*//; s/^"\(.*\)"$/\1/'
  fi
}

# call N METHOD-ARGS...: sends one request, keeps the answer in $work/N.json, prints the status line
call() {
  local n=$1; shift
  status=$(curl -sS -g -o "$work/$n.json" -w '%{http_code}' "$@") || status=000
  echo "<== HTTP $status"
}

cleanup() {
  local i
  for ((i=${'$'}{#created[@]}-1; i>=0; i--)); do
    eval "curl -sS -g -o /dev/null -w 'clean-up: HTTP %{http_code}\n' ${'$'}{created[i]}" || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
`;

/**
 * The bash script for a chain of recorded calls, or undefined when the chain is a single call that
 * created nothing (its curl line reproduces it as it is).
 */
export function reproductionScript(steps: readonly ChainStep[], options: ReproductionOptions = {}): string | undefined {
  if (steps.length === 0) return undefined;
  if (steps.length === 1 && !steps[0]?.undo) return undefined;

  // Values each answer carried, first answer first: a later call that sends one gets it from that answer.
  const known = new Map<string, { step: number; pointer: string; integer: boolean }>();
  steps.forEach((step, i) => {
    if (!step.response || step.response.status < 200 || step.response.status >= 300) return;
    for (const [value, pointer, integer] of leaves(step.response.json)) {
      if (carried(value, pointer) && !known.has(value)) known.set(value, { step: i, pointer, integer });
    }
  });
  const captures = new Map<string, Capture>();
  const lookupBefore = (index: number) => (value: string): Capture | undefined => {
    const source = known.get(value);
    if (!source || source.step >= index) return undefined;
    let capture = captures.get(value);
    if (!capture) {
      capture = { variable: `V${captures.size + 1}`, step: source.step, pointer: source.pointer, integer: source.integer, short: value.length < MIN_VALUE_LENGTH };
      captures.set(value, capture);
    }
    return capture;
  };

  const used = new Set<Capture>();
  const rendered = steps.map((step, i) => {
    const lookup = lookupBefore(i);
    const url = word(urlParts(step.request.url, lookup, used));
    const body = step.request.body === undefined ? undefined : step.request.bodyEncoding === 'latin1' ? bytesWord(step.request.body) : word(bodyParts(step.request.body, lookup, used));
    const undo = step.undo ? word(urlParts(step.undo.url, lookupBefore(i + 1), used)) : undefined;
    return { step, url, body, undo };
  });

  const lines: string[] = ['#!/usr/bin/env bash'];
  if (options.title) lines.push(`# Reproduces ${options.title.replace(/\n/g, ' ')}`);
  if (options.finding) lines.push(`# The run found: ${options.finding.replace(/\n/g, ' ')}`);
  lines.push(
    '# Needs bash and curl; reads credentials from CONFORMANCE_TOKEN (or CONFORMANCE_AUTH_<SCHEME>, CONFORMANCE_IDENTITY_<NAME>). Exit 0: the last call answered the status',
    '# the run saw; 3: another status; 2: a setup call failed. Records it creates are deleted on exit.',
    'set -u',
    '',
    'reproduce() {',
  );
  const out: string[] = [];

  const last = steps.length - 1;
  rendered.forEach(({ step, url, body, undo }, i) => {
    const label = i === last ? 'the call' : `step ${i + 1} of ${steps.length}`;
    out.push(`echo ${shellQuote(`==> ${label}: ${step.request.method}`)} ${url}`);
    const args = [...methodArgs(step.request), url, ...headerArgs(step.request)];
    if (body !== undefined) args.push(step.request.bodyEncoding === 'latin1' ? '--data-binary' : '--data-raw', body);
    out.push(`call ${i + 1} ${args.join(' ')}`);
    if (i < last) {
      const ran = step.response?.status;
      if (ran !== undefined && ran >= 200 && ran < 300) {
        out.push(`case "$status" in 2??) ;; *) echo ${shellQuote(`setup failed: expected a success as in the run (HTTP ${ran})`)} >&2; cat "$work/${i + 1}.json" >&2; exit 2 ;; esac`);
      }
    }
    const mine = [...captures.values()].filter((capture) => capture.step === i && used.has(capture));
    for (const capture of mine) {
      out.push(`${capture.variable}=$(json_get ${shellQuote(capture.pointer)} < "$work/${i + 1}.json" 2>/dev/null) || ${capture.variable}=''`);
      // A later call needs the value: stop. The last call's own answer is shown whatever it holds.
      if (i < last) out.push(`[ -n "$${capture.variable}" ] || { echo ${shellQuote(`no value at ${capture.pointer} in the answer of step ${i + 1}`)} >&2; exit 2; }`);
    }
    if (undo && step.undo) {
      // The undo names the record this call made: by the id read from its answer, or by the call's own URL (a PUT
      // that creates what it names). One that names the run's id as it was (not read again) would delete a record
      // this script did not make, someone else's by now: it is left out, and the script says so.
      const ownUrl = step.undo.url.split('?')[0] === step.request.url.split('?')[0];
      if (mine.length === 0 && !ownUrl) {
        out.push(`echo ${shellQuote(`note: what step ${i + 1} created is not deleted on exit: its id could not be read from the answer (the run deleted it with ${step.undo.method} ${step.undo.url})`)} >&2`);
      } else {
        const undoArgs = ['-X', step.undo.method, undo, ...headerArgs({ method: step.undo.method, url: step.undo.url, headers: authOnly(step.request.headers) })];
        // Stored as text and run by cleanup(), only when the record's id was read from the answer.
        const known = mine.map((capture) => `[ -n "$${capture.variable}" ] && `).join('');
        out.push(`case "$status" in 2??) ${known}created+=(${shellQuote(undoArgs.join(' '))}) ;; esac`);
      }
    }
  });
  const ran = steps[last]?.response?.status;
  out.push('cat "$work/' + (last + 1) + '.json"; echo');
  if (ran !== undefined) {
    out.push(
      `if [ "$status" = ${shellQuote(String(ran))} ]; then echo ${shellQuote(`reproduced: HTTP ${ran}, as in the run`)}; else echo "not reproduced: HTTP $status; the run saw HTTP ${ran}"; exit 3; fi`,
    );
  } else {
    out.push(`echo ${shellQuote('the run got no answer to this call')}`);
  }
  // The credentials the calls read, each required before anything is sent.
  const variables = [...new Set(out.flatMap((line) => credentialVariables(line)))];
  const required = variables.map((v) => `: "\${${v}:?export ${v}=<${v === 'CONFORMANCE_TOKEN' ? 'bearer token' : 'credential'}> first}"`);
  const [helpersTitle, ...helpers] = HELPERS.split('\n');
  lines.push(...out.map((line) => (line === '' ? line : `  ${line}`)), '}', '', helpersTitle!, ...required, ...helpers, 'reproduce');
  return `${lines.join('\n')}\n`;
}

/** The credential and accept headers of a request (what a clean-up delete needs). */
function authOnly(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([n, v]) => carriesToken(v) || n.toLowerCase() === 'accept'));
}
