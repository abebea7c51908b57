/**
 * The point model in log space: seasonal profile (./seasonal.ts) + a day level and trend that
 * adapt (robust Holt smoothing with level steps, ./level.ts) + a level correction from the
 * last hours (./correction.ts, applied by the caller). Fit and predict are pure; the fits of whole
 * days are kept across forecasts, found again by their exact bins (sharedDaysFit, at the end).
 */
import { dampedDays, type TrendAt } from './correction.ts';
import { findStep, type LevelParams, smoothLevel } from './level.ts';
import {
  blockClass,
  fitSeasonal,
  type Seasonal,
  seasonalAt,
  stepAdjusted,
  stepRobustWeekly,
  withStep,
} from './seasonal.ts';
import { BINS_PER_DAY, DAYS_PER_WEEK } from './series.ts';

const P = BINS_PER_DAY;

export interface ModelParams extends LevelParams {
  /**
   * Trend damping per day when projected: day 1 adds b x phi, day 2 b x (phi + phi^2)
   * (0.8: 1.44 b by day 2).
   */
  trendDamping: number;
  /**
   * Per-step decay of the last half hour's deviation when no pseudo-origin can choose one
   * (under about 1.5 days of history; ./correction.ts).
   */
  deviationDecay: number;
}

/**
 * Defaults, chosen on synthetic series and the NASA trace (docs/forecast.md, "Tuning"). The
 * damping is the default the pseudo-origins weigh against an undamped trend (./correction.ts):
 * with that choice, 0.8 and 0.9 scored the same (growth series p90 coverage 0.865 against
 * 0.867, NASA p90 pinball 2.495 against 2.496).
 */
export const DEFAULT_PARAMS: ModelParams = {
  levelAlpha: 0.5,
  trendBeta: 0.1,
  trendDamping: 0.8,
  deviationDecay: 0.98,
};

/**
 * Weights on the day-of-week level effects the pseudo-origins choose from (./residuals.ts):
 * with two or three weeks of history each weekday's effect rests on two or three days, and a
 * holiday or a launch in one of them moves it (NASA's July 4 and launch week). The first is
 * the default; the other must do better by a margin. On NASA with 14 days, p50 / p90 pinball
 * went from 5.53 / 2.71 to 5.16 / 2.51; the clean synthetic series kept full weight.
 */
export const WEEKLY_WEIGHTS = [1, 0.5] as const;

export interface Model {
  seasonal: Seasonal;
  /** Weight on the day-of-week level effects (WEEKLY_WEIGHTS). */
  weeklyWeight: number;
  /** Smoothed deseasonalized log level of yesterday (the last whole day). */
  level: number;
  /** Log change per day. */
  trend: number;
  /** Bins of today (the day the origin falls in) before the origin. */
  elapsed: number;
  params: ModelParams;
  /**
   * Log deviations of the demand from the model over yesterday and today up to the origin
   * (P + elapsed bins, oldest first; NaN where data is missing): what the level corrections
   * read (./correction.ts).
   */
  devs: Float64Array;
}

type Core = Omit<Model, 'devs'>;

const deseasonalizedLevels = (fit: Seasonal, weight: number): Float64Array =>
  stepAdjusted(fit.levels, fit.step).map(
    (l, r) => l - (fit.weekly ? weight * fit.weekly[blockClass(fit.days - 1 - r)]! : 0),
  );

/**
 * The model's log value u bins after the start of today (the day the origin falls in): day
 * f = floor(u / 288) ahead gets the level plus f + 1 damped days of trend and its weekday's
 * seasonal part. Negative u is yesterday, the last fitted day, at the fitted level.
 */
export function expectedAt(model: Core, u: number): number {
  const w = model.weeklyWeight;
  if (u < 0) return model.level + seasonalAt(model.seasonal, 0, P + u, w);
  const day = Math.floor(u / P);
  const trend = model.trend * dampedDays(model.params.trendDamping, day + 1);
  return model.level + trend + seasonalAt(model.seasonal, blockClass(-(day + 1)), u % P, w);
}

/** Log forecast at k steps after the origin, before the level correction. */
export const baseAt = (model: Core, k: number): number => expectedAt(model, model.elapsed + k);

/**
 * Level and trend for one weight on the weekly effects. A step found on the first pass is
 * taken out of the history (./seasonal.ts withStep) and the smoothing run again over the
 * adjusted levels, so its Theil-Sen start sees a trend, not the step.
 */
function levelModel(
  fit: Seasonal,
  weight: number,
  params: ModelParams,
): Pick<Core, 'seasonal' | 'level' | 'trend'> {
  const { level, trend } = smoothLevel(deseasonalizedLevels(fit, weight), params);
  return { seasonal: fit, level, trend };
}

/**
 * The fit with its level step, when the day levels took one: looked for under day-of-week
 * effects that keep a step sharp (./seasonal.ts stepRobustWeekly), then the weekly effects are
 * taken again across it (withStep). Shared by every weekly weight: a step is in the data.
 */
function withLevelStep(fit: Seasonal, params: ModelParams): Seasonal {
  const d = deseasonalizedLevels({ ...fit, weekly: stepRobustWeekly(fit.levels) }, 1);
  const step = findStep(d, params);
  return step ? withStep(fit, step) : fit;
}

/** The fit of some whole days and its level model at each weekly weight: all a model needs but its devs. */
export interface DaysFit {
  weights: readonly number[];
  levels: Pick<Core, 'seasonal' | 'level' | 'trend'>[];
}

/** The seasonal decomposition of whole days (oldest first) with its level step and level models. */
export function fitDays(
  whole: Float64Array,
  params: ModelParams = DEFAULT_PARAMS,
  weights: readonly number[] = WEEKLY_WEIGHTS,
): DaysFit {
  const fit = withLevelStep(fitSeasonal(whole), params);
  return { weights, levels: weights.map((w) => levelModel(fit, w, params)) };
}

/**
 * Fits the model to z, once per weekly weight: whole days of log demand (oldest first), then
 * `elapsed` bins of today up to the origin. The seasonal decomposition, most of the cost, is
 * shared; `days`, when given, is the fit of z's whole days (fitDays) at the same params.
 * Days are calendar days (./forecast.ts, dayStartMinute), so a weekend starts where a day
 * does, not somewhere inside a block.
 */
export function fitModels(
  z: Float64Array,
  elapsed: number,
  params: ModelParams = DEFAULT_PARAMS,
  weights: readonly number[] = WEEKLY_WEIGHTS,
  days: DaysFit = fitDays(z.subarray(0, z.length - elapsed), params, weights),
): Model[] {
  const whole = z.length - elapsed;
  return days.levels.map((lm, v) => {
    const core: Core = { ...lm, weeklyWeight: days.weights[v]!, elapsed, params };
    const devs = new Float64Array(P + elapsed).fill(Number.NaN);
    for (let u = -Math.min(P, whole); u < elapsed; u++) devs[P + u] = z[whole + u]! - expectedAt(core, u);
    return { ...core, devs };
  });
}

/** The model with the weekly effects at full weight. */
export const fitModel = (z: Float64Array, elapsed: number, params: ModelParams = DEFAULT_PARAMS): Model =>
  fitModels(z, elapsed, params, [1])[0]!;

/**
 * The day-of-week level effect (log, at the model's weight) of bin t of the series the model
 * was fitted to: t counts from the first fitted day, and runs on through today and after.
 */
export function dayEffectAt(model: Model, t: number): number {
  const { weekly, days } = model.seasonal;
  if (!weekly) return 0;
  return model.weeklyWeight * weekly[blockClass(days - 1 - Math.floor(t / P))]!;
}

/** The model's trend as the corrections read it, at a cut `start` bins into the day. */
export const trendAt = (model: Model, start: number): TrendAt => ({
  trend: model.trend,
  damping: model.params.trendDamping,
  start,
});

/** 'weekly' with a week of history or more (day-of-week levels and shapes), else 'daily'. */
export const modelKind = (model: Model): 'daily' | 'weekly' =>
  model.seasonal.days < DAYS_PER_WEEK ? 'daily' : 'weekly';

/**
 * The seasonal fits of whole days (fitDays above), made once and reused: within a forecast,
 * by the real fit and the pseudo-origins whose days end at the same midnight (./residuals.ts);
 * across forecasts, by every refit of the same day. A forecast's whole days and their log
 * offset are the same at each refit of a day when its history starts at a day's start
 * (./series.ts historyStart), so the backtest's look-ahead, refitting every few hours on 14 days,
 * fits those days once a day instead of at every refit.
 *
 * Pure in effect: a fit is looked up by the exact bins it was made from (every value, NaN and
 * the sign of zero included) and the same params object, so a forecast gives the same result
 * with the memo as without it (tests/forecast/day-fits.test.ts). The memo keeps the last
 * DAY_FITS_KEPT fits: a day's three (its own days, and the one and two before, which the
 * pseudo-origins read) for several series forecast in turn.
 */
export const DAY_FITS_KEPT = 12;

interface Kept {
  bins: Float64Array;
  params: ModelParams;
  fit: DaysFit;
}

/** Most recently used first. */
const kept: Kept[] = [];
/** Fits made and fits found kept, since the module loaded or the last clearDayFits. */
const counts = { made: 0, reused: 0 };

const sameBins = (a: Float64Array, b: Float64Array): boolean => {
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (!Object.is(a[i], b[i])) return false;
  return true;
};

/** The fit of these whole days (log bins, oldest first) at params: a kept one when the bins are the same. */
export function sharedDaysFit(bins: Float64Array, params: ModelParams = DEFAULT_PARAMS): DaysFit {
  for (let i = 0; i < kept.length; i++) {
    const k = kept[i]!;
    if (k.params !== params || !sameBins(k.bins, bins)) continue;
    if (i > 0) {
      kept.splice(i, 1);
      kept.unshift(k);
    }
    counts.reused++;
    return k.fit;
  }
  const fit = fitDays(bins, params);
  counts.made++;
  kept.unshift({ bins: bins.slice(), params, fit });
  if (kept.length > DAY_FITS_KEPT) kept.pop();
  return fit;
}

/** Forgets every kept fit and zeroes the counts (tests and benchmarks). */
export function clearDayFits(): void {
  kept.length = 0;
  counts.made = 0;
  counts.reused = 0;
}

/** How many day fits were made and how many were found kept (`npm run bench -- forecast` prints them). */
export const dayFitCounts = (): { made: number; reused: number } => ({ ...counts });

/**
 * The fits of z's first whole days, by their length in bins: the real fit and the pseudo-origins'
 * refits whose days end at the same midnight read the same bins, z[0, whole), so they share one,
 * and a later forecast of the same day finds them kept. Pure: a fit depends on those bins and
 * the params only.
 */
export function daysFits(z: Float64Array, params: ModelParams = DEFAULT_PARAMS): (whole: number) => DaysFit {
  const fits = new Map<number, DaysFit>();
  return (whole) => {
    let f = fits.get(whole);
    if (!f) {
      f = sharedDaysFit(z.subarray(0, whole), params);
      fits.set(whole, f);
    }
    return f;
  };
}
