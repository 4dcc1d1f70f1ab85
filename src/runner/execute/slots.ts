/**
 * At most `size` tasks at once; the others wait their turn in the order they asked (first come, first
 * started), so that tasks queued in a fixed order start in that order. A task may also ask to run alone
 * (`alone`): it starts once every running task has ended, and no other starts until it ends.
 */
export class Slots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Lone tasks asked for and not ended: while there is one, no task starts. */
  private held = 0;
  /** The end of the last lone task asked for (lone tasks run one after another). */
  private lone: Promise<void> = Promise.resolve();
  /** Called when the last running task ends, for the lone task waiting for that. */
  private drained: (() => void) | undefined;

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.held > 0 || this.active >= Math.max(1, this.size)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line (it stays counted), else it is freed; none passes while a
      // lone task waits.
      const next = this.held > 0 ? undefined : this.waiting.shift();
      if (next) next();
      else if (--this.active === 0) this.drained?.();
    }
  }

  /** Runs `task` with no other task of these slots running: after those running end, before those waiting start. */
  async alone<T>(task: () => Promise<T>): Promise<T> {
    this.held++;
    const before = this.lone;
    let ended!: () => void;
    this.lone = new Promise<void>((resolve) => (ended = resolve));
    await before;
    if (this.active > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = undefined;
    try {
      return await task();
    } finally {
      this.held--;
      ended();
      // The tasks that waited start, up to the size (another lone task asked for meanwhile goes first).
      while (this.held === 0 && this.active < Math.max(1, this.size) && this.waiting.length > 0) {
        this.active++;
        this.waiting.shift()!();
      }
    }
  }
}
