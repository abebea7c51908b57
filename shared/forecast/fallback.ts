/**
 * When the seasonal model is wrong, a simpler forecaster may not be. The seasonal model and two
 * simple candidates forecast from each pseudo-origin of the last 24 h (./residuals.ts: the
 * refits 8, 16 and 24 h back and today's hourly ones) what the history then shows; their mean
 * pinball losses at p50 and p90 over the bins of those 24 h (requests per minute, as the
 * evaluation scores) decide, and a candidate replaces the seasonal model when both its losses
 * are lower by FALLBACK_MARGIN. Candidates:
 *
 * - naive-day: the same five minutes yesterday (tomorrow repeats yesterday too), moved by the
 *   day-of-week difference, with the quantiles of its own log errors over the last week: right
 *   after a pattern changes for good, yesterday already shows the new one.
 * - recent-level: the median of the last hour, held flat, with the quantiles of its own errors
 *   from the same pseudo-origins: when the daily cycle itself is gone (a service drained to a
 *   floor), no seasonal shape beats a flat line.
 *
 * Pure: every candidate and every score reads bins before the origin only
 * (tests/forecast/fallback.test.ts).
 */
import { BINS_PER_DAY, DAYS_PER_WEEK, fromLog } from './series.ts';
import { compactFinite, quantileInPlace } from './sort.ts';
import { quantileOfSorted, sortedFinite } from './stats.ts';

const P = BINS_PER_DAY;
export type FallbackKind = 'recent-level' | 'naive-day';
/** The last 24 h are the scoring window. */
export const SCORE_BINS = P;
/**
 * A candidate must beat the seasonal model's p50 and p90 losses by this share: 24 h of evidence
 * is noisy, and a switch is a bet on the next 48 h. With "lower p90 by 10 %, lower p50" it
 * fired at 7 of 75 NASA origins with 7 days of history and lost at 6 of them (p90 pinball 4.62
 * against 4.21 with no fallback); on Twitter with 14 days its p50 was 409 against 402. After a
 * real break the margin is wide: a cycle that collapsed to a flat level a day ago scores 4.5
 * against 0.17 at p90.
 */
export const FALLBACK_MARGIN = 0.2;
/** Bins (1 h) whose median is the recent level. */
const LEVEL_BINS = 12;
/** Days of naive errors its quantiles come from. */
const NAIVE_ERROR_DAYS = DAYS_PER_WEEK;
/** Horizon bands of the recent level's errors (upper edges, bins): 1 h, 6 h, 24 h, beyond. */
const LEVEL_BANDS = [12, 72, P, Number.POSITIVE_INFINITY];

/** A forecaster's log p50, p90 and any quantile, k steps after a cut (index into z). */
export interface LogForecaster {
  quantile(cut: number, k: number, q: number): number;
}

/** Source bin of seasonal naive for step k after cut: yesterday, also for tomorrow. */
const naiveSource = (cut: number, k: number): number => cut + k - P * (Math.floor(k / P) + 1);

/** The last bin at or before t, a whole number of days back, with a value (-1 when none). */
function lastSameSlot(z: Float64Array, t: number): number {
  for (let s = t; s >= 0; s -= P) if (Number.isFinite(z[s]!)) return s;
  return -1;
}

/**
 * Seasonal naive yesterday, moved by the day-of-week difference between the day forecast and
 * the day repeated (dayEffect: the seasonal fit's log effect of a bin, 0 without a week of
 * history), its quantiles from its one-day and two-day log errors over the last week. Plain
 * yesterday repeats a Friday for the Saturday: on NASA with 7 days of history it replaced the
 * seasonal model before four weekend days and lost 60 % more at p90 than the model would have.
 */
export function naiveDay(z: Float64Array, dayEffect: (t: number) => number = () => 0): LogForecaster {
  const n = z.length;
  const moved = (t: number, s: number) => z[s]! + dayEffect(t) - dayEffect(s);
  const errors = [1, 2].map((lag) => {
    const from = Math.max(lag * P, n - NAIVE_ERROR_DAYS * P);
    const out = new Float64Array(Math.max(0, n - from));
    for (let t = from; t < n; t++) out[t - from] = z[t]! - moved(t, t - lag * P);
    return out.subarray(0, compactFinite(out, out.length));
  });
  // Each lag's quantiles by selection, each once (recentLoss asks for p50 and p90 at every bin).
  const quantiles = errors.map(() => new Map<number, number>());
  const errorQuantile = (lag: number, q: number): number => {
    const e = errors[lag]!;
    if (e.length === 0) return 0;
    let v = quantiles[lag]!.get(q);
    if (v === undefined) {
      v = quantileInPlace(e, e.length, q);
      quantiles[lag]!.set(q, v);
    }
    return v;
  };
  return {
    quantile: (cut, k, q) => {
      const source = lastSameSlot(z, naiveSource(cut, k));
      if (source < 0) return Number.NaN;
      return moved(cut + k, source) + errorQuantile(k < P ? 0 : 1, q);
    },
  };
}

const levelAt = (z: Float64Array, cut: number): number => {
  const v = sortedFinite(z.subarray(Math.max(0, cut - LEVEL_BINS), cut));
  return v.length > 0 ? quantileOfSorted(v, 0.5) : Number.NaN;
};
const levelBand = (k: number): number => LEVEL_BANDS.findIndex((edge) => k < edge);

/**
 * The last hour's median held flat; quantiles of its errors from the cuts, per horizon band,
 * centred (see below). The cuts are the scoring ones: errors from before a break would give
 * the flat line the old day's cycle as its band.
 */
export function recentLevel(z: Float64Array, cuts: readonly number[], horizonBins: number): LogForecaster {
  const raw: number[][] = LEVEL_BANDS.map(() => []);
  for (const cut of cuts) {
    const level = levelAt(z, cut);
    for (let k = 0; k < Math.min(horizonBins, z.length - cut); k++)
      raw[levelBand(k)]!.push(z[cut + k]! - level);
  }
  // A band without errors (a horizon no cut reached) borrows the nearest one before it.
  const sorted = raw.map((b) => sortedFinite(b));
  for (let b = 1; b < sorted.length; b++) if (sorted[b]!.length === 0) sorted[b] = sorted[b - 1]!;
  // Centred on their median: the level is the last hour's, not last hour's plus how far the
  // days before rose (after a doubling the errors of the cuts before it lean +0.69, and
  // adding that again would forecast four times the old level).
  const centred = sorted.map((e) => (e.length > 0 ? e.map((v) => v - quantileOfSorted(e, 0.5)) : e));
  const levels = new Map<number, number>();
  const level = (cut: number): number => {
    if (!levels.has(cut)) levels.set(cut, levelAt(z, cut));
    return levels.get(cut)!;
  };
  return {
    quantile: (cut, k, q) => {
      const e = centred[levelBand(k)]!;
      return level(cut) + (e.length > 0 ? quantileOfSorted(e, q) : 0);
    },
  };
}

export interface RecentLoss {
  p50: number;
  p90: number;
  /** Bins scored. */
  n: number;
}

/**
 * Mean pinball losses (requests per minute) over the last SCORE_BINS bins before the origin,
 * of the forecasts made at each cut for the bins after it: a cut 8 h back is scored on 8 h of
 * horizons, one 48 h back on its horizons from 24 h to 48 h.
 */
export function recentLoss(
  f: LogForecaster,
  z: Float64Array,
  cuts: readonly number[],
  horizonBins: number,
  c: number,
): RecentLoss {
  const from = z.length - SCORE_BINS;
  let [p50, p90, n] = [0, 0, 0];
  for (const cut of cuts) {
    for (let t = Math.max(cut, from); t < Math.min(z.length, cut + horizonBins); t++) {
      if (!Number.isFinite(z[t]!)) continue;
      const y = fromLog(z[t]!, c);
      const f50 = fromLog(f.quantile(cut, t - cut, 0.5), c);
      const f90 = fromLog(f.quantile(cut, t - cut, 0.9), c);
      if (!Number.isFinite(f50) || !Number.isFinite(f90)) continue;
      p50 += y >= f50 ? 0.5 * (y - f50) : 0.5 * (f50 - y);
      p90 += y >= f90 ? 0.9 * (y - f90) : 0.1 * (f90 - y);
      n++;
    }
  }
  return n === 0 ? { p50: Number.NaN, p90: Number.NaN, n } : { p50: p50 / n, p90: p90 / n, n };
}

export interface FallbackChoice {
  to: FallbackKind;
  forecaster: LogForecaster;
  seasonal: RecentLoss;
  fallback: RecentLoss;
}

/**
 * The candidate that replaces the seasonal model, or null: the lowest recent p90 loss among
 * those whose p90 loss is lower than the seasonal model's by FALLBACK_MARGIN and whose p50
 * loss is lower too. All are scored from the same cuts on the same bins: the cuts inside the
 * scoring window. Cuts before it would mostly test which forecaster guessed an event it could
 * not know of: after a doubling, the seasonal model's forecasts from before it lose most, and
 * a flat line whose wide band was built on the daily cycle won, then forecast the night's
 * level for two days (p50 loss 327 against 15 at that origin of the doubling series).
 */
export function chooseFallback(
  seasonal: LogForecaster,
  z: Float64Array,
  cuts: readonly number[],
  horizonBins: number,
  c: number,
  dayEffect: (t: number) => number = () => 0,
): FallbackChoice | null {
  const scoring = cuts.filter((cut) => cut >= z.length - SCORE_BINS);
  const base = recentLoss(seasonal, z, scoring, horizonBins, c);
  if (base.n === 0) return null;
  const candidates: Record<FallbackKind, LogForecaster> = {
    'naive-day': naiveDay(z, dayEffect),
    'recent-level': recentLevel(z, scoring, horizonBins),
  };
  let best: FallbackChoice | null = null;
  for (const [to, forecaster] of Object.entries(candidates) as [FallbackKind, LogForecaster][]) {
    const loss = recentLoss(forecaster, z, scoring, horizonBins, c);
    const better = loss.p90 < (1 - FALLBACK_MARGIN) * base.p90 && loss.p50 < (1 - FALLBACK_MARGIN) * base.p50;
    if (better && (!best || loss.p90 < best.fallback.p90))
      best = { to, forecaster, seasonal: base, fallback: loss };
  }
  return best;
}

const NAMES: Record<FallbackKind, string> = {
  'recent-level': 'the recent level held flat',
  'naive-day': 'yesterday repeated (seasonal naive, moved by the day of week)',
};
const SHORT: Record<FallbackKind, string> = {
  'recent-level': 'the recent level',
  'naive-day': 'yesterday',
};

/** "the seasonal model's p90 loss over the last 24 h was 31.2 against 18.4 for ...: using ...". */
export function fallbackMessage(choice: FallbackChoice): string {
  const fmt = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(3));
  return `the seasonal model's p90 loss over the last 24 h was ${fmt(choice.seasonal.p90)} against ${fmt(choice.fallback.p90)} for ${NAMES[choice.to]} (p50 ${fmt(choice.seasonal.p50)} against ${fmt(choice.fallback.p50)}): using ${SHORT[choice.to]}`;
}
