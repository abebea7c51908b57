/**
 * How far a minute's demand strays from its level, as a function of the level, measured on the
 * target's own recent minutes:
 *
 *   Var(demand - level) = a x level + b x level^2
 *
 * The a term is count noise (a Poisson count's variance grows with its mean: 20 requests a
 * minute wobble by about +-4.5, 2,000 by about +-45, relatively ten times less); the b term is
 * noise that scales with the level (a 5 % wobble at any volume). A minute's level is the median
 * of the minutes before it, so no forecast is needed: the model is there after an hour.
 *
 * Fitted robustly: minutes are binned by level and each bin's spread is a MAD, so spikes (a
 * tenth of the minutes at 3x the level) do not widen it; what the spikes need is left to the
 * reactive loop, which sees them.
 *
 * Worked example (pinned by tests/forecast/noise-model.test.ts): Poisson counts around levels
 * of 20 to 400 fit a ~ 1 and b ~ 0, so at a level of 100 the standard deviation is ~10 and a
 * floor at 2.33 sigmas covers 123 requests a minute.
 */

import { lowerBound, sortFloat64 } from '../forecast/sort.ts';
import { medianInPlace } from '../forecast/stats.ts';
import { trailingMedians } from './rolling-median.ts';

export { trailingMedians };

export interface NoiseModel {
  /** Variance per request of level (count noise). */
  a: number;
  /** Variance per squared request of level (noise proportional to the level). */
  b: number;
  /** Minutes the fit was made from. */
  samples: number;
}

/** At most this many level bins, each of at least MIN_PER_BIN minutes (so two bins need 20 minutes). */
const MAX_BINS = 6;
const MIN_PER_BIN = 10;
/** A MAD times this is a standard deviation under a normal shape. */
const MAD_TO_SD = 1.4826;

/**
 * Fits the model from pairs (level, actual demand); null with fewer than 20 usable minutes.
 *
 * Typed arrays throughout and no re-sort (the fit runs every hour of a backtest over two days
 * of minutes, 660 times on NASA July): the levels are sorted once, each pair finds its place
 * among them by binary search (ties keep their order, as the stable sort of pairs before did,
 * so the same pairs fall in each bin), and each bin's two medians are selections in one
 * scratch buffer instead of two sorted copies. Bit for bit the fit before: no residual here
 * is -0 (levels are above 0, y - l is +0 when equal), so a median's value does not depend on
 * how it is found (for demand under 1e307 in size: past that, y - l overflows and the old sort's
 * order was undefined). Pinned by tests/forecast/hot-paths.test.ts.
 */
export function fitNoise(levels: ArrayLike<number>, actuals: ArrayLike<number>): NoiseModel | null {
  const usable = usablePairs(levels, actuals);
  const n = usable.count;
  const bins = Math.min(MAX_BINS, Math.floor(n / MIN_PER_BIN));
  if (bins < 2) return null;
  const { sorted, residuals } = byLevel(usable);
  const per = Math.floor(n / bins);
  const scratch = new Float64Array(n);
  const points: [number, number][] = [];
  for (let b = 0; b < bins; b++) {
    const from = b * per;
    const len = (b === bins - 1 ? n : (b + 1) * per) - from;
    for (let j = 0; j < len; j++) scratch[j] = residuals[from + j]!;
    const centre = medianInPlace(scratch, len);
    for (let j = 0; j < len; j++) scratch[j] = Math.abs(scratch[j]! - centre);
    const sd = MAD_TO_SD * medianInPlace(scratch, len);
    points.push([medianOfSorted(sorted, from, len), sd * sd]);
  }
  return { ...fitVariance(points), samples: n };
}

interface Pairs {
  levels: Float64Array;
  residuals: Float64Array;
  count: number;
}

/** The minutes with a level above 0 and both values finite: their level and demand - level. */
function usablePairs(levels: ArrayLike<number>, actuals: ArrayLike<number>): Pairs {
  const out = {
    levels: new Float64Array(levels.length),
    residuals: new Float64Array(levels.length),
    count: 0,
  };
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i]!;
    const y = actuals[i]!;
    if (l > 0 && Number.isFinite(l) && Number.isFinite(y)) {
      out.levels[out.count] = l;
      out.residuals[out.count++] = y - l;
    }
  }
  return out;
}

/**
 * The levels sorted, and the residuals in the same order, equal levels in their original
 * order: the k-th pair of level l goes to (first index of l among the sorted levels) + k.
 */
function byLevel(p: Pairs): { sorted: Float64Array; residuals: Float64Array } {
  const n = p.count;
  const sorted = p.levels.slice(0, n);
  sortFloat64(sorted);
  const taken = new Int32Array(n);
  const residuals = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const first = lowerBound(sorted, 0, n, p.levels[i]!);
    residuals[first + taken[first]!++] = p.residuals[i]!;
  }
  return { sorted, residuals };
}

/** Median of sorted[from .. from + len), len >= 1. */
function medianOfSorted(sorted: Float64Array, from: number, len: number): number {
  const m = from + (len >> 1);
  return len % 2 ? sorted[m]! : (sorted[m - 1]! + sorted[m]!) / 2;
}

/**
 * Least squares of v = a l + b l^2 with a, b >= 0, in relative terms (each point weighted by
 * 1 / v^2), so the quiet bins count as much as the busy ones.
 */
function fitVariance(points: readonly [number, number][]): { a: number; b: number } {
  let s11 = 0;
  let s12 = 0;
  let s22 = 0;
  let t1 = 0;
  let t2 = 0;
  for (const [l, v] of points) {
    const w = 1 / Math.max(v, 1e-9) ** 2;
    s11 += w * l * l;
    s12 += w * l * l * l;
    s22 += w * l ** 4;
    t1 += w * l * v;
    t2 += w * l * l * v;
  }
  const det = s11 * s22 - s12 * s12;
  const a = det > 0 ? (t1 * s22 - t2 * s12) / det : -1;
  const b = det > 0 ? (s11 * t2 - s12 * t1) / det : -1;
  if (a >= 0 && b >= 0) return { a, b };
  // One term alone, whichever fits better.
  const aOnly = { a: Math.max(0, t1 / s11), b: 0 };
  const bOnly = { a: 0, b: Math.max(0, t2 / s22) };
  const err = (m: { a: number; b: number }) =>
    points.reduce((e, [l, v]) => e + ((v - m.a * l - m.b * l * l) / Math.max(v, 1e-9)) ** 2, 0);
  return err(aOnly) <= err(bOnly) ? aOnly : bOnly;
}

/** Noise of each minute around the median of the `levelMinutes` before it: needs no forecast. */
export function fitLevelNoise(demand: ArrayLike<number>, levelMinutes: number): NoiseModel | null {
  return fitNoise(trailingMedians(demand, levelMinutes), demand);
}

/** Standard deviation of a minute's demand around `level`. */
export const noiseSd = (m: NoiseModel, level: number): number =>
  Math.sqrt(Math.max(0, m.a * level + m.b * level * level));

/** The same in a unit k times the model's (requests scaled by k): Var(kX) = k a (k l) + b (k l)^2. */
export const rescaleNoise = (m: NoiseModel, k: number): NoiseModel => ({ ...m, a: m.a * k });

/** Demand to provision for at `level`: the level plus `sigmas` standard deviations of its noise. */
export const noisyDemand = (m: NoiseModel, level: number, sigmas: number): number =>
  level + sigmas * noiseSd(m, level);

/** The load's relative standard deviation at `level` (0 at a level of 0). */
export const relativeNoise = (m: NoiseModel, level: number): number =>
  level > 0 ? noiseSd(m, level) / level : 0;
