/**
 * Delivered minutes [from, to) of a run, copied out only when a fit is computed: a memo that
 * already holds the fit reads the window's bounds (or its bytes, contentFits) and copies nothing.
 * Every refit copied 14 days of minutes before asking the memo, about 5 % of a candidate in
 * `governor tune` and of a suite cell.
 */
export class DeliveredWindow {
  readonly #source: readonly number[];
  readonly from: number;
  readonly to: number;

  constructor(source: readonly number[], from: number, to: number) {
    if (!(Number.isInteger(from) && Number.isInteger(to) && 0 <= from && from <= to && to <= source.length)) {
      throw new RangeError(
        `delivered window [${from}, ${to}) is outside the ${source.length} minutes delivered`,
      );
    }
    this.#source = source;
    this.from = from;
    this.to = to;
  }

  get length(): number {
    return this.to - this.from;
  }

  /** The window's minute i (0 is `from`). */
  at(i: number): number {
    return this.#source[this.from + i]!;
  }

  /** A copy of the window's minutes, oldest first. */
  values(): number[] {
    return this.#source.slice(this.from, this.to);
  }
}
