/**
 * The run's case results on disk as they arrive: one JSON line per case (NDJSON) in a file of the reports
 * directory, written before the case is counted. Memory keeps only what verdicts and summaries need (the
 * case without its bodies, schema details, curl line and reproduction script); the rest is read back from the
 * file: the evidence of the few cases the reports show it for (report/evidence-limit.ts), and the curl line and
 * reproduction script of each case by the reporters, one operation at a time as they write it
 * (`operationWithTexts`). A run that dies leaves the file behind, with every case that finished; a run that
 * writes its reports removes it once they are written.
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { CaseResult, Exchange, Finding, OperationResult } from '../model.ts';

/** One line of the spool. */
export interface SpooledCase {
  operationId: string;
  /** The case's index in its operation's plan (scenario cases: their order of arrival). */
  index: number;
  case: CaseResult;
}

/** The line after a case's line that holds its curl line and reproduction script (read back by the reporters). */
interface SpooledTexts {
  texts: Pick<CaseResult, 'curl' | 'reproduction'>;
}

/** The spool's file name in the reports directory (one per process: parallel runs never share one). */
export function spoolFileName(pid = process.pid): string {
  return `.cases-${pid}.ndjson`;
}

/**
 * Where a case memory keeps light is in its spool, and what memory left out of it. It travels with the case
 * and with every copy of it (an enumerable symbol property: copied by spreads, never serialised).
 */
class Spooled {
  constructor(
    readonly spool: CaseSpool,
    /** The case's line. */
    readonly offset: number,
    readonly length: number,
    /** The texts line right after it (0: memory kept the texts, or the case had none). */
    readonly textsLength: number,
    /** How many exchanges the case recorded (memory keeps a summary of some of them, or none). */
    readonly exchanges: number,
    /** Its exchanges or finding details were left out (`full` reads them back). */
    readonly evidence: boolean,
  ) {}
}

const SPOOLED = Symbol('spooled');

type Kept = CaseResult & { [SPOOLED]?: Spooled };

function spooledOf(c: CaseResult): Spooled | undefined {
  return (c as Kept)[SPOOLED];
}

export class CaseSpool {
  readonly file: string;
  private fd: number | undefined;
  private offset = 0;

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
    const evidence = heavy(result);
    const texts = result.curl !== undefined || result.reproduction !== undefined;
    if (!evidence && !texts) {
      writeSync(this.fd, line, null, 'utf8');
      this.offset += length;
      return result;
    }
    const textsLine = texts ? `${JSON.stringify({ texts: { curl: result.curl, reproduction: result.reproduction } } satisfies SpooledTexts)}\n` : '';
    const textsLength = texts ? Buffer.byteLength(textsLine, 'utf8') : 0;
    writeSync(this.fd, textsLine === '' ? line : line + textsLine, null, 'utf8');
    const kept = light(result, new Spooled(this, this.offset, length, textsLength, result.exchanges.length, evidence));
    this.offset += length + textsLength;
    return kept;
  }

  /**
   * The case with the evidence memory left out (its exchanges, schema errors, expected and actual values), read
   * back from the file: the case as it was recorded. The case itself when memory kept its evidence (its curl line
   * and reproduction script, if memory left them out, come back with `withTexts`).
   */
  full(kept: CaseResult): CaseResult {
    const at = spooledOf(kept);
    if (!at || !at.evidence || at.spool !== this) return kept;
    const line = this.read(at.offset, at.length);
    if (line === undefined) return kept;
    return (JSON.parse(line) as SpooledCase).case;
  }

  /** How many exchanges the case recorded (memory may keep a summary of fewer). */
  recorded(c: CaseResult): number {
    const at = spooledOf(c);
    return at && at.spool === this ? at.exchanges : c.exchanges.length;
  }

  /** The curl line and reproduction script memory left out of a case (undefined once the file is closed). */
  texts(c: CaseResult): SpooledTexts['texts'] | undefined {
    const at = spooledOf(c);
    if (!at || at.spool !== this || at.textsLength === 0) return undefined;
    const line = this.read(at.offset + at.length, at.textsLength);
    return line === undefined ? undefined : (JSON.parse(line) as SpooledTexts).texts;
  }

  private read(offset: number, length: number): string | undefined {
    if (this.fd === undefined) return undefined;
    const buffer = Buffer.allocUnsafe(length);
    readSync(this.fd, buffer, 0, length, offset);
    return buffer.toString('utf8');
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
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = JSON.parse(line) as SpooledCase | SpooledTexts;
    if ('case' in parsed) yield parsed;
  }
}

/**
 * The case with the curl line and reproduction script memory left out of it, read back from its spool: what
 * every reporter that shows them calls before it looks at a case (the case itself when nothing was left out).
 */
export function withTexts(c: CaseResult): CaseResult {
  const at = spooledOf(c);
  if (!at || at.textsLength === 0 || c.curl !== undefined || c.reproduction !== undefined) return c;
  const texts = at.spool.texts(c);
  if (!texts) return c;
  const out: CaseResult = { ...c };
  if (texts.curl !== undefined) out.curl = texts.curl;
  if (texts.reproduction !== undefined) out.reproduction = texts.reproduction;
  return out;
}

/** The operation with its cases' curl lines and reproduction scripts read back (the operation itself when none was left out). */
export function operationWithTexts(op: OperationResult): OperationResult {
  if (!op.cases.some((c) => spooledOf(c)?.textsLength)) return op;
  return { ...op, cases: op.cases.map(withTexts) };
}

/** Whether memory keeps less of the case than it recorded: exchanges, or findings with schema errors, expected or actual values. */
function heavy(result: CaseResult): boolean {
  return result.exchanges.length > 0 || result.findings.some((f) => f.schemaErrors || f.expected !== undefined || f.actual !== undefined);
}

/**
 * What memory keeps of a case: no curl line and no reproduction script (the reporters read them back); its
 * findings without schema errors, expected and actual values; and its exchanges only for a positive case and a
 * presence probe, as request line and status without bodies and headers (the run's own diagnosis reads the
 * final status of the positive cases and what the presence probes were answered, execute/diagnose.ts). The
 * number of exchanges is in its place in the spool.
 */
function light(result: CaseResult, at: Spooled): CaseResult {
  const { curl: _curl, reproduction: _reproduction, ...rest } = result;
  const summarised = result.kind === 'positive' || result.kind === 'presence';
  // The place in the spool first, then the case's own fields: the objects made here share their hidden classes.
  return {
    [SPOOLED]: at,
    ...rest,
    exchanges: summarised ? result.exchanges.map(lightExchange) : [],
    findings: at.evidence ? result.findings.map(lightFinding) : result.findings,
  } as Kept;
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
