/**
 * The chain of calls behind a case, for its reproduction: the calls the case sent (setup steps, fixtures,
 * the call, read-backs), preceded by the creates of records it used that another case created first (a
 * shared fixture, and the parents of those, transitively), oldest first. Each create carries the call that
 * deletes its record again.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CaseResult, Exchange, Finding, HttpMethod } from '../model.ts';
import { toCurl } from '../report/curl.ts';
import { reproductionScript, type ChainStep } from '../report/reproduction.ts';
import { createdIds } from './records/in-answer.ts';
import { shownBy, unshown } from './judge.ts';

/** What a chain step reads of an exchange: the request, the status and the parsed body. */
export type ChainExchange = Pick<Exchange, 'request'> & { response?: { status: number; json?: unknown } };

/** What is kept of a create: the part a reproduction reads again, the call that deletes its record, its order. */
interface KeptCreate extends ChainExchange {
  seq: number;
  undo?: { method: HttpMethod; url: string };
}

/**
 * How many records are kept as plain text before the rest are deflated: deflating one costs about 70 µs (a zlib
 * stream set up with its dictionary), 20 ms of the seed run's run thread for its 300 creates, while a thousand
 * records take about 1 MB as text.
 */
const PLAIN_RECORDS = 1_000;

/** Headers a reproduction script never sends again (reproduction.ts) or that name one request only. */
const UNKEPT_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'host', 'accept-encoding', 'traceparent', 'x-conformance-run-id']);

/**
 * Records created during a run, by id and by the exchange that created them. A run keeps each to its end (30,000
 * at 2,770 operations against a correct server, 32 MB as objects) and reads one back only for a failing case's
 * script: each is kept as JSON text, and beyond the first PLAIN_RECORDS as deflated text, one byte a character,
 * with the first create's text as the dictionary (the creates of a run repeat its headers, URLs and fields).
 */
export class CreatedRecords {
  /** Each record's JSON text, or (beyond PLAIN_RECORDS) its deflated text. */
  private readonly byId = new Map<string, { text: string } | { packed: string }>();
  /** A uuid id by its spelling-free form (lower case, no hyphens, braces or URN prefix): a respelled path value names it too. */
  private readonly bySpelling = new Map<string, string>();
  /** Keyed by the request: a copy of an exchange kept with its answer cut is the same step. */
  private readonly byRequest = new WeakMap<Exchange['request'], string>();
  private seq = 0;
  private dictionary: Buffer | undefined;

  /** Notes what a successful POST created (any of the three create shapes). */
  note(exchange: Exchange, undo?: (id: string) => { method: HttpMethod; url: string } | undefined): void {
    const status = exchange.response?.status ?? 0;
    if (exchange.request.method !== 'POST' || status < 200 || status >= 300) return;
    const id = createdIds(exchange.response?.json)[0];
    if (!id || this.byId.has(id)) return;
    const u = undo?.(id);
    const { request, response } = exchange;
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !UNKEPT_HEADERS.has(name.toLowerCase())));
    const kept: KeptCreate = {
      seq: this.seq++,
      request: { ...request, headers },
      ...(response ? { response: { status: response.status, ...(response.json !== undefined ? { json: response.json } : {}) } } : {}),
      ...(u ? { undo: u } : {}),
    };
    const text = JSON.stringify(kept);
    this.dictionary ??= Buffer.from(text);
    this.byId.set(id, this.byId.size < PLAIN_RECORDS ? { text } : { packed: deflateRawSync(text, { dictionary: this.dictionary }).toString('latin1') });
    this.byRequest.set(request, id);
    const plain = spellingFree(id);
    if (plain !== undefined) this.bySpelling.set(plain, id);
  }

  private kept(id: string): KeptCreate | undefined {
    const kept = this.byId.get(id);
    if (kept === undefined) return undefined;
    const text = 'text' in kept ? kept.text : inflateRawSync(Buffer.from(kept.packed, 'latin1'), { dictionary: this.dictionary! }).toString('utf8');
    return JSON.parse(text) as KeptCreate;
  }

  /** The chain of a case's exchanges: the creates it depends on that it did not send itself, then its own. */
  chain(exchanges: readonly Exchange[]): ChainStep[] {
    const own = new Set(exchanges.flatMap((e) => this.byRequest.get(e.request) ?? []));
    const extra = new Map<string, KeptCreate>();
    const visit = (e: ChainExchange) => {
      for (const id of this.idsUsed(e)) {
        if (own.has(id) || extra.has(id)) continue;
        const create = this.kept(id);
        if (!create) continue;
        extra.set(id, create);
        visit(create);
      }
    };
    exchanges.forEach(visit);
    const step = (e: ChainExchange, undo: KeptCreate['undo']): ChainStep => {
      const s: ChainStep = { request: e.request };
      if (e.response) s.response = { status: e.response.status, ...(e.response.json !== undefined ? { json: e.response.json } : {}) };
      if (undo) s.undo = undo;
      return s;
    };
    const undoOf = (e: Exchange) => {
      const id = this.byRequest.get(e.request);
      return id === undefined ? undefined : this.kept(id)?.undo;
    };
    const before = [...extra.values()].sort((a, b) => a.seq - b.seq);
    return [...before.map((r) => step(r, r.undo)), ...exchanges.map((e) => step(e, undoOf(e)))];
  }

  /** Whether the request names a record the run made before it (by another call: its curl line alone needs it). */
  needsFirst(e: Exchange): boolean {
    const own = this.byRequest.get(e.request);
    return this.idsUsed(e).some((id) => id !== own);
  }

  private idsUsed(e: ChainExchange): string[] {
    const used: string[] = [];
    const path = e.request.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').split(/[?#]/)[0] ?? '';
    for (const segment of path.split('/')) {
      let value = segment;
      try {
        value = decodeURIComponent(segment);
      } catch {
        /* keep as is */
      }
      const id = this.byId.has(value) ? value : this.bySpelling.get(spellingFree(value) ?? '');
      if (id !== undefined) used.push(id);
    }
    if (e.request.body) for (const id of this.byId.keys()) if (e.request.body.includes(JSON.stringify(id))) used.push(id);
    return used;
  }
}

/** A uuid in any of its spellings (upper case, without hyphens, in braces, as a URN) as one form; else undefined. */
function spellingFree(value: string): string | undefined {
  const m = /^(?:urn:uuid:)?\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i.exec(value);
  return m ? m.slice(1).join('').toLowerCase() : undefined;
}

/**
 * The case's curl lines, each made from the one exchange whose answer it states (after the flow secrets were
 * redacted from the exchanges): every finding its own exchange's, marked where that request names a record the
 * run made first; the case's own line its first error's (the finding its reports name first), else its first
 * finding's. Findings no exchange showed keep none (the case's line, its last exchange's, stands for them).
 */
function withCurls(result: CaseResult, records: CreatedRecords): CaseResult {
  if (!result.findings.some((f) => shownBy(f))) return result;
  // Once per exchange: a case's findings often share one.
  const lines = new Map<Exchange, { curl: string; needsRecord: boolean }>();
  const findings = result.findings.map((f): Finding => {
    const shown = shownBy(f);
    if (!shown) return f;
    let line = lines.get(shown);
    if (line === undefined) lines.set(shown, (line = { curl: toCurl(shown.request), needsRecord: records.needsFirst(shown) }));
    return { ...f, curl: line.curl, ...(line.needsRecord ? { needsRecord: true as const } : {}) };
  });
  const lead = findings.find((f) => f.curl !== undefined && f.severity === 'error') ?? findings.find((f) => f.curl !== undefined);
  return { ...result, findings, ...(lead?.curl !== undefined ? { curl: lead.curl } : {}) };
}

/** The calls that reproduce a finding: the case's calls up to its exchange (a coverage case's: that variation alone). */
function callsFor(result: CaseResult, f: Finding | undefined): readonly Exchange[] {
  const shown = f ? shownBy(f) : undefined;
  const at = shown ? result.exchanges.indexOf(shown) : -1;
  if (!shown || at < 0) return result.exchanges;
  return result.kind === 'coverage' ? [shown] : result.exchanges.slice(0, at + 1);
}

/** The findings without the exchanges they came from (kept to the end of the run, they would hold every answer). */
function released(result: CaseResult): CaseResult {
  return result.findings.some((f) => shownBy(f)) ? { ...result, findings: result.findings.map(unshown) } : result;
}

/** The case with the curl line of each finding's own exchange (the answers of calls other cases made, say). */
export function withFindingCurls(result: CaseResult, records: CreatedRecords): CaseResult {
  return released(withCurls(result, records));
}

/**
 * The case with its curl lines (withCurls) and, when it did not pass and needed more than its one call, its
 * reproduction script: the calls up to the exchange of its first error, with the records they name made first.
 */
export function withReproduction(given: CaseResult, records: CreatedRecords, title: string): CaseResult {
  const result = withCurls(given, records);
  const interesting = (result.outcome !== 'passed' && result.outcome !== 'skipped') || result.findings.length > 0;
  if (!interesting || result.exchanges.length === 0) return released(result);
  const first = result.findings.find((f) => f.severity === 'error') ?? result.findings[0];
  const finding = first ? `${first.check}: ${first.message}` : result.errorMessage;
  const script = reproductionScript(records.chain(callsFor(result, first)), { title, ...(finding ? { finding } : {}) });
  return released(script ? { ...result, reproduction: script } : result);
}
