/**
 * The simulated fleet: ready instances, instances still starting (each with the minute it will
 * serve from), and an optional warm pool of stopped, pre-initialized instances.
 *
 * Steps 1 and 3 of BACKTEST.md's tick live here: promotion of started instances, and the
 * change towards a desired capacity (requests draw on the warm pool first; a decrease cancels
 * starting instances first, the latest-requested first, then removes ready ones).
 */

interface Batch {
  /** The first minute these instances serve. */
  at: number;
  count: number;
}

export interface FleetOptions {
  initialReady: number;
  coldStartMinutes: number;
  warmStartMinutes: number;
  /** Idle warm-pool instances to keep (0: no warm pool). */
  warmPoolSize: number;
}

export class Fleet {
  ready: number;
  /** Stopped, initialized warm-pool instances (billed at the idle rate). */
  warmIdle: number;
  readonly #pending: Batch[] = [];
  /** Warm-pool instances being initialized: running, so billed in full until they stop. */
  readonly #filling: Batch[] = [];
  readonly #options: FleetOptions;
  #warmPoolSize: number;

  constructor(options: FleetOptions) {
    this.#options = options;
    this.ready = options.initialReady;
    this.warmIdle = options.warmPoolSize;
    this.#warmPoolSize = options.warmPoolSize;
  }

  /**
   * Resizes the warm pool: a larger pool starts filling now (new instances initialize for a
   * cold start, billed in full, then stop); a smaller one terminates idle instances at once.
   */
  resizeWarmPool(size: number, minute: number): void {
    this.#warmPoolSize = size;
    const have = this.warmIdle + this.filling;
    if (size > have) this.#enqueue(this.#filling, minute + this.#options.coldStartMinutes, size - have);
    else if (size < this.warmIdle) this.warmIdle = size;
  }

  get pending(): number {
    let n = 0;
    for (const b of this.#pending) n += b.count;
    return n;
  }

  get filling(): number {
    let n = 0;
    for (const b of this.#filling) n += b.count;
    return n;
  }

  /** Step 1: instances whose ready minute is <= minute start serving; filled warm instances stop. */
  promote(minute: number): void {
    while (this.#pending.length > 0 && this.#pending[0]!.at <= minute) {
      this.ready += this.#pending.shift()!.count;
    }
    while (this.#filling.length > 0 && this.#filling[0]!.at <= minute) {
      this.warmIdle += this.#filling.shift()!.count;
    }
  }

  /**
   * Step 3: moves towards `desired` (ready + pending). Returns whether anything changed, which
   * is one scaling action whatever its size.
   */
  scaleTo(desired: number, minute: number): boolean {
    const current = this.ready + this.pending;
    if (desired > current) this.#add(desired - current, minute);
    else if (desired < current) this.#remove(current - desired);
    else return false;
    // Instances with no start-up delay (the oracle's) serve this very minute.
    this.promote(minute);
    return true;
  }

  #add(count: number, minute: number): void {
    const { coldStartMinutes, warmStartMinutes } = this.#options;
    const warmPoolSize = this.#warmPoolSize;
    const warm = Math.min(count, this.warmIdle);
    if (warm > 0) {
      this.warmIdle -= warm;
      this.#enqueue(this.#pending, minute + warmStartMinutes, warm);
      // The pool refills at once; a new warm instance initializes for a full cold start.
      const refill = warmPoolSize - this.warmIdle - this.filling;
      if (refill > 0) this.#enqueue(this.#filling, minute + coldStartMinutes, refill);
    }
    if (count > warm) this.#enqueue(this.#pending, minute + coldStartMinutes, count - warm);
  }

  #remove(count: number): void {
    let left = count;
    while (left > 0 && this.#pending.length > 0) {
      const last = this.#pending[this.#pending.length - 1]!;
      const take = Math.min(left, last.count);
      last.count -= take;
      left -= take;
      if (last.count === 0) this.#pending.pop();
    }
    this.ready -= Math.min(left, this.ready);
  }

  /** Batches stay ordered by ready minute: the start-up delays are fixed per kind of start. */
  #enqueue(queue: Batch[], at: number, count: number): void {
    const last = queue[queue.length - 1];
    if (last && last.at === at) last.count += count;
    else {
      queue.push({ at, count });
      queue.sort((a, b) => a.at - b.at);
    }
  }
}
