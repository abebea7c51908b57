/**
 * The day level and its trend: robust Holt smoothing over the deseasonalized day levels, that
 * tells a one-day surprise (a launch day: clipped, so it cannot drag the level) from a new
 * level that came to stay (two days in a row beyond the clip on the same side: the level
 * moves there at once, and the trend stays what it was before). Pure.
 *
 * Without the step rule a collapse to 40 % (log -0.92) entered 0.15 a day through the clip,
 * and fed the trend 0.1 x 0.15 a day, so six days later the level was still 0.3 too high and
 * the trend at -0.08 a day carried it 0.5 too low by the next week (collapse series,
 * tests/forecast/stress.ts).
 */
import { median, robustScale, theilSen } from './stats.ts';

/** A trend beyond 10 % a day (log 0.1) is more likely an incident than growth: it is capped. */
export const MAX_TREND_PER_DAY = 0.1;
/** Day-level surprises beyond 3 robust standard deviations of the day-over-day change are clipped. */
const CLIP_SIGMAS = 3;
/** The smallest robust standard deviation of day-over-day changes assumed (log 0.02: 2 %). */
const MIN_DAY_SCALE = 0.02;
/**
 * A step must be at least twice the clip: under a 3 %-a-day growth with day-to-day noise, two
 * days beyond the clip in a row happen by chance, and a 0.15 "step" taken from them cost the
 * growth series 2 points of p90 coverage.
 */
const STEP_LIMITS = 2;

export interface LevelParams {
  /** Weight of the newest day level in the smoothed level (0..1). */
  levelAlpha: number;
  /** Weight of the newest level change in the trend (0..1). */
  trendBeta: number;
}

export interface LevelStep {
  /** Block index (oldest first) of the first day at the new level. */
  at: number;
  /** Log size of the step: the first day's surprise (-0.92: down to 40 %). */
  size: number;
}

export interface Smoothed {
  /** Smoothed log level of the last day. */
  level: number;
  /** Log change per day. */
  trend: number;
  /** The last step taken, or null. */
  step: LevelStep | null;
}

const capTrend = (b: number) => Math.min(MAX_TREND_PER_DAY, Math.max(-MAX_TREND_PER_DAY, b));

/** The clip: 3 robust standard deviations of the day-over-day changes, at least 0.06. */
export function surpriseLimit(d: ArrayLike<number>): number {
  const diffs: number[] = [];
  for (let r = 1; r < d.length; r++) {
    const x = d[r]! - d[r - 1]!;
    if (Number.isFinite(x)) diffs.push(x);
  }
  return CLIP_SIGMAS * Math.max(robustScale(diffs) || 0, MIN_DAY_SCALE);
}

/** Median day-over-day change: a trend, not moved by one step or by a weekend left in. */
function typicalChange(d: ArrayLike<number>): number {
  const diffs: number[] = [];
  for (let r = 1; r < d.length; r++) {
    const x = d[r]! - d[r - 1]!;
    if (Number.isFinite(x)) diffs.push(x);
  }
  return diffs.length === 0 ? 0 : median(diffs);
}

/** The recursion: Holt smoothing of d from a starting trend, taking level steps when asked. */
function holt(d: Float64Array, params: LevelParams, start: number, steps: boolean): Smoothed {
  const limit = surpriseLimit(d);
  let level = Number.NaN;
  let trend = capTrend(start);
  let pending: { at: number; surprise: number; trend: number } | null = null;
  let step: LevelStep | null = null;
  for (let r = 0; r < d.length; r++) {
    const y = d[r]!;
    if (!Number.isFinite(y)) continue;
    if (!Number.isFinite(level)) {
      level = y;
      continue;
    }
    const predicted = level + trend;
    const surprise = y - predicted;
    if (steps && Math.abs(surprise) > limit) {
      const size =
        pending && Math.sign(pending.surprise) === Math.sign(surprise) ? stepSize(d, pending.at) : 0;
      if (pending && Math.abs(size) > STEP_LIMITS * limit) {
        step = { at: pending.at, size };
        [level, trend, pending] = [y, pending.trend, null];
        continue;
      }
      pending = { at: r, surprise, trend };
    } else pending = null;
    const err = Math.min(limit, Math.max(-limit, surprise));
    level = predicted + params.levelAlpha * err;
    trend = capTrend(trend + params.trendBeta * err);
  }
  return { level: Number.isFinite(level) ? level : 0, trend, step };
}

/**
 * Size of a step at block `at`: the median of the days from it on less the median of the
 * three before. Worked example: 5.30 5.28 5.31 | 4.40 4.38 4.41 gives 4.40 - 5.30 = -0.90.
 */
export function stepSize(d: ArrayLike<number>, at: number): number {
  const after: number[] = [];
  const before: number[] = [];
  for (let r = at; r < d.length; r++) if (Number.isFinite(d[r]!)) after.push(d[r]!);
  for (let r = Math.max(0, at - 3); r < at; r++) if (Number.isFinite(d[r]!)) before.push(d[r]!);
  return after.length === 0 || before.length === 0 ? 0 : median(after) - median(before);
}

/**
 * Holt smoothing of d (deseasonalized day levels, oldest first), started from the Theil-Sen
 * slope. The recursion is undamped, so a steady trend is tracked without lag; damping applies
 * only when the trend is projected (./model.ts). Run it on levels a step was taken out of
 * (./seasonal.ts withStep): Theil-Sen reads a step halfway through 14 days as a trend (a
 * collapse to 40 %: -0.1 a day, the cap).
 */
export const smoothLevel = (d: Float64Array, params: LevelParams): Smoothed =>
  holt(d, params, theilSen(d), false);

/**
 * The most recent level step in d, or null: two days in a row beyond the clip on the same side
 * (a launch day is one), of a size (./stepSize) over twice the clip. Looked for by a pass
 * started from the median day-over-day change, which one step does not move.
 */
export const findStep = (d: Float64Array, params: LevelParams): LevelStep | null =>
  holt(d, params, typicalChange(d), true).step;
