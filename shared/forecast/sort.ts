/**
 * Ascending sort, selection and binary search on Float64Array ranges, for the forecaster's hot
 * paths.
 *
 * The sort is the native typed-array sort (numeric, -0 before +0), skipped when the values are
 * already in order: one comparison per value (2,504 of the ~120,000 arrays one NASA backtest
 * sorts arrive sorted). A quicksort in JavaScript was tried and dropped: on Node 24 it ran
 * within 10 % of the native sort at 40 to 4,032 values, not worth a second sort to keep bit
 * for bit equal to the first. Pinned by tests/forecast/hot-paths.test.ts.
 */

/** First index in [lo, hi) whose value is not below x (hi when none): a[lo..hi) ascending. */
export function lowerBound(a: Float64Array, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** x goes before y in the native sort's order: smaller, or -0 against +0. */
export const before = (x: number, y: number): boolean => x < y || (x === 0 && y === 0 && 1 / x < 1 / y);

/**
 * The values of two ascending arrays (no NaN) in one ascending array: what sorting both
 * together gives, bit for bit (-0 before +0), in one linear pass.
 */
export function mergeSorted(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let [i, j, n] = [0, 0, 0];
  while (i < a.length && j < b.length) out[n++] = before(b[j]!, a[i]!) ? b[j++]! : a[i++]!;
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out;
}

/** True when a[0..n) is already in the native sort's order (-0 before +0 counts). */
function isSorted(a: Float64Array, n: number): boolean {
  for (let i = 1; i < n; i++) {
    const p = a[i - 1]!;
    const v = a[i]!;
    if (p > v || (p === 0 && v === 0 && 1 / p > 1 / v)) return false;
  }
  return true;
}

/** Sorts a[0..n) ascending in place as Float64Array.prototype.sort does; no NaN. */
export function sortFloat64(a: Float64Array, n = a.length): void {
  if (!isSorted(a, n)) a.subarray(0, n).sort();
}

/*
 * Order statistics and quantiles by selection, for the forecaster's hot paths where a sort was
 * done to read two to eight values of it: the same values as sorting, bit for bit, in O(n) on
 * average instead of O(n log n), and into a scratch buffer the caller owns.
 *
 * Why the values are the sort's: the k-th smallest of a list is one number whichever way it is
 * found, except for the sign of a zero (the native sort puts -0 before +0, a comparison cannot
 * tell them apart). So when the selected value is a zero, its sign is read from the counts: the
 * k-th (from 0) is -0 when more than k values are below +0 (negatives and -0s). Pinned against
 * quantileOfSorted(sortedFinite(...)) by tests/forecast/select.test.ts.
 */

/**
 * Partially orders a[lo..hi] so that a[k] holds the value the sort would put there (but for
 * the sign of a zero) and every value before it is not above it, every value after not below
 * (Hoare's quickselect, middle pivot). No NaN in the range.
 */
export function selectRange(a: Float64Array, lo: number, hi: number, k: number): void {
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const tmp = a[i]!;
        a[i++] = a[j]!;
        a[j--] = tmp;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/** Values of a[0..n) below +0: the negatives and every -0. */
function belowPositiveZero(a: Float64Array, n: number): number {
  let count = 0;
  for (let i = 0; i < n; i++) if (before(a[i]!, 0)) count++;
  return count;
}

/** Keeps the finite values of a[0..n) at its start, in order; returns how many. */
export function compactFinite(a: Float64Array, n: number): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    const v = a[i]!;
    if (Number.isFinite(v)) a[m++] = v;
  }
  return m;
}

/** Moves the least (k = lo) or greatest (k = hi) value of a[lo..hi] to k. */
function swapExtreme(a: Float64Array, lo: number, hi: number, k: number): void {
  let at = k;
  for (let i = lo; i <= hi; i++) if (k === lo ? a[i]! < a[at]! : a[i]! > a[at]!) at = i;
  const tmp = a[k]!;
  a[k] = a[at]!;
  a[at] = tmp;
}

/** Orders a[lo..hi] so that each of ranks[rlo..rhi) (ascending, inside [lo, hi]) holds its value. */
function selectMany(
  a: Float64Array,
  lo: number,
  hi: number,
  ranks: ArrayLike<number>,
  rlo: number,
  rhi: number,
): void {
  while (rlo < rhi) {
    const mid = (rlo + rhi) >> 1;
    const k = ranks[mid]!;
    // The end of a range (the other of a pair of middle ranks, most often) is its least or
    // greatest value: one scan, not a quickselect.
    if (k === lo || k === hi) swapExtreme(a, lo, hi, k);
    else selectRange(a, lo, hi, k);
    selectMany(a, lo, k - 1, ranks, rlo, mid);
    [lo, rlo] = [k + 1, mid + 1];
  }
}

/**
 * The values at ascending ranks `ranks` (0-based, each below n, no repeats) of a[0..n) as the
 * native sort orders them (-0 before +0), into out; reorders a. Middle rank first, then each
 * side's: about n log(ranks) steps, not n per rank. No NaN in a[0..n).
 */
export function orderStatistics(
  a: Float64Array,
  n: number,
  ranks: ArrayLike<number>,
  out: Float64Array,
): void {
  selectMany(a, 0, n - 1, ranks, 0, ranks.length);
  let below = -1;
  for (let i = 0; i < ranks.length; i++) {
    const k = ranks[i]!;
    let v = a[k]!;
    if (v === 0) {
      if (below < 0) below = belowPositiveZero(a, n);
      v = k < below ? -0 : 0;
    }
    out[i] = v;
  }
}

/**
 * Type-7 quantiles (as quantileOfSorted) of the finite values among a[0..n), one per q of qs
 * in any order, into out: bit for bit quantileOfSorted(sortedFinite(a[0..n)), q). NaN when no
 * value is finite. Reorders a.
 */
export function quantilesInPlace(a: Float64Array, n: number, qs: readonly number[], out: Float64Array): void {
  const m = compactFinite(a, n);
  if (m === 0) {
    out.fill(Number.NaN, 0, qs.length);
    return;
  }
  const pos = qs.map((q) => Math.min(Math.max(q, 0), 1) * (m - 1));
  const ranks: number[] = [];
  for (const p of pos) if (!Number.isNaN(p)) ranks.push(Math.floor(p), Math.min(Math.floor(p) + 1, m - 1));
  const unique = Int32Array.from(new Set(ranks)).sort();
  const values = new Float64Array(unique.length);
  orderStatistics(a, m, unique, values);
  const at = (k: number) => values[unique.indexOf(k)]!;
  for (let i = 0; i < qs.length; i++) {
    const lo = Math.floor(pos[i]!);
    // A NaN level reads no value: NaN, as quantileOfSorted gives.
    const low = Number.isNaN(lo) ? Number.NaN : at(lo);
    out[i] = low + (pos[i]! - lo) * (at(Math.min(lo + 1, m - 1)) - low);
  }
}

/** One type-7 quantile of the finite values among a[0..n), as quantilesInPlace; reorders a. */
export function quantileInPlace(a: Float64Array, n: number, q: number): number {
  const out = new Float64Array(1);
  quantilesInPlace(a, n, [q], out);
  return out[0]!;
}
