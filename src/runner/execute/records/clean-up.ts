/**
 * The clean-up: the run's ledger of the records it made (ledger.ts keeps it), and, at the end of the run, the
 * deletes of what the run did not delete itself, children before their parents, with what is left behind and why.
 */
import type { Contract, Exchange, LeftBehindRecord, Operation } from '../../model.ts';
import type { Profile } from '../../description/profile.ts';
import { Random } from '../../plan/random.ts';
import { CleanupLedger, leftBehind, type LedgerRecord } from './ledger.ts';
import type { RunConfig } from '../config.ts';
import { declaredParams } from './path-values.ts';
import type { PhaseLedger } from '../phases/host.ts';
import type { CallRequest } from '../request-builder.ts';
import { Skip } from '../skip.ts';

/** What the clean-up needs of the run. */
export interface CleanUpDeps {
  readonly config: RunConfig;
  readonly contract: Contract;
  profileOf(op: Operation): Profile;
  url(op: Operation, pathParams: Record<string, string>): string;
  call(op: Operation, request: CallRequest): Promise<Exchange>;
  /** Judges a delete's answer for its operation. */
  side(op: Operation, exchange: Exchange): void;
  /**
   * The path values with the keys a write of the run renamed replaced by their newest (records/renamed-keys.ts);
   * undefined while the run has renamed no key at all.
   */
  follow?(op: Operation, pathParams: Record<string, string>): Record<string, string> | undefined;
}

/** One clean-up as it runs: the records to delete (in the ledger's order), why each left is left, the refusals. */
interface Pass {
  pending: LedgerRecord[];
  /** Why each record is left behind (by its place in the ledger's order), when it is. */
  reasons: Map<number, string>;
  toDelete: number[];
  /** Deletes refused, with how many deletes had succeeded when each was sent. */
  refused: Array<{ i: number; before: number }>;
  succeeded: number;
}

export class CleanUp implements PhaseLedger {
  readonly records: CleanupLedger;

  constructor(private readonly deps: CleanUpDeps) {
    this.records = new CleanupLedger(deps.contract, (op) => deps.profileOf(op), (op, pathParams) => deps.url(op, pathParams), deps.follow && ((op, pathParams) => deps.follow!(op, pathParams)));
  }

  get ledgerSize(): number {
    return this.records.size;
  }

  ownRecords(create: Operation, pathParams: Record<string, string>): Array<{ id?: string; undo: { operation: Operation; pathParams: Record<string, string> } }> {
    return this.records.pendingOf(create, this.deps.url(create, pathParams));
  }

  /** Records a refused create stored all the same (a read after it showed them): into the cleanup ledger. */
  noteStored(op: Operation, exchange: Exchange, pathParams: Record<string, string>, ids: string[]): void {
    this.records.noteStored(op, exchange, pathParams, ids);
  }

  /**
   * Deletes everything the run created and did not delete itself, newest first, whatever failed before,
   * through the DELETE of the same resource: several at a time (the run's concurrency), but a record only once
   * every later record whose create named it is done (children before their parents). A delete that failed while
   * others went on is sent once more when all are done: what refused it may have been one of them. What cannot
   * be deleted (no DELETE described, no id in the answer, --read-only, a delete that fails) is left behind and
   * reported; a 404 or 410 means it is gone. Records no id names are reported last, one line per operation and
   * reason with their count.
   */
  async cleanup(): Promise<{ deleted: number; failed: number; leftBehind: LeftBehindRecord[] }> {
    const pass = this.startPass();
    await this.deleteAll(pass);
    // Refused while other records went: once more, now that they are gone (one at a time, newest first).
    const succeededInPass = pass.succeeded;
    for (const { i, before } of [...pass.refused].sort((a, b) => a.i - b.i)) if (before < succeededInPass) await this.deleteOne(pass, i);
    const left: LeftBehindRecord[] = [...pass.reasons].sort(([a], [b]) => a - b).map(([i, reason]) => leftBehind(pass.pending[i]!, reason));
    // What no id names cannot be deleted: counted per operation and reason.
    for (const group of this.records.unnamed()) left.push(leftBehind(group, group.reason));
    return { deleted: pass.succeeded, failed: pass.toDelete.length - pass.succeeded, leftBehind: left };
  }

  /** The ledger's pending records, each marked done: those to delete, and why each other one is left. */
  private startPass(): Pass {
    const pending = this.records.pending();
    const reasons = new Map<number, string>();
    const toDelete: number[] = [];
    pending.forEach((entry, i) => {
      entry.done = true;
      if (!entry.undo) reasons.set(i, entry.reason ?? 'nothing deletes it');
      else if (this.deps.config.readOnly) reasons.set(i, `--read-only sends no ${entry.undo.operation.method} ${entry.undo.operation.path}`);
      else toDelete.push(i);
    });
    return { pending, reasons, toDelete, refused: [], succeeded: 0 };
  }

  /** Sends the deletes, at most --concurrency at once, a record only once no record still to delete names it. */
  private async deleteAll(pass: Pass): Promise<void> {
    const { pending } = pass;
    // How many records still to delete name each one: it waits for them.
    const namedBy = new Map<LedgerRecord, number>();
    for (const i of pass.toDelete) for (const named of pending[i]!.names ?? []) namedBy.set(named, (namedBy.get(named) ?? 0) + 1);
    const queue = [...pass.toDelete];
    const running = new Set<Promise<void>>();
    const limit = Math.max(1, this.deps.config.concurrency);
    while (queue.length > 0 || running.size > 0) {
      // At most --concurrency deletes started at once: each holds its call until its answer (thousands of records
      // at 2,770 operations; all started at once, the run peaked at 334 MiB instead of 257).
      let at = running.size < limit ? queue.findIndex((i) => !namedBy.get(pending[i]!)) : -1;
      // Nothing free while nothing runs: an order the names cannot settle (never for records made one after another).
      if (at < 0 && running.size === 0) at = 0;
      if (at < 0) {
        await Promise.race(running);
        continue;
      }
      const [i] = queue.splice(at, 1) as [number];
      const job: Promise<void> = this.deleteOne(pass, i).finally(() => {
        running.delete(job);
        for (const named of pending[i]!.names ?? []) namedBy.set(named, (namedBy.get(named) ?? 1) - 1);
      });
      running.add(job);
    }
  }

  /** Deletes one record through its DELETE: gone (2xx, 404, 410), else the reason it is left; a refusal is kept. */
  private async deleteOne(pass: Pass, i: number): Promise<void> {
    const entry = pass.pending[i]!;
    const undo = entry.undo!.operation;
    const before = pass.succeeded;
    const random = new Random(`${this.deps.config.seed}:${undo.operationId}:cleanup`);
    let exchange: Exchange;
    try {
      exchange = await this.deps.call(undo, { ...declaredParams(undo, random), pathParams: entry.undo!.pathParams });
    } catch (error) {
      if (!(error instanceof Skip)) throw error;
      pass.reasons.set(i, `${undo.method} ${undo.path} ${error.message}`);
      return;
    }
    this.deps.side(undo, exchange);
    const status = exchange.response?.status;
    if (status !== undefined && ((status >= 200 && status < 300) || status === 404 || status === 410)) {
      pass.succeeded++;
      pass.reasons.delete(i);
    } else if (exchange.response !== undefined && (entry.names ?? []).some((parent) => parent.done && parent.undo !== undefined)) {
      // A record under one the run deleted (a comment of a deleted article) went with it, or is no longer reachable
      // through the API: nothing the contract lets the run delete is left.
      pass.succeeded++;
      pass.reasons.delete(i);
    } else {
      pass.reasons.set(i, `${undo.method} ${undo.path} answered ${status ?? exchange.error?.message ?? 'nothing'}`);
      if (exchange.response !== undefined) pass.refused.push({ i, before });
    }
  }
}
