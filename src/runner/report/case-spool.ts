/**
 * The run's case results on disk as they arrive: one JSON line per case (NDJSON) in a file of the reports
 * directory, written before the case is counted. Memory keeps only what verdicts and summaries need (the
 * case without its bodies and schema details); the rest is read back from the file for the few cases whose
 * evidence the reports show (report/evidence-limit.ts). A run that dies leaves the file behind, with every
 * case that finished; a run that writes its reports removes it.
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { CaseResult, Exchange, Finding } from '../model.ts';

/** One line of the spool. */
export interface SpooledCase {
  operationId: string;
  /** The case's index in its operation's plan (scenario cases: their order of arrival). */
  index: number;
  case: CaseResult;
}

/** The spool's file name in the reports directory (one per process: parallel runs never share one). */
export function spoolFileName(pid = process.pid): string {
  return `.cases-${pid}.ndjson`;
}

export class CaseSpool {
  readonly file: string;
  private fd: number | undefined;
  private offset = 0;
  private readonly where = new WeakMap<CaseResult, { offset: number; length: number }>();

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, spoolFileName());
    this.fd = openSync(this.file, 'w+');
  }

  /** Writes the case as one line and returns what memory keeps of it (the same object when it is light). */
  add(operationId: string, index: number, result: CaseResult): CaseResult {
    if (this.fd === undefined) return result;
    // Written as text: no buffer per case left for the garbage collector (the bytes are counted instead).
    const line = `${JSON.stringify({ operationId, index, case: result } satisfies SpooledCase)}\n`;
    const length = Buffer.byteLength(line, 'utf8');
    writeSync(this.fd, line, null, 'utf8');
    const kept = light(result);
    if (kept !== result) this.where.set(kept, { offset: this.offset, length });
    this.offset += length;
    return kept;
  }

  /** The case as it was recorded, read back from the file (the case itself when it was kept whole). */
  full(kept: CaseResult): CaseResult {
    const at = this.where.get(kept);
    if (!at || this.fd === undefined) return kept;
    const buffer = Buffer.alloc(at.length);
    readSync(this.fd, buffer, 0, at.length, at.offset);
    return (JSON.parse(buffer.toString('utf8')) as SpooledCase).case;
  }

  /** Closes the file; `remove` deletes it (the reports now hold the run). */
  close(remove: boolean): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (remove) rmSync(this.file, { force: true });
  }
}

/** Reads a spool file back, line by line (a dead run's cases). */
export function* readSpool(text: string): Generator<SpooledCase> {
  for (const line of text.split('\n')) if (line.trim() !== '') yield JSON.parse(line) as SpooledCase;
}

/**
 * What memory keeps of a case: its exchanges without bodies and headers (request line and status, what the
 * run's own diagnosis reads), its findings without schema errors, expected and actual values.
 */
function light(result: CaseResult): CaseResult {
  const heavy = result.exchanges.length > 0 || result.findings.some((f) => f.schemaErrors || f.expected !== undefined || f.actual !== undefined);
  if (!heavy) return result;
  return { ...result, exchanges: result.exchanges.map(lightExchange), findings: result.findings.map(lightFinding) };
}

function lightExchange(e: Exchange): Exchange {
  return {
    request: { method: e.request.method, url: e.request.url, headers: {} },
    ...(e.response ? { response: { status: e.response.status, headers: {}, body: '', truncated: false, size: e.response.size } } : {}),
    ...(e.error ? { error: e.error } : {}),
    durationMs: e.durationMs,
  };
}

/** A finding without its detail (schema errors, expected and actual): what the verdict, waivers and baselines read. */
export function lightFinding(f: Finding): Finding {
  if (!f.schemaErrors && f.expected === undefined && f.actual === undefined) return f;
  const { schemaErrors: _errors, expected: _expected, actual: _actual, ...rest } = f;
  return rest;
}

/** A spool in the reports directory, or none when the directory cannot be written (the reports will say so). */
export function openSpool(dir: string): CaseSpool | undefined {
  try {
    return new CaseSpool(dir);
  } catch {
    return undefined;
  }
}
