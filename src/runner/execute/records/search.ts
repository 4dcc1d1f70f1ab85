/**
 * The search for a record a case needs, where its create refused the body sent for it (and that body's required
 * part): other bodies (candidates.ts) are sent one at a time until one is answered with success and an id,
 * within a budget per create for the whole run (SEARCH_BUDGET requests, the reads of a referenced collection's list
 * among them). A create's search is shared: cases that ask while it runs wait for it, and once a body made a record
 * each later case sends that body again (its unique-looking text drawn afresh) for a record of its own. What was
 * tried, and what it was answered, is said in one line (the case's note, or why it was skipped).
 */
import type { Contract, Exchange, Operation } from '../../model.ts';
import { listSchema, namedCollections, lastSegmentName } from '../../plan/relations.ts';
import { Random } from '../../plan/random.ts';
import { is2xx } from '../judge.ts';
import type { MadeRecords } from './made.ts';
import { answeredCandidates, drawnCandidates, namedCandidate, otherExamples, redrawn, referenceFields, withReferences, type Candidate, type CandidateKind, type ReferenceField } from './candidates.ts';
import type { CallRequest } from '../request-builder.ts';
import type { ValuePool } from './value-pool.ts';

/** Requests a create's search may send in a run. */
export const SEARCH_BUDGET = 6;
/** Bodies drawn from the schema among the candidates. */
const DRAWN = 3;

export interface SearchHost {
  readonly contract: Contract;
  readonly pool: ValuePool;
  readonly made: MadeRecords;
  readonly seed: string;
  declaredParams(op: Operation, random: Random): Pick<CallRequest, 'query' | 'headers' | 'cookies'>;
}

/** One case's search: the create, the request it was sent with, and how the case sends and reads a call. */
export interface SearchCall {
  producer: Operation;
  pathParams: Record<string, string>;
  declared: Pick<CallRequest, 'query' | 'headers' | 'cookies'>;
  /** The bodies already sent for the record (the first one the base the others vary). */
  sent: unknown[];
  send(op: Operation, request: CallRequest): Promise<Exchange>;
  /** The record's id in a create's answer (undefined: it names none). */
  idOf(exchange: Exchange, pathParams: Record<string, string>): string | undefined;
}

export interface SearchResult {
  made?: { id: string; exchange: Exchange; how: string };
  /** What the search sent for the create so far, and what each was answered ("" when nothing). */
  tried: string;
}

interface State {
  spent: number;
  tried: Set<string>;
  log: Array<{ kind: CandidateKind | 'list'; label: string; status: string }>;
  winner?: Candidate;
  lists: Set<string>;
  queue: Promise<unknown>;
}

const keyOf = (body: unknown) => JSON.stringify(body) ?? 'undefined';
const statusOf = (e: Exchange) => String(e.response?.status ?? e.error?.message ?? 'no answer');

/** Kinds said once with a count ("2 bodies drawn from its schema (500, 500)"); the others each with their label. */
const COUNTED: Partial<Record<CandidateKind, [string, string]>> = {
  answered: ['a body it answered with success earlier in the run', 'bodies it answered with success earlier in the run'],
  example: ["the contract's other example", "other examples of the contract"],
  generated: ['a body drawn from its schema', 'bodies drawn from its schema'],
};

/** What was tried, grouped by kind in the order first tried: "folderId from GET /folders (500), 2 bodies drawn from its schema (500, 422)". */
export function triedText(log: State['log']): string {
  const groups = new Map<string, { label: string; statuses: string[]; count: number; kind: string }>();
  for (const entry of log) {
    const key = COUNTED[entry.kind as CandidateKind] ? entry.kind : `${entry.kind}:${entry.label}`;
    const group = groups.get(key) ?? groups.set(key, { label: entry.label, statuses: [], count: 0, kind: entry.kind }).get(key)!;
    group.statuses.push(entry.status);
    group.count++;
  }
  return [...groups.values()].map((g) => {
    const counted = COUNTED[g.kind as CandidateKind];
    const label = g.kind === 'list' ? `read ${g.label}` : counted ? (g.count === 1 ? counted[0] : `${g.count} ${counted[1]}`) : g.label;
    return `${label} (${g.statuses.join(', ')})`;
  }).join(', ');
}

export class RecordSearch {
  private readonly states = new Map<string, State>();

  constructor(private readonly host: SearchHost) {}

  /** A record made by another body than those sent (see the module comment); one search per create at a time. */
  find(call: SearchCall): Promise<SearchResult> {
    const id = call.producer.operationId;
    const state = this.states.get(id) ?? this.states.set(id, { spent: 0, tried: new Set(), log: [], lists: new Set(), queue: Promise.resolve() }).get(id)!;
    const result = state.queue.then(() => this.attempt(state, call));
    state.queue = result.catch(() => undefined);
    return result;
  }

  private async attempt(state: State, call: SearchCall): Promise<SearchResult> {
    for (const body of call.sent) state.tried.add(keyOf(body));
    const random = new Random(`${this.host.seed}:${call.producer.operationId}:search:${state.spent}:${call.sent.length}`);
    if (state.winner) {
      // Sent again as it was made: its unique-looking text drawn afresh, values set by their names drawn anew.
      const named = state.winner.kind === 'named' ? namedCandidate(call.producer, state.winner.body, random) : undefined;
      const again = { ...state.winner, body: redrawn(named?.body ?? state.winner.body, random) };
      const made = await this.send(state, call, again, false);
      if (made) return made;
      state.winner = undefined;
    }
    const fields = referenceFields(this.host.contract, call.producer);
    const base = call.sent[0];
    const sources: Array<() => Promise<Candidate[]>> = [
      async () => answeredCandidates(call.producer, this.host.made.answeredBodies(call.producer), random),
      async () => this.withReferences(state, call, base, fields),
      async () => otherExamples(call.producer, base),
      async () => [namedCandidate(call.producer, base, random)].filter((c): c is Candidate => c !== undefined),
      async () => drawnCandidates(call.producer, base, fields, `${this.host.seed}:${call.producer.operationId}:search`, DRAWN),
    ];
    for (const source of sources) {
      if (state.spent >= SEARCH_BUDGET) break;
      for (const candidate of await source()) {
        if (state.spent >= SEARCH_BUDGET) break;
        if (state.tried.has(keyOf(candidate.body))) continue;
        state.tried.add(keyOf(candidate.body));
        const made = await this.send(state, call, candidate, true);
        if (made) {
          state.winner = candidate;
          return made;
        }
      }
    }
    const spent = state.spent >= SEARCH_BUDGET ? ` (its ${SEARCH_BUDGET} requests for ${call.producer.operationId} in this run are spent)` : '';
    return { tried: `${triedText(state.log)}${spent}` };
  }

  /** Sends one candidate; the record it made, or undefined. */
  private async send(state: State, call: SearchCall, candidate: Candidate, counted: boolean): Promise<SearchResult | undefined> {
    const exchange = await call.send(call.producer, { ...call.declared, pathParams: call.pathParams, body: candidate.body });
    if (counted) {
      state.spent++;
      state.log.push({ kind: candidate.kind, label: candidate.label, status: statusOf(exchange) });
    }
    const id = is2xx(exchange) ? call.idOf(exchange, call.pathParams) : undefined;
    // Taken, but no id to be read from the answer: another body would not show one either.
    if (id === undefined && is2xx(exchange)) state.spent = SEARCH_BUDGET;
    if (id === undefined) return undefined;
    const how = `${candidate.kind === 'answered' ? 'a body it answered with success earlier in the run, sent again' : candidate.label} (${exchange.response?.status})`;
    // What was tried before: the log without this body's (or, sent again, its first) success.
    return { made: { id, exchange, how }, tried: triedText(state.log.slice(0, -1)) };
  }

  /**
   * The base body with its reference fields filled from the values the run saw; where it saw none, from the list
   * of the collection a field names (read once, within the budget).
   */
  private async withReferences(state: State, call: SearchCall, base: unknown, fields: ReferenceField[]): Promise<Candidate[]> {
    const { pool, contract } = this.host;
    const values = (field: ReferenceField) => pool.forStem(field.stem, field.name);
    const sources: string[] = [];
    for (const field of fields.filter((f) => values(f).length === 0)) {
      const list = contract.operations.find((o) => o.service === call.producer.service && o.method === 'GET' && !o.path.includes('{') && namedCollections(field.stem).includes(lastSegmentName(o.path) ?? '') && listSchema(o) !== undefined);
      if (!list || state.lists.has(list.operationId) || state.spent >= SEARCH_BUDGET - 1) continue;
      state.lists.add(list.operationId);
      state.spent++;
      const read = await call.send(list, { ...this.host.declaredParams(list, new Random(`${this.host.seed}:${list.operationId}:search`)), pathParams: {} });
      state.log.push({ kind: 'list', label: `${list.method} ${list.path}`, status: statusOf(read) });
      sources.push(`${list.method} ${list.path}`);
    }
    const candidate = withReferences(call.producer, base, fields, values, sources.length === 1 ? sources[0]! : "the run's answers");
    return candidate ? [candidate] : [];
  }
}
