/**
 * At most `size` tasks at once; the others wait their turn in the order they asked (first come, first
 * started), so that tasks queued in a fixed order start in that order.
 */
export class Slots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= Math.max(1, this.size)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next in line (it stays counted), else it is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
