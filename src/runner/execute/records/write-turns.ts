/**
 * Writes of one record kind one at a time. An update of a record races with every other update of it: one that
 * changes its key (a slug that follows the title) leaves the others in flight asking for a key that is gone, and
 * of a record there is one of per caller (`PUT /user`) a concurrent update overwrites what another case's read
 * back looks for. So the PUTs and PATCHes of one path (its parameters' names aside) take turns, in the order
 * they came; a case that writes and reads the record back holds the turn for the whole chain (its own writes
 * inside it do not wait on it). Reads, creates and deletes are not held.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Operation } from '../../model.ts';

const TURNS = new Set(['PUT', 'PATCH']);

export class WriteTurns {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly held = new AsyncLocalStorage<ReadonlySet<string>>();

  private key(op: Operation): string {
    return `${op.service}\u0000${op.path.replace(/\{[^}]*\}/g, '{}').replace(/\/+$/, '')}`;
  }

  /** Whether a request of the operation with this method takes a turn. */
  takesTurn(op: Operation, method: string): boolean {
    return TURNS.has(method) && !(this.held.getStore()?.has(this.key(op)) ?? false);
  }

  /** Runs `work` in the operation's turn (at once where the caller holds it already). */
  async inTurn<T>(op: Operation, work: () => Promise<T>): Promise<T> {
    const key = this.key(op);
    const held = this.held.getStore();
    if (held?.has(key)) return work();
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await this.held.run(new Set([...(held ?? []), key]), work);
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
