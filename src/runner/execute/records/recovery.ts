/**
 * Records found for a fixture where making one did not go as planned: a create that refused the bodies sent (a
 * record the run made already, one the deployment serves now, one a search for another body makes), a created id
 * its reader does not serve, and the contract's example values of a record no operation creates.
 */
import type { Exchange, Operation } from '../../model.ts';
import { pathParamNames } from '../../plan/cases.ts';
import { Random } from '../../plan/random.ts';
import { readersOfCreated } from '../../plan/relations.ts';
import type { Producer } from '../../plan/resources.ts';
import type { CaseRun } from '../case-run.ts';
import type { Profile } from '../../description/profile.ts';
import type { Contract } from '../../model.ts';
import type { RunConfig } from '../config.ts';
import type { MadeRecords } from './made.ts';
import type { ValuePool } from './value-pool.ts';
import { is2xx } from '../judge.ts';
import { recordIdOf } from './made.ts';
import { declaredParams } from './path-values.ts';
import { RecordSearch } from './search.ts';
import type { CallRequest } from '../request-builder.ts';
import { Skip } from '../skip.ts';

/** Refusals of a create that no other body would change (credentials, the method, the media types, a rate limit). */
const NOT_ABOUT_THE_BODY = new Set([401, 403, 405, 406, 415, 429]);

/** Whether a case uses up the record it is given: it was made for it alone (fresh), or the case deletes it. */
export function consumes(op: Operation, fresh: boolean): boolean {
  return fresh || op.method === 'DELETE';
}

/** Where a fixture's record is being made: the ids so far, the case, whether it consumes the record, its notes. */
export interface FixtureAt {
  ids: Record<string, string>;
  run: CaseRun;
  fresh: boolean;
  notes: string[];
}

/** What a create answered to the bodies sent for a record, and the id, where its success named one. */
export interface MadeAttempt {
  exchange: Exchange;
  sent: unknown[];
  statuses: Array<number | undefined>;
  id?: string;
}

/** How the create was sent, and the record the deployment serves now that a case may take instead. */
interface Recovery {
  pathParams: Record<string, string>;
  declared: Pick<CallRequest, 'query' | 'headers' | 'cookies'>;
  servedInstead: () => Promise<string | undefined>;
}

/** What the recovery needs of the run (a part of what the fixtures need). */
export interface RecoveryDeps {
  readonly config: RunConfig;
  readonly contract: Contract;
  readonly pool: ValuePool;
  readonly made: MadeRecords;
  profileOf(op: Operation): Profile;
  looksUnknown(op: Operation, exchange: Exchange): Promise<boolean>;
}

export class RecordRecovery {
  /** Other bodies for a record a create refused (search.ts). */
  private readonly search: RecordSearch;

  constructor(private readonly deps: RecoveryDeps) {
    this.search = new RecordSearch({ contract: deps.contract, pool: deps.pool, made: deps.made, seed: String(deps.config.seed), declaredParams: (op, random) => declaredParams(op, random) });
  }

  private get config() {
    return this.deps.config;
  }

  private get contract() {
    return this.deps.contract;
  }

  private get pool() {
    return this.deps.pool;
  }

  private get made() {
    return this.deps.made;
  }

  /**
   * A record for a fixture whose create refused the bodies sent: one the run made already (MadeRecords), else one
   * the deployment serves now (servedInstead), else one a search for another body makes (search.ts). The
   * case's result says which; a skip says what was tried.
   */
  async recoveredId(op: Operation, param: string, found: Producer, at: FixtureAt & MadeAttempt & Recovery): Promise<{ id: string; served?: boolean }> {
    const { producer } = found;
    const { exchange, pathParams, fresh, notes, run } = at;
    const failed = `setup: ${producer.operationId} answered ${exchange.response?.status ?? exchange.error?.message} without a record id`;
    if (!exchange.response) throw new Skip('setup-failed', failed);
    const refused = `setup: ${producer.operationId} answered ${at.statuses[0]} to the body sent for the record${at.statuses.length > 1 ? ` (${at.statuses[1]} to its required part)` : ''}`;
    const taken = this.made.take(producer, param, { parents: pathParams, fresh: consumes(op, fresh) });
    if (taken) {
      notes.push(`${refused}; the case takes a record ${producer.operationId} made earlier in the run ({${param}} = ${taken.ids[param]})`);
      return { id: taken.ids[param]! };
    }
    const served = await at.servedInstead();
    if (served !== undefined) return { id: served, served: true };
    // A success without an id, or a refusal of something other than the body: no other body would do better.
    if (is2xx(exchange) || NOT_ABOUT_THE_BODY.has(exchange.response.status)) throw new Skip('setup-failed', failed);
    // Answered like a route the deployment does not have: no body reaches a record there.
    if (await this.deps.looksUnknown(producer, exchange)) throw new Skip('setup-failed', failed);
    const idOf = (e: Exchange, p: Record<string, string>) => recordIdOf(this.contract, this.deps.profileOf(producer), found, param, e, p);
    const result = await this.search.find({ producer, pathParams, declared: at.declared, sent: at.sent, send: (o, r) => run.send(o, r), idOf });
    if (!result.made) throw new Skip('setup-failed', `${failed}${result.tried ? `; tried besides: ${result.tried}` : ''}`);
    this.made.handOut(producer, param, result.made.id, consumes(op, fresh));
    notes.push(`${refused}; a record was made with ${result.made.how}${result.tried ? ` (tried before: ${result.tried})` : ''}`);
    return { id: result.made.id };
  }

  /** A created id that its reader does not serve would fail the dependant, not the producer: the case is skipped instead. */
  async readerServes(producer: Operation, param: string, named: Record<string, string>, id: string, run: CaseRun): Promise<void> {
    const reader = readersOfCreated(this.contract, producer).find((r) => r.role !== 'list');
    if (!reader?.param) return;
    // A sanity check only: a reader the run no longer sends to (it timed out twice) checks nothing.
    const check = await run.send(reader.operation, { pathParams: { ...named, [reader.param]: id } }).catch((error: unknown) => {
      if (error instanceof Skip && error.kind === 'timed-out') return undefined;
      throw error;
    });
    const status = check?.response?.status;
    const documented = status !== undefined && reader.operation.responses.some((r) => r.status === String(status));
    if (check && status !== undefined && status >= 400 && status < 500 && documented && !(await this.deps.looksUnknown(reader.operation, check))) {
      throw new Skip('setup-failed', `setup: the id ${producer.operationId} answered is not served by ${reader.operation.operationId} (${status}); see ${producer.operationId}'s created-record case`);
    }
  }

  /**
   * A record of the path parameter's collection that an answer of the run held and that the operation's reader
   * serves now (the newest of the pool's first few; undefined: none, or no reader to ask).
   */
  async servedRecord(op: Operation, param: string, ids: Record<string, string>, run: CaseRun, producer?: Operation): Promise<string | undefined> {
    const reader = this.contract.operations.find((o) => o.method === 'GET' && o.path === op.path.slice(0, op.path.indexOf(`{${param}}`) + param.length + 2));
    if (!reader) return undefined;
    // Not a record the run handed to a case that consumes it (a delete may be removing it now).
    const values = this.pool.values(op, param).filter((value) => !producer || !this.made.consumed(producer, value));
    for (const value of values.reverse().slice(0, 3)) {
      const names = pathParamNames(reader);
      const check = await run.send(reader, { pathParams: Object.fromEntries(names.map((n) => [n, n === param ? value : (ids[n] ?? '')])) });
      if (is2xx(check)) return value;
    }
    return undefined;
  }

  /** The contract's example path values of a read are used only if a GET of that path answers them with success. */
  async lookUpExamples(op: Operation, reader: Operation, ids: Record<string, string>, examples: Record<string, string>, run: CaseRun): Promise<void> {
    // The reader's path has the read's shape; its parameters may go by other names.
    const names = pathParamNames(reader);
    const values = pathParamNames(op).map((p) => ids[p] ?? '');
    const pathParams = Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
    const random = new Random(`${this.config.seed}:${op.operationId}:example-record`);
    const check = await run.send(reader, { ...declaredParams(reader, random), pathParams });
    if (is2xx(check)) return;
    const shown = Object.entries(examples).map(([p, v]) => `{${p}} = ${JSON.stringify(v)}`).join(', ');
    const answer = check.response ? `answered ${check.response.status}` : `failed: ${check.error?.message ?? 'no answer'}`;
    throw new Skip('no-producer', `no described operation creates the record for ${Object.keys(examples).map((p) => `{${p}}`).join(', ')}, and the contract's example (${shown}) names none on this deployment (${reader.method} ${reader.path} ${answer})`);
  }
}
