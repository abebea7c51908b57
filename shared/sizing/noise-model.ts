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

import { orderStatistics } from '../forecast/sort.ts';
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
 * Typed arrays throughout and no sort (the fit runs every hour of a backtest over two days of
 * minutes, 744 times on NASA July): the pairs fall into bins by the rank of their level, ties
 * in their order (as the stable sort of pairs did), and the ranks that matter (each bin's
 * first level and its middle one or two) are selections (shared/forecast/sort.ts), not a
 * sort; each bin's two medians are selections in one scratch buffer. Bit for bit the fit
 * before: no residual here is -0 (levels are above 0, y - l is +0 when equal), so a median's
 * value does not depend on the order of the bin's values nor on how it is found (for demand
 * under 1e307 in size: past that, y - l overflows and the old sort's order was undefined).
 * Pinned by tests/forecast/hot-paths.test.ts.
 */
export function fitNoise(levels: ArrayLike<number>, actuals: ArrayLike<number>): NoiseModel | null {
  const usable = usablePairs(levels, actuals);
  const n = usable.count;
  const bins = Math.min(MAX_BINS, Math.floor(n / MIN_PER_BIN));
  if (bins < 2) return null;
  const per = Math.floor(n / bins);
  const { residuals, medians } = byLevel(usable, bins, per);
  const scratch = new Float64Array(n);
  const points: [number, number][] = [];
  for (let b = 0; b < bins; b++) {
    const from = b * per;
    const len = (b === bins - 1 ? n : (b + 1) * per) - from;
    for (let j = 0; j < len; j++) scratch[j] = residuals[from + j]!;
    const centre = medianInPlace(scratch, len);
    for (let j = 0; j < len; j++) scratch[j] = Math.abs(scratch[j]! - centre);
    const sd = MAD_TO_SD * medianInPlace(scratch, len);
    points.push([medians[b]!, sd * sd]);
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
 * The levels' ranks a fit reads, ascending: each bin's first (b x per, b >= 1) and its median's
 * one or two (as the median of sorted levels takes them).
 */
function ranksOf(n: number, bins: number, per: number): Int32Array {
  const ranks: number[] = [];
  for (let b = 0; b < bins; b++) {
    const from = b * per;
    const len = (b === bins - 1 ? n : (b + 1) * per) - from;
    const m = from + (len >> 1);
    ranks.push(from, m);
    if (len % 2 === 0) ranks.push(m - 1);
  }
  return Int32Array.from(new Set(ranks)).sort();
}

/**
 * The residuals by bin (bin b at b x per: the pairs whose level ranks in [b x per, (b + 1) x
 * per), the last bin to the end; equal levels ranked in their order), and each bin's median
 * level. A pair's rank is (levels below its level) + (earlier pairs at its level), so against
 * bin b's first level v: a lower level is before it, a higher one after, an equal one after
 * when (levels below v) + (earlier pairs at v) reaches b x per.
 */
function byLevel(p: Pairs, bins: number, per: number): { residuals: Float64Array; medians: Float64Array } {
  const n = p.count;
  const ranks = ranksOf(n, bins, per);
  const values = new Float64Array(ranks.length);
  orderStatistics(p.levels.slice(0, n), n, ranks, values);
  const at = (k: number) => values[ranks.indexOf(k)]!;
  const first = Float64Array.from({ length: bins }, (_, b) => at(b * per));
  // Counts and bins without an early exit: the comparisons are coin flips a branch would miss.
  const below = new Int32Array(bins);
  const levels = p.levels;
  for (let i = 0; i < n; i++) {
    const l = levels[i]!;
    for (let b = 1; b < bins; b++) below[b]! += l < first[b]! ? 1 : 0;
  }
  const seen = new Int32Array(bins);
  const filled = Int32Array.from({ length: bins }, (_, b) => b * per);
  const residuals = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const l = levels[i]!;
    let bin = 0;
    for (let b = 1; b < bins; b++) bin += l > first[b]! ? 1 : 0;
    for (let b = bin + 1; b < bins && l === first[b]!; b++) if (below[b]! + seen[b]!++ >= b * per) bin = b;
    residuals[filled[bin]!++] = p.residuals[i]!;
  }
  const medians = Float64Array.from({ length: bins }, (_, b) => {
    const len = (b === bins - 1 ? n : (b + 1) * per) - b * per;
    const m = b * per + (len >> 1);
    return len % 2 ? at(m) : (at(m - 1) + at(m)) / 2;
  });
  return { residuals, medians };
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

/**
 * Noise of each minute around the median of the `levelMinutes` before it: needs no forecast.
 * `levels`, when the caller kept them as minutes arrived (the backtest's look-ahead), are
 * demand's trailingMedians at levelMinutes, and are not computed again.
 */
export function fitLevelNoise(
  demand: ArrayLike<number>,
  levelMinutes: number,
  levels: ArrayLike<number> = trailingMedians(demand, levelMinutes),
): NoiseModel | null {
  return fitNoise(levels, demand);
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
