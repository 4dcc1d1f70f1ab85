/**
 * The run's case results on disk as they arrive: one JSON line per case (NDJSON) in a file of the reports
 * directory, queued for it before the case is counted. Memory keeps only what verdicts and summaries need (the
 * case without its bodies, schema details, curl line and reproduction script); the rest is read back from the
 * file: the evidence of the few cases the reports show it for (report/evidence-limit.ts), and the curl line and
 * reproduction script of each case by the reporters, one operation at a time as they write it
 * (`operationWithTexts`). Lines are written in batches, at most a tenth of a second after their case finished: a
 * run that dies leaves the file behind, with every case that finished before that; a run that writes its reports
 * removes it once they are written.
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

/**
 * The line after a case's line that holds its curl line and reproduction script, and its findings' own curl lines
 * (by the findings' order; null: none), read back by the reporters.
 */
interface SpooledTexts {
  texts: Pick<CaseResult, 'curl' | 'reproduction'> & { findings?: Array<string | null> };
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

/** About this many bytes of lines are written to the file at once... */
const SPOOL_BATCH = 256 * 1024;
/** ...and a line waits at most this long. */
const SPOOL_DELAY_MS = 100;

/** Texts lines at most this far apart are read in one call (the case lines between them read and dropped)... */
const TEXTS_GAP = 64 * 1024;
/** ...as long as the call reads at most this much. */
const TEXTS_READ = 1024 * 1024;

type Kept = CaseResult & { [SPOOLED]?: Spooled };

function spooledOf(c: CaseResult): Spooled | undefined {
  return (c as Kept)[SPOOLED];
}

export class CaseSpool {
  readonly file: string;
  private fd: number | undefined;
  /** Where the next line goes (the lines not yet written included). */
  private offset = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** What `textsOf` reads into (kept: it is needed again for the next operation). */
  private scratch = Buffer.alloc(0);

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, spoolFileName());
    this.fd = openSync(this.file, 'w+');
  }

  /**
   * Writes the case as one line (its curl line and reproduction script, if any, on the next: the reporters read
   * them back alone) and returns what memory keeps of it (the same object when it is light).
   */
  add(operationId: string, index: number, result: CaseResult): CaseResult {
    if (this.fd === undefined) return result;
    const { curl, reproduction } = result;
    const findingCurls = result.findings.some((f) => f.curl !== undefined) ? result.findings.map((f) => f.curl ?? null) : undefined;
    const texts = curl !== undefined || reproduction !== undefined || findingCurls !== undefined;
    // Written as text: no buffer per case left for the garbage collector (the bytes are counted instead).
    const line = `${JSON.stringify({ operationId, index, case: texts ? { ...result, curl: undefined, reproduction: undefined, ...(findingCurls ? { findings: result.findings.map(withoutCurl) } : {}) } : result } satisfies SpooledCase)}\n`;
    const length = Buffer.byteLength(line, 'utf8');
    const evidence = heavy(result);
    if (!evidence && !texts) {
      this.append(line, length);
      return result;
    }
    const textsLine = texts ? `${JSON.stringify({ texts: { curl, reproduction, ...(findingCurls ? { findings: findingCurls } : {}) } } satisfies SpooledTexts)}\n` : '';
    const textsLength = texts ? Buffer.byteLength(textsLine, 'utf8') : 0;
    const kept = light(result, new Spooled(this, this.offset, length, textsLength, result.exchanges.length, evidence));
    this.append(line, length);
    if (texts) this.append(textsLine, textsLength);
    return kept;
  }

  /**
   * Lines go to the file in batches of about SPOOL_BATCH bytes, and at the latest SPOOL_DELAY_MS after they were
   * added (a system call per case cost more than writing its bytes); anything that reads the file writes first.
   */
  private append(line: string, length: number): void {
    this.pending.push(line);
    this.pendingBytes += length;
    this.offset += length;
    if (this.pendingBytes >= SPOOL_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), SPOOL_DELAY_MS).unref();
  }

  /** Writes the lines not yet in the file. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.fd === undefined || this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''), null, 'utf8');
    this.pending = [];
    this.pendingBytes = 0;
  }

  /**
   * The case with the evidence memory left out (its exchanges, schema errors, expected and actual values), read
   * back from the file: the case as it was recorded, with its curl line and reproduction script. The case itself
   * when memory kept its evidence (its curl line and reproduction script, if memory left them out, come back with
   * `withTexts`).
   */
  full(kept: CaseResult): CaseResult {
    const at = spooledOf(kept);
    if (!at || !at.evidence || at.spool !== this) return kept;
    const lines = this.read(at.offset, at.length + at.textsLength);
    if (lines === undefined) return kept;
    const recorded = (JSON.parse(lines.slice(0, lines.indexOf('\n'))) as SpooledCase).case;
    if (at.textsLength === 0) return recorded;
    return withTheseTexts(recorded, (JSON.parse(lines.slice(lines.indexOf('\n') + 1)) as SpooledTexts).texts);
  }

  /** How many exchanges the case recorded (memory may keep a summary of fewer). */
  recorded(c: CaseResult): number {
    const at = spooledOf(c);
    return at && at.spool === this ? at.exchanges : c.exchanges.length;
  }

  /**
   * The texts of these cases (each with texts in this spool), read with one system call per run of nearby lines:
   * an operation's cases were written close together, and a call per case would cost more than the bytes between.
   * None once the file is closed.
   */
  textsOf(cases: CaseResult[]): Map<CaseResult, SpooledTexts['texts']> {
    const out = new Map<CaseResult, SpooledTexts['texts']>();
    if (this.fd === undefined) return out;
    this.flush();
    const wanted = cases
      .map((c) => {
        const at = spooledOf(c)!;
        return { c, start: at.offset + at.length, end: at.offset + at.length + at.textsLength };
      })
      .sort((a, b) => a.start - b.start);
    for (let i = 0; i < wanted.length; ) {
      let j = i + 1;
      while (j < wanted.length && wanted[j]!.start - wanted[j - 1]!.end <= TEXTS_GAP && wanted[j]!.end - wanted[i]!.start <= TEXTS_READ) j++;
      const from = wanted[i]!.start;
      const length = wanted[j - 1]!.end - from;
      if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, 64 * 1024));
      const buffer = this.scratch;
      readSync(this.fd, buffer, 0, length, from);
      for (const w of wanted.slice(i, j)) out.set(w.c, (JSON.parse(buffer.toString('utf8', w.start - from, w.end - from)) as SpooledTexts).texts);
      i = j;
    }
    return out;
  }

  private read(offset: number, length: number): string | undefined {
    if (this.fd === undefined) return undefined;
    this.flush();
    const buffer = Buffer.allocUnsafe(length);
    readSync(this.fd, buffer, 0, length, offset);
    return buffer.toString('utf8');
  }

  /** Closes the file; `remove` deletes it (the reports now hold the run). */
  close(remove: boolean): void {
    if (this.fd === undefined) return;
    this.flush();
    closeSync(this.fd);
    this.fd = undefined;
    if (remove) rmSync(this.file, { force: true });
  }
}

/** Reads a spool file back, line by line (a dead run's cases). */
export function* readSpool(text: string): Generator<SpooledCase> {
  let last: SpooledCase | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const parsed = JSON.parse(line) as SpooledCase | SpooledTexts;
    if ('case' in parsed) {
      if (last) yield last;
      last = parsed;
    } else if (last) {
      // The texts line after a case belongs to it.
      last = { ...last, case: withTheseTexts(last.case, parsed.texts) };
    }
  }
  if (last) yield last;
}

/**
 * The case with the curl line and reproduction script memory left out of it, read back from its spool: what
 * every reporter that shows them calls before it looks at a case (the case itself when nothing was left out).
 */
export function withTexts(c: CaseResult): CaseResult {
  const at = textsLeftOut(c);
  const texts = at?.spool.textsOf([c]).get(c);
  return texts ? withTheseTexts(c, texts) : c;
}

/** Where the curl line and reproduction script memory left out of a case are (undefined: none left out). */
function textsLeftOut(c: CaseResult): Spooled | undefined {
  const at = spooledOf(c);
  return at && at.textsLength > 0 && c.curl === undefined && c.reproduction === undefined ? at : undefined;
}

function withTheseTexts(c: CaseResult, texts: SpooledTexts['texts']): CaseResult {
  const out: CaseResult = { ...c };
  if (texts.curl !== undefined) out.curl = texts.curl;
  if (texts.reproduction !== undefined) out.reproduction = texts.reproduction;
  const curls = texts.findings;
  if (curls && curls.length === c.findings.length) out.findings = c.findings.map((f, i) => (curls[i] != null && f.curl === undefined ? { ...f, curl: curls[i]! } : f));
  return out;
}

function withoutCurl(f: Finding): Finding {
  if (f.curl === undefined) return f;
  const { curl: _curl, ...rest } = f;
  return rest;
}

/** The operation with its cases' curl lines and reproduction scripts read back (the operation itself when none was left out). */
export function operationWithTexts(op: OperationResult): OperationResult {
  const bySpool = new Map<CaseSpool, CaseResult[]>();
  for (const c of op.cases) {
    const at = textsLeftOut(c);
    if (!at) continue;
    const list = bySpool.get(at.spool) ?? [];
    list.push(c);
    bySpool.set(at.spool, list);
  }
  if (bySpool.size === 0) return op;
  const texts = new Map<CaseResult, SpooledTexts['texts']>();
  for (const [spool, cases] of bySpool) for (const [c, t] of spool.textsOf(cases)) texts.set(c, t);
  return {
    ...op,
    cases: op.cases.map((c) => {
      const t = texts.get(c);
      return t ? withTheseTexts(c, t) : c;
    }),
  };
}

/** Whether memory keeps less of the case than it recorded: exchanges, or findings with schema errors, expected or actual values. */
function heavy(result: CaseResult): boolean {
  return result.exchanges.length > 0 || result.findings.some((f) => f.schemaErrors || f.expected !== undefined || f.actual !== undefined);
}

/**
 * What memory keeps of a case: no curl lines and no reproduction script (the reporters read them back); its
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
    findings: at.evidence ? result.findings.map((f) => lightFinding(withoutCurl(f))) : at.textsLength > 0 ? result.findings.map(withoutCurl) : result.findings,
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
