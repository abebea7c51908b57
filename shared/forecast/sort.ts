/**
 * Ascending sort and binary search on Float64Array ranges, for the forecaster's hot paths.
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
const before = (x: number, y: number): boolean => x < y || (x === 0 && y === 0 && 1 / x < 1 / y);

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
