/**
 * Gate policy: waivers accept known deviations (one check on one operation) until a date.
 *
 * - A waiver applies through its `expires` day (inclusive) and matches findings with the same operationId
 *   and check id. A matched finding is kept and marked `waived`; its check status becomes `waived` when all
 *   of that check's findings in the case are waived; outcomes and the verdict are then derived again, so a
 *   case whose only blocking findings are waived passes.
 * - An expired waiver waives nothing and always fails the run, whether or not it still matches anything:
 *   a stale entry must be removed or renewed on purpose. It is listed in `results.expiredWaivers`.
 * - The file is YAML validated against src/runner/schemas/waivers.schema.json; a mistake is a one-line
 *   WaiverFileError naming the file, the line and the key.
 */
import { readFile } from 'node:fs/promises';
import type { Document, LineCounter } from 'yaml';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { RunResults } from '../model.ts';
import { summarise } from './outcomes.ts';
import { isKnownValid, rememberValid, validityKey } from '../description/validity-cache.ts';
import { parseYaml } from '../description/yaml-file.ts';

export interface Waiver {
  operationId: string;
  /** Check id, e.g. "response-schema-conformance". */
  check: string;
  reason: string;
  /** Last day the waiver applies, YYYY-MM-DD. */
  expires: string;
}

export type ExpiredWaiver = RunResults['expiredWaivers'][number];

/** A waiver file that cannot be used; the message is one line: "<file>:<line>: <what> (<what to do>)". */
export class WaiverFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly detail: string,
  ) {
    super(`${file}${line ? `:${line}` : ''}: ${detail}`);
    this.name = 'WaiverFileError';
  }
}

export { WAIVERS_SCHEMA_URL } from '../schemas/index.ts';
import { WAIVERS_SCHEMA_URL } from '../schemas/index.ts';
const KEYS = ['operationId', 'check', 'reason', 'expires'] as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

// The YAML reader with line positions and the schema validator load only for a file not known to be valid.
let yaml: typeof import('../description/yaml-document.ts') | undefined;

let validator: ValidateFunction | undefined;
async function schemaValidator(): Promise<ValidateFunction> {
  if (!validator) {
    const schema = JSON.parse(await readFile(WAIVERS_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
    const { Ajv2020, addFormats } = await import('../description/ajv.ts');
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv, ['date']);
    validator = ajv.compile(schema);
  }
  return validator;
}

export interface LoadWaiversOptions {
  /** Registered check ids; when given, a waiver naming another check is an error (catches typos). */
  knownChecks?: readonly string[];
}

/** Reads and validates a waiver file. A missing file is an error too: pass no file to run without waivers. */
export async function loadWaivers(file: string, options: LoadWaiversOptions = {}): Promise<Waiver[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new WaiverFileError(file, undefined, code === 'ENOENT' ? 'file not found' : `cannot read: ${String(code)}`);
  }
  return parseWaivers(text, file, options);
}

/** Parses and validates the text of a waiver file (`file` only names it in errors). */
export async function parseWaivers(text: string, file: string, options: LoadWaiversOptions = {}): Promise<Waiver[]> {
  const known = knownValidWaivers(text, validityKey('waivers', await readFile(WAIVERS_SCHEMA_URL, 'utf8'), text), options);
  if (known) return known;
  yaml ??= await import('../description/yaml-document.ts');
  const lineCounter = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter, prettyErrors: false });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = lineCounter.linePos(yamlError.pos[0]).line;
    throw new WaiverFileError(file, line, `not valid YAML: ${yamlError.message.split('\n')[0] ?? ''}`);
  }
  const data: unknown = doc.contents === null ? [] : doc.toJS();
  // Content already validated against this very schema needs no schema compilation.
  const key = validityKey('waivers', await readFile(WAIVERS_SCHEMA_URL, 'utf8'), text);
  if (!isKnownValid(key)) {
    const validate = await schemaValidator();
    if (!validate(data)) {
      throw describeSchemaError(file, doc, lineCounter, mostUseful(validate.errors ?? []));
    }
    rememberValid(key);
  }
  const waivers = data as Waiver[];
  const seen = new Map<string, number>();
  for (const [index, waiver] of waivers.entries()) {
    const line = lineOf(doc, lineCounter, [index]);
    if (options.knownChecks && !options.knownChecks.includes(waiver.check)) {
      const at = lineOf(doc, lineCounter, [index, 'check'], 'value') ?? line;
      throw new WaiverFileError(
        file,
        at,
        `waiver ${index + 1}: unknown check "${waiver.check}" (known checks: ${[...options.knownChecks].sort().join(', ')})`,
      );
    }
    const key = `${waiver.operationId}\u0000${waiver.check}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new WaiverFileError(
        file,
        line,
        `waiver ${index + 1} repeats waiver ${first + 1} (${waiver.operationId} / ${waiver.check}); keep one entry`,
      );
    }
    seen.set(key, index);
  }
  return waivers;
}

/**
 * A file whose exact content passed validation before, read with the start-up YAML parser (no line positions
 * needed): its waivers when they are still well-formed for these checks; undefined sends it through the full
 * reading, which names the line of any problem.
 */
function knownValidWaivers(text: string, key: string, options: LoadWaiversOptions): Waiver[] | undefined {
  if (!isKnownValid(key)) return undefined;
  let data: unknown;
  try {
    data = parseYaml(text) ?? [];
  } catch {
    return undefined;
  }
  if (!Array.isArray(data)) return undefined;
  const seen = new Set<string>();
  for (const w of data as Array<Partial<Waiver> | null>) {
    if (typeof w !== 'object' || w === null || typeof w.operationId !== 'string' || typeof w.check !== 'string') return undefined;
    if (options.knownChecks && !options.knownChecks.includes(w.check)) return undefined;
    const pair = `${w.operationId}\u0000${w.check}`;
    if (seen.has(pair)) return undefined;
    seen.add(pair);
  }
  return data as Waiver[];
}

const KEYWORD_RANK: Record<string, number> = { type: 0, additionalProperties: 1, required: 2 };

/** The error to report: the first waiver's, an unknown key before a missing one (a typo causes both). */
function mostUseful(errors: ErrorObject[]): ErrorObject | undefined {
  const index = (e: ErrorObject): number => Number(/^\/(\d+)/.exec(e.instancePath)?.[1] ?? -1);
  return [...errors].sort((a, b) => index(a) - index(b) || (KEYWORD_RANK[a.keyword] ?? 3) - (KEYWORD_RANK[b.keyword] ?? 3))[0];
}

/** The allowed key a mistyped one was probably meant to be. */
function suggestKey(key: string): string | undefined {
  const lower = key.toLowerCase();
  return KEYS.find((k) => k.toLowerCase() === lower || editDistance(k.toLowerCase(), lower) <= 2);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

function describeSchemaError(
  file: string,
  doc: Document,
  lineCounter: LineCounter,
  error: ErrorObject | undefined,
): WaiverFileError {
  if (!error) return new WaiverFileError(file, undefined, 'invalid');
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const index = typeof path[0] === 'number' ? path[0] : undefined;
  const where = index === undefined ? 'the file' : `waiver ${index + 1}`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      if (path.length === 0) return new WaiverFileError(file, lineOf(doc, lineCounter, []), 'must be a list of waivers (use [] for none)');
      return new WaiverFileError(
        file,
        lineOf(doc, lineCounter, path, 'value'),
        `${where}${path.length > 1 ? `: "${String(path[path.length - 1])}"` : ''} must be ${String(params['type'])}`,
      );
    case 'additionalProperties': {
      const key = String(params['additionalProperty']);
      const suggestion = suggestKey(key);
      return new WaiverFileError(
        file,
        lineOf(doc, lineCounter, [...path, key], 'key'),
        `${where}: unknown key "${key}" (${suggestion ? `did you mean "${suggestion}"? ` : ''}allowed keys: ${KEYS.join(', ')})`,
      );
    }
    case 'required':
      return new WaiverFileError(
        file,
        lineOf(doc, lineCounter, path),
        `${where}: missing key "${String(params['missingProperty'])}" (each waiver needs ${KEYS.join(', ')})`,
      );
    case 'pattern':
    case 'format':
    case 'minLength': {
      const key = String(path[path.length - 1]);
      const hint =
        key === 'expires'
          ? 'a date YYYY-MM-DD'
          : key === 'check'
            ? 'a check id in kebab-case, e.g. response-schema-conformance'
            : key === 'reason'
              ? 'a non-empty reason'
              : 'an operation id as in the contract';
      return new WaiverFileError(file, lineOf(doc, lineCounter, path, 'value'), `${where}: "${key}" must be ${hint}`);
    }
    default:
      return new WaiverFileError(file, lineOf(doc, lineCounter, path), `${where}: ${error.message ?? 'invalid'}`);
  }
}

/** 1-based line of the node at `path` (its key or value when the last segment is a map key). */
function lineOf(
  doc: Document,
  lineCounter: LineCounter,
  path: Array<string | number>,
  part: 'key' | 'value' = 'value',
): number | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined = rangeStart(node);
  for (const segment of path) {
    if (yaml!.isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = rangeStart(node) ?? offset;
    } else if (yaml!.isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown } | null)?.value) === String(segment));
      if (!pair) break;
      offset = (part === 'key' ? rangeStart(pair.key) : (rangeStart(pair.value) ?? rangeStart(pair.key))) ?? offset;
      node = pair.value;
    } else break;
  }
  return offset === undefined ? undefined : lineCounter.linePos(offset).line;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range?.[0];
}

/** Today's date as YYYY-MM-DD in local time (what a person reading `expires` means). */
export function localDate(now: Date = new Date()): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** True when the waiver no longer applies on `today` (YYYY-MM-DD): it applies through its expiry day. */
export function isExpired(waiver: Pick<Waiver, 'expires'>, today: string): boolean {
  return waiver.expires < today;
}

/**
 * Applies waivers to results (pure: returns new results). `today` is YYYY-MM-DD. Active waivers mark the
 * findings they match as waived; expired waivers are added to `expiredWaivers`. Outcomes, counts and the
 * verdict are derived again.
 */
export function applyWaivers(results: RunResults, waivers: readonly Waiver[], today: string): RunResults {
  if (!ISO_DATE.test(today)) throw new TypeError(`applyWaivers: today must be YYYY-MM-DD, got "${today}"`);
  const active = waivers.filter((w) => !isExpired(w, today));
  const expired: ExpiredWaiver[] = waivers
    .filter((w) => isExpired(w, today))
    .map((w) => ({ operationId: w.operationId, check: w.check, reason: w.reason, expires: w.expires }));
  const find = (operationId: string, check: string): Waiver | undefined =>
    active.find((w) => w.operationId === operationId && w.check === check);

  // A case no waiver touches is the same object, its findings and checks the same arrays (no copy of each case).
  const operations = active.length === 0 ? results.operations : results.operations.map((op) => ({
    ...op,
    cases: op.cases.map((c) => {
      const findings = c.findings.map((f) => {
        if (f.waived) return f;
        const waiver = find(f.operationId, f.check);
        return waiver ? { ...f, waived: { reason: waiver.reason, expires: waiver.expires } } : f;
      });
      const checks = c.checks.map((check) => {
        if (check.status !== 'failed' && check.status !== 'warning') return check;
        const own = findings.filter((f) => f.check === check.id && f.severity !== 'info');
        return own.length > 0 && own.every((f) => f.waived) ? { ...check, status: 'waived' as const } : check;
      });
      const sameFindings = findings.every((f, i) => f === c.findings[i]);
      const sameChecks = checks.every((k, i) => k === c.checks[i]);
      if (sameFindings && sameChecks) return c;
      return { ...c, findings: sameFindings ? c.findings : findings, checks: sameChecks ? c.checks : checks };
    }),
  }));

  const known = new Set(results.expiredWaivers.map(expiredKey));
  const expiredWaivers = [...results.expiredWaivers, ...expired.filter((w) => !known.has(expiredKey(w)))];
  return summarise({ ...results, operations, expiredWaivers });
}

function expiredKey(w: ExpiredWaiver): string {
  return [w.operationId, w.check, w.expires, w.reason].join('\u0000');
}

/** Active waivers that matched no finding in the results: candidates for removal from the file. */
export function unusedWaivers(results: RunResults, waivers: readonly Waiver[], today: string): Waiver[] {
  return waivers.filter(
    (w) =>
      !isExpired(w, today) &&
      !results.operations.some((op) =>
        op.cases.some((c) => c.findings.some((f) => f.operationId === w.operationId && f.check === w.check)),
      ),
  );
}
