/**
 * A lock taken in a mode: holders of the same mode share it, "alone" shares it with nobody, and
 * waiters are let in first come, first served. The customer checks run concurrently: their
 * creates and deletes must not move rows under a list read page by page ("page"); a create must
 * not meet a delete in flight, which a target that reuses ids may answer with the id being
 * deleted ("create", "delete"); and a probe of a deleted id must not meet a new customer the
 * target gave that id ("alone").
 */
export type Mode = 'create' | 'delete' | 'page' | 'alone';

export class ModeLock {
  private holders = 0;
  private mode?: Mode;
  private readonly queue: { mode: Mode; enter: () => void }[] = [];

  async hold<T>(mode: Mode, work: () => Promise<T>): Promise<T> {
    await this.enter(mode);
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  private enter(mode: Mode): Promise<void> {
    if (!this.queue.length && this.fits(mode)) return Promise.resolve(this.take(mode));
    return new Promise((enter) => this.queue.push({ mode, enter }));
  }

  private fits(mode: Mode): boolean {
    return this.holders === 0 || (mode !== 'alone' && mode === this.mode);
  }

  private take(mode: Mode): void {
    this.mode = mode;
    this.holders += 1;
  }

  private leave(): void {
    this.holders -= 1;
    while (this.queue.length && this.fits(this.queue[0].mode)) {
      const next = this.queue.shift()!;
      this.take(next.mode);
      next.enter();
    }
  }
}
