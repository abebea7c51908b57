/**
 * Robust statistics for the forecaster: medians and quantiles that skip missing values (NaN),
 * and the small-sample centre used for weekly effects. Pure and allocation-light: the backtest
 * refits the forecaster hundreds of times per trace.
 */

import { selectRange, sortFloat64 } from './sort.ts';

/**
 * The finite values of a list, sorted ascending (a fresh Float64Array); values already in order
 * are not sorted again (shared/forecast/sort.ts).
 */
export function sortedFinite(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(values.length);
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) out[n++] = v;
  }
  sortFloat64(out, n);
  return out.subarray(0, n);
}

/**
 * The q-quantile of sorted values with linear interpolation between order statistics (type 7,
 * as R's default and numpy's "linear"): q 0.5 of [1, 2, 3, 10] is 2.5. NaN when empty.
 */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const pos = Math.min(Math.max(q, 0), 1) * (n - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (pos - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Median of the finite values among the first n of buf (the mean of the middle two for an
 * even count; NaN when none), reordering buf: for callers that own a scratch buffer.
 */
export function medianInPlace(buf: Float64Array, n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) {
    const v = buf[i]!;
    if (Number.isFinite(v)) buf[k++] = v;
  }
  return medianOfFinite(buf, k);
}

/** medianInPlace of buf[0..k) when all of them are finite (callers that filter as they copy). */
export function medianOfFinite(buf: Float64Array, k: number): number {
  if (k === 0) return Number.NaN;
  selectRange(buf, 0, k - 1, k >> 1);
  const upper = buf[k >> 1]!;
  if (k % 2 === 1) return upper;
  let lower = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < k >> 1; i++) if (buf[i]! > lower) lower = buf[i]!;
  return (lower + upper) / 2;
}

/** Median of the finite values; NaN when none. The input is not changed. */
export function median(values: ArrayLike<number>): number {
  return medianInPlace(new Float64Array(values), values.length);
}

/** Median absolute deviation scaled to a normal standard deviation (1.4826 x MAD). */
export function robustScale(values: ArrayLike<number>): number {
  const dev = new Float64Array(values);
  const centre = medianInPlace(dev, dev.length);
  if (!Number.isFinite(centre)) return Number.NaN;
  for (let i = 0; i < values.length; i++) dev[i] = Math.abs(values[i]! - centre);
  return 1.4826 * medianInPlace(dev, dev.length);
}

/**
 * The centre of a few samples of one seasonal effect (one value per week of history), robust
 * to one bad week. With three or more, the median. With two, the median is their mean, so one
 * launch-day week would move the effect halfway; instead keep only what both weeks agree on:
 * the smaller value when both have the same sign, else 0. Worked example: Thursdays at +0.1
 * and +1.4 (a flash crowd) give +0.1, not +0.75. With one, the value itself; none gives 0.
 * Pinned by tests/forecast/stats.test.ts.
 */
export function robustCenter(values: ArrayLike<number>, n = values.length): number {
  let count = 0;
  let a = Number.NaN;
  let b = Number.NaN;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    if (count === 0) a = v;
    else if (count === 1) b = v;
    count++;
  }
  if (count === 0) return 0;
  if (count === 1) return a;
  if (count > 2) {
    const copy = new Float64Array(n);
    for (let i = 0; i < n; i++) copy[i] = values[i]!;
    return medianInPlace(copy, n);
  }
  if (a > 0 && b > 0) return Math.min(a, b);
  if (a < 0 && b < 0) return Math.max(a, b);
  return 0;
}

/** Robust slope of a series against its index (Theil-Sen: the median of pairwise slopes); 0 under 2 points. */
export function theilSen(d: ArrayLike<number>, from = 0, to = d.length): number {
  const slopes: number[] = [];
  for (let i = from; i < to; i++) {
    for (let j = i + 1; j < to; j++) {
      const s = (d[j]! - d[i]!) / (j - i);
      if (Number.isFinite(s)) slopes.push(s);
    }
  }
  return slopes.length === 0 ? 0 : median(slopes);
}

/** Mean of the finite values in [from, to) of a list; NaN when none. */
export function meanFinite(values: ArrayLike<number>, from = 0, to = values.length): number {
  let sum = 0;
  let n = 0;
  for (let i = Math.max(0, from); i < Math.min(to, values.length); i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return n === 0 ? Number.NaN : sum / n;
}

/**
 * Inverse of the standard normal CDF (Acklam's rational approximation, relative error under
 * 1.2e-9): normalQuantile(0.99) = 2.3263, normalQuantile(0.9) = 1.2816. p must be in (0, 1).
 */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
    ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
