/**
 * The chain of calls behind a case, for its reproduction: the calls the case sent (setup steps, fixtures,
 * the call, read-backs), preceded by the creates of records it used that another case created first (a
 * shared fixture, and the parents of those, transitively), oldest first. Each create carries the call that
 * deletes its record again.
 */
import type { CaseResult, Exchange, HttpMethod } from '../model.ts';
import { reproductionScript, type ChainStep } from '../report/reproduction.ts';
import { createdIds } from './created.ts';

/** What a chain step reads of an exchange: the request, the status and the parsed body. */
export type ChainExchange = Pick<Exchange, 'request'> & { response?: { status: number; json?: unknown } };

export interface CreatedRecord {
  id: string;
  /** The create that made the record, without its body text and headers (the run keeps it to the end). */
  exchange: ChainExchange;
  /** Order of creation in the run. */
  seq: number;
  undo?: { method: HttpMethod; url: string };
}

/** Records created during a run, by id and by the exchange that created them. */
export class CreatedRecords {
  private readonly byId = new Map<string, CreatedRecord>();
  /** Keyed by the request: a copy of an exchange kept with its answer cut is the same step. */
  private readonly byRequest = new WeakMap<Exchange['request'], CreatedRecord>();
  private seq = 0;

  /** Notes what a successful POST created (any of the three create shapes). */
  note(exchange: Exchange, undo?: (id: string) => { method: HttpMethod; url: string } | undefined): void {
    const status = exchange.response?.status ?? 0;
    if (exchange.request.method !== 'POST' || status < 200 || status >= 300) return;
    const id = createdIds(exchange.response?.json)[0];
    if (!id || this.byId.has(id)) return;
    const u = undo?.(id);
    const { response } = exchange;
    const summary: ChainExchange = { request: exchange.request, ...(response ? { response: { status: response.status, ...(response.json !== undefined ? { json: response.json } : {}) } } : {}) };
    const record: CreatedRecord = { id, exchange: summary, seq: this.seq++, ...(u ? { undo: u } : {}) };
    this.byId.set(id, record);
    this.byRequest.set(exchange.request, record);
  }

  /** The chain of a case's exchanges: the creates it depends on that it did not send itself, then its own. */
  chain(exchanges: readonly Exchange[]): ChainStep[] {
    const own = new Set(exchanges.flatMap((e) => this.byRequest.get(e.request) ?? []));
    const extra = new Set<CreatedRecord>();
    const visit = (e: ChainExchange) => {
      for (const id of this.idsUsed(e)) {
        const record = this.byId.get(id);
        if (!record || own.has(record) || extra.has(record)) continue;
        extra.add(record);
        visit(record.exchange);
      }
    };
    exchanges.forEach(visit);
    const step = (e: ChainExchange, undo: CreatedRecord['undo']): ChainStep => {
      const s: ChainStep = { request: e.request };
      if (e.response) s.response = { status: e.response.status, ...(e.response.json !== undefined ? { json: e.response.json } : {}) };
      if (undo) s.undo = undo;
      return s;
    };
    const before = [...extra].sort((a, b) => a.seq - b.seq);
    return [...before.map((r) => step(r.exchange, r.undo)), ...exchanges.map((e) => step(e, this.byRequest.get(e.request)?.undo))];
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
      if (this.byId.has(value)) used.push(value);
    }
    if (e.request.body) for (const id of this.byId.keys()) if (e.request.body.includes(JSON.stringify(id))) used.push(id);
    return used;
  }
}

/** The case with its reproduction script, when it did not pass and needed more than its one call. */
export function withReproduction(result: CaseResult, records: CreatedRecords, title: string): CaseResult {
  const interesting = (result.outcome !== 'passed' && result.outcome !== 'skipped') || result.findings.length > 0;
  if (!interesting || result.exchanges.length === 0) return result;
  const first = result.findings.find((f) => f.severity === 'error') ?? result.findings[0];
  const finding = first ? `${first.check}: ${first.message}` : result.errorMessage;
  const script = reproductionScript(records.chain(result.exchanges), { title, ...(finding ? { finding } : {}) });
  return script ? { ...result, reproduction: script } : result;
}
