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
