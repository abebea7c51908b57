/**
 * The point model in log space: seasonal profile (./seasonal.ts) + a day level and trend that
 * adapt (robust Holt smoothing over the deseasonalized day levels, the trend damped when
 * projected) + the deviation of the last half hour from the model, decaying over the next
 * hours. Fit and predict are pure.
 */

import { blockClass, fitSeasonal, type Seasonal, seasonalAt } from './seasonal.ts';
import { BINS_PER_DAY, DAYS_PER_WEEK } from './series.ts';
import { median, robustScale, theilSen } from './stats.ts';

const P = BINS_PER_DAY;

export interface ModelParams {
  /** Weight of the newest day level in the smoothed level (0..1). */
  levelAlpha: number;
  /** Weight of the newest level change in the trend (0..1). */
  trendBeta: number;
  /** Trend damping per day when projected: day 1 adds b x phi, day 2 b x phi^2 (0.8: 1.44 b by day 2). */
  trendDamping: number;
  /**
   * The last half hour's deviation from the model decays by this factor per five-minute step,
   * when the pseudo-origins cannot choose one (./residuals.ts, chooseDecay).
   */
  deviationDecay: number;
}

/** Defaults, chosen on synthetic series and the NASA trace (docs/forecast.md, "Tuning"). */
export const DEFAULT_PARAMS: ModelParams = {
  levelAlpha: 0.5,
  trendBeta: 0.1,
  trendDamping: 0.8,
  deviationDecay: 0.98,
};

/** A trend beyond 10 % a day (log 0.1) is more likely an incident than growth: it is capped. */
const MAX_TREND_PER_DAY = 0.1;
/** Day-level surprises beyond 3 robust standard deviations enter the level clipped. */
const LEVEL_CLIP_SIGMAS = 3;
/** Bins (30 minutes) whose median deviation from the model is carried into the forecast. */
const DEVIATION_BINS = 6;

export interface Model {
  seasonal: Seasonal;
  /** Smoothed deseasonalized log level of yesterday (the last whole day). */
  level: number;
  /** Log change per day. */
  trend: number;
  /** Log deviation of the last half hour from the model (0 when unknown). */
  deviation: number;
  /** Bins of today (the day the origin falls in) before the origin. */
  elapsed: number;
  params: ModelParams;
}

const deseasonalizedLevels = (fit: Seasonal): Float64Array =>
  fit.levels.map((l, r) => l - (fit.weekly ? fit.weekly[blockClass(fit.days - 1 - r)]! : 0));

const capTrend = (b: number) => Math.min(MAX_TREND_PER_DAY, Math.max(-MAX_TREND_PER_DAY, b));

/**
 * Robust Holt smoothing over day levels, started from the Theil-Sen slope: a launch day enters
 * clipped at 3 robust sigmas, a real shift within days. The recursion is undamped, so a steady
 * trend is tracked without lag; damping applies only when the trend is projected ahead.
 */
function smoothLevel(d: Float64Array, params: ModelParams): { level: number; trend: number } {
  const diffs = d.subarray(1).map((v, i) => v - d[i]!);
  const limit = LEVEL_CLIP_SIGMAS * Math.max(robustScale(diffs) || 0, 0.02);
  let level = Number.NaN;
  let trend = capTrend(theilSen(d));
  for (const y of d) {
    if (!Number.isFinite(y)) continue;
    if (!Number.isFinite(level)) {
      level = y;
      continue;
    }
    const predicted = level + trend;
    const err = Math.min(limit, Math.max(-limit, y - predicted));
    level = predicted + params.levelAlpha * err;
    trend = capTrend(trend + params.trendBeta * err);
  }
  return { level: Number.isFinite(level) ? level : 0, trend };
}

/** Sum of phi^i for i = 1 .. days: how many days of trend a block that many days ahead gets. */
function dampedDays(phi: number, days: number): number {
  let sum = 0;
  let factor = 1;
  for (let i = 0; i < days; i++) {
    factor *= phi;
    sum += factor;
  }
  return sum;
}

/**
 * The model's log value u bins after the start of today (the day the origin falls in): day
 * f = floor(u / 288) ahead gets the level plus f + 1 damped days of trend and its weekday's
 * seasonal part. Negative u is yesterday, the last fitted day, at the fitted level.
 */
function expectedAt(model: Omit<Model, 'deviation'>, u: number): number {
  if (u < 0) return model.level + seasonalAt(model.seasonal, 0, P + u);
  const day = Math.floor(u / P);
  const trend = model.trend * dampedDays(model.params.trendDamping, day + 1);
  return model.level + trend + seasonalAt(model.seasonal, blockClass(-(day + 1)), u % P);
}

/** Log forecast at k steps after the origin, before the deviation term. */
export const baseAt = (model: Omit<Model, 'deviation'>, k: number): number =>
  expectedAt(model, model.elapsed + k);

/**
 * Fits the model to z: whole days of log demand (oldest first), then `elapsed` bins of today
 * up to the origin. Days are calendar days (./forecast.ts, dayStartMinute), so a weekend
 * starts where a day does, not somewhere inside a block.
 */
export function fitModel(z: Float64Array, elapsed: number, params: ModelParams = DEFAULT_PARAMS): Model {
  const whole = z.length - elapsed;
  const seasonal = fitSeasonal(z.subarray(0, whole));
  const { level, trend } = smoothLevel(deseasonalizedLevels(seasonal), params);
  const partial = { seasonal, level, trend, elapsed, params };
  const recent = new Float64Array(DEVIATION_BINS);
  for (let i = 0; i < DEVIATION_BINS; i++) {
    const t = z.length - DEVIATION_BINS + i;
    recent[i] = z[t]! - expectedAt(partial, t - whole);
  }
  const deviation = median(recent);
  return { ...partial, deviation: Number.isFinite(deviation) ? deviation : 0 };
}

/** Log point forecast k five-minute steps after the origin (k = 0 is the first step). */
export function predictLog(model: Model, k: number, decay = model.params.deviationDecay): number {
  return baseAt(model, k) + model.deviation * decay ** (k + 1);
}

/** 'weekly' with a week of history or more (day-of-week levels and shapes), else 'daily'. */
export const modelKind = (model: Model): 'daily' | 'weekly' =>
  model.seasonal.days < DAYS_PER_WEEK ? 'daily' : 'weekly';
