/**
 * Keeps a service's creates apart from the run's delete chains. A store may hand a freed id to the next record
 * it makes (a slab allocator, an in-memory array): a create answered while a delete chain runs could be given the
 * id just deleted, and the chain's read of that id would then show the new record as the deleted one still
 * served (use-after-delete), or the chain's second DELETE would remove another case's record. How often that
 * happens depends on timing; one seed must give one verdict at any --concurrency. So a delete chain (the
 * DELETE and the reads that show the record gone) waits for the creates in flight to end and holds new ones
 * back until it ends; delete chains run together, and so do creates. Waiters are let in in the order they came,
 * so neither side starves. A chain must send no create itself (it would wait on its own chain).
 */
type Side = 'create' | 'delete';

export class CreateFence {
  private side: Side | undefined;
  private inside = 0;
  private readonly waiting: Array<{ side: Side; enter: () => void }> = [];

  /** Runs a create once no delete chain runs. */
  create<T>(work: () => Promise<T>): Promise<T> {
    return this.within('create', work);
  }

  /** Runs a delete chain once no create is in flight; creates wait until it ends. */
  deleteChain<T>(work: () => Promise<T>): Promise<T> {
    return this.within('delete', work);
  }

  private async within<T>(side: Side, work: () => Promise<T>): Promise<T> {
    if (this.waiting.length > 0 || (this.side !== undefined && this.side !== side)) {
      await new Promise<void>((enter) => this.waiting.push({ side, enter }));
    } else {
      this.side = side;
      this.inside++;
    }
    try {
      return await work();
    } finally {
      if (--this.inside === 0) this.letIn();
    }
  }

  /** The waiters at the head of the queue that are of one side go in together. */
  private letIn(): void {
    this.side = this.waiting[0]?.side;
    while (this.waiting[0] && this.waiting[0].side === this.side) {
      this.inside++;
      this.waiting.shift()!.enter();
    }
  }
}
