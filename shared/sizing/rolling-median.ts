/**
 * Trailing medians over a sliding window, for the noise model's levels (noise-model.ts).
 *
 * The window is kept sorted in a Float64Array: a binary search finds where the new minute goes
 * in and where the oldest comes out (O(log w)), and one shift moves the values between them
 * (at most w doubles: 15 by default, 120 at most). The version before scanned and
 * spliced a JS array linearly; on two days of minutes (2,880) at w = 15 this runs ~10x faster
 * (bench/noise.bench.ts prints the ratio).
 *
 * Bit for bit the old results, -0 and +0 included: the insertion point is the first value not
 * below the new one, as the old linear scan found it, and the value removed is the first equal
 * to the oldest minute, as indexOf found it (equal values are adjacent in a sorted window).
 */

import { lowerBound } from '../forecast/sort.ts';

/**
 * The median of the `window` values before each index: NaN before there are that many, or
 * where one of them is missing (a gap, NaN or infinite, restarts the window: a level across it
 * would be a guess). `window` is a whole number of at least 0 (the policy allows 3-120).
 */
export function trailingMedians(demand: ArrayLike<number>, window: number): Float64Array {
  const out = new Float64Array(demand.length).fill(Number.NaN);
  const win = new Float64Array(window + 1);
  const odd = window % 2 === 1;
  const mid = window >> 1;
  let size = 0;
  for (let i = 0; i < demand.length; i++) {
    if (size === window && window > 0) out[i] = odd ? win[mid]! : (win[mid - 1]! + win[mid]!) / 2;
    const x = demand[i]!;
    if (!Number.isFinite(x)) size = 0;
    else if (size < window) {
      insertAt(win, size, lowerBound(win, 0, size, x), x);
      size++;
    } else if (window > 0) replace(win, size, demand[i - window]!, x);
  }
  return out;
}

/**
 * trailingMedians one value at a time, for a series that grows (the backtest's look-ahead keeps
 * the levels of every delivered minute instead of redoing two days of them at each hourly refit):
 * next(x) is the median of the `window` values before x (as trailingMedians gives at x's index),
 * then takes x in. The same steps as trailingMedians, with the last `window` values in a ring.
 * Kept over a whole series and sliced, the levels are the slice's own but for the sign of a zero
 * (a window that takes -0 in for +0 out keeps +0, so a zero's sign depends on where the window
 * started), which no fit reads: fitNoise uses levels above 0 only. tests/forecast/hot-paths.test.ts
 * pins both on random series, gaps and -0 included.
 */
export class TrailingMedian {
  readonly #window: number;
  readonly #win: Float64Array;
  /** The last `window` values, the oldest at #head once full. */
  readonly #recent: Float64Array;
  #head = 0;
  #size = 0;

  constructor(window: number) {
    this.#window = window;
    this.#win = new Float64Array(window + 1);
    this.#recent = new Float64Array(Math.max(1, window));
  }

  next(x: number): number {
    const window = this.#window;
    const win = this.#win;
    let size = this.#size;
    const mid = window >> 1;
    const out =
      size === window && window > 0
        ? window % 2 === 1
          ? win[mid]!
          : (win[mid - 1]! + win[mid]!) / 2
        : Number.NaN;
    if (!Number.isFinite(x)) size = 0;
    else if (size < window) {
      insertAt(win, size, lowerBound(win, 0, size, x), x);
      size++;
    } else if (window > 0) replace(win, size, this.#recent[this.#head]!, x);
    this.#size = size;
    if (window > 0) {
      this.#recent[this.#head] = x;
      this.#head = this.#head + 1 === window ? 0 : this.#head + 1;
    }
    return out;
  }
}

/** Inserts x at `at` in win[0..size), shifting the rest right (loops: faster than copyWithin at w <= 120). */
function insertAt(win: Float64Array, size: number, at: number, x: number): void {
  for (let j = size; j > at; j--) win[j] = win[j - 1]!;
  win[at] = x;
}

/**
 * The full window with `old` out and `x` in, one shift instead of two. The old order (insert x
 * before its equals, then drop the first value equal to old) keeps the window unchanged when
 * x === old (x itself is dropped: -0 in for +0 out leaves +0); otherwise it is the same as
 * dropping old first, then inserting x.
 */
function replace(win: Float64Array, size: number, old: number, x: number): void {
  if (x === old) return;
  const gone = lowerBound(win, 0, size, old);
  const at = lowerBound(win, 0, size, x);
  if (at <= gone) {
    for (let j = gone; j > at; j--) win[j] = win[j - 1]!;
    win[at] = x;
  } else {
    for (let j = gone; j < at - 1; j++) win[j] = win[j + 1]!;
    win[at - 1] = x;
  }
}
