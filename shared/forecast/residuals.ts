/**
 * Out-of-sample errors: the forecaster is refitted at pseudo-origins inside the history (every
 * 8 h, up to 2 days back), and the real fit, which saw no bin of today, forecasts from every
 * hour of today; each forecast is compared with what happened next. Those errors choose the
 * level correction (./correction.ts) and the weight on the weekly effects, and the refits'
 * errors, pooled by horizon band, make the band (./band.ts). Log errors are relative errors,
 * so the band scales with the level: a 10 % error at the peak and at night alike.
 */
import type { Errors } from './band.ts';
import { blended, chooseBlend, type PseudoForecast, seasonalAverage } from './blend.ts';
import {
  type Correction,
  correctionAt,
  corrections,
  dampingShift,
  termsAt,
  WINDOW_CANDIDATES,
} from './correction.ts';
import {
  baseAt,
  type DaysFit,
  daysFits,
  expectedAt,
  fitModels,
  type Model,
  type ModelParams,
  modelKind,
  trendAt,
  WEEKLY_WEIGHTS,
} from './model.ts';
import { BINS_PER_DAY, DAYS_PER_WEEK } from './series.ts';

const P = BINS_PER_DAY;
/**
 * Pseudo-origins every 8 h (96 bins), at most 6 of them (2 days back): close enough to the
 * origin that their fits have nearly the history the real one has (further back, fits on
 * fewer days are worse and the band too wide: NASA's p90 pinball went from 2.71 to 2.90 with
 * 12 origins), and far enough to see 48 h ahead.
 */
const PSEUDO_SPACING_BINS = 96;
const MAX_PSEUDO_ORIGINS = 6;
/** Pseudo-origins inside today, every hour. */
const TODAY_SPACING_BINS = 12;
/** Horizon bands (in bins, upper edges): 1 h, 6 h, 24 h, then the rest. */
const BAND_EDGES = [12, 72, P, Number.POSITIVE_INFINITY];
/** A band with fewer errors than this borrows its neighbours' (p99 of 100 samples is already rough). */
const MIN_BAND_SAMPLES = 200;
/**
 * Half-weight weekly effects replace full ones only when their mean absolute error is 5 %
 * lower: on the clean synthetic series a plain "lower" picked them at times by chance, and
 * the p50 loss rose from 3.34 to 3.66 (docs/forecast.md, "Tuning").
 */
const WEEKLY_MARGIN = 0.05;

export const bandIndex = (k: number): number =>
  k < BAND_EDGES[0]! ? 0 : k < BAND_EDGES[1]! ? 1 : k < P ? 2 : 3;

/**
 * The least history a pseudo-origin's fit may have: a day, or a week when the real fit has a
 * week. A daily-only fit's errors on a weekly series (a Saturday forecast from Friday's
 * shape) would make the band as wide as the weekly cycle: with 7 days of history on a series
 * with 40 % quieter weekends, p90 pinball was 36 % worse than seasonal naive.
 */
const minPseudoBins = (wholeBins: number): number => (wholeBins >= DAYS_PER_WEEK * P ? DAYS_PER_WEEK * P : P);

const forecastOf = (model: Model, cut: number, bins: number): PseudoForecast => {
  const base = new Float64Array(bins);
  for (let k = 0; k < bins; k++) base[k] = baseAt(model, k);
  return { cut, base, terms: termsAt(model.devs, model.devs.length, trendAt(model, model.elapsed)) };
};

/**
 * The refits' forecasts, one list per weekly weight (each fit serves every weight). A refit's
 * days always start at z's first bin (its cut less its bins of today is a midnight), so refits
 * whose days end at the same midnight share one fit of those days (`fits`, ./model.ts daysFits).
 */
function pseudoForecasts(
  z: Float64Array,
  elapsed: number,
  horizonBins: number,
  params: ModelParams,
  fits: (whole: number) => DaysFit,
) {
  const out: PseudoForecast[][] = [];
  const minWhole = minPseudoBins(z.length - elapsed);
  for (let i = 1; i <= MAX_PSEUDO_ORIGINS; i++) {
    const cut = z.length - i * PSEUDO_SPACING_BINS;
    const today = (((elapsed - i * PSEUDO_SPACING_BINS) % P) + P) % P;
    const whole = Math.floor((cut - today) / P) * P;
    if (whole < minWhole) break;
    const start = cut - today - whole;
    const days = start === 0 ? fits(whole) : undefined;
    const models = fitModels(z.subarray(start, cut), today, params, WEEKLY_WEIGHTS, days);
    models.forEach((m, v) => {
      out[v] ??= [];
      out[v].push(forecastOf(m, cut, Math.min(horizonBins, z.length - cut)));
    });
  }
  return out;
}

/**
 * Pseudo-origins every hour of today, forecast by the real fit: it saw no bin of today (its
 * days end at yesterday), so its errors there are out of sample, and they are the freshest
 * there are. A level that doubled at 06:00 shows at 09:00 only here: the 8-hourly
 * pseudo-origins all start before it.
 */
function todayForecasts(z: Float64Array, model: Model): PseudoForecast[] {
  const out: PseudoForecast[] = [];
  const whole = z.length - model.elapsed;
  for (let cut = z.length - TODAY_SPACING_BINS; cut > whole; cut -= TODAY_SPACING_BINS) {
    const base = new Float64Array(z.length - cut);
    for (let k = 0; k < base.length; k++) base[k] = expectedAt(model, cut - whole + k);
    out.push({ cut, base, terms: termsAt(model.devs, P + cut - whole, trendAt(model, cut - whole)) });
  }
  return out;
}

/**
 * Mean absolute log error of the forecasts with correction c; misses[i][k] is forecast i's
 * error with c's trend damping but before the level correction (actual less base less the
 * damping's shift; NaN where the actual is missing).
 */
function absoluteError(misses: Float64Array[], forecasts: PseudoForecast[], c: Correction): number {
  // Plain loops and locals: the sum is the hot spot of a forecast's correction choice.
  let error = 0;
  let n = 0;
  const w = WINDOW_CANDIDATES.indexOf(c.window as never);
  const decay = c.decay;
  for (let i = 0; i < forecasts.length; i++) {
    const terms = forecasts[i]!.terms;
    const miss = misses[i]!;
    const long = terms.long[w]!;
    let carry = (terms.short - long) * decay;
    for (let k = 0; k < miss.length; k++, carry *= decay) {
      const m = miss[k]!;
      if (Number.isNaN(m)) continue;
      error += Math.abs(m - long - carry);
      n++;
    }
  }
  return n === 0 ? Number.NaN : error / n;
}

/** The correction with the lowest mean absolute error over the forecasts. */
function chooseCorrection(
  z: Float64Array,
  forecasts: PseudoForecast[],
  candidates: readonly Correction[],
): { correction: Correction; error: number } {
  const misses = new Map<number, Float64Array[]>();
  const missesFor = (damping: number): Float64Array[] => {
    if (!misses.has(damping)) {
      const m = forecasts.map(({ cut, base, terms }) =>
        base.map((b, k) => z[cut + k]! - b - dampingShift(terms, damping, k)),
      );
      misses.set(damping, m);
    }
    return misses.get(damping)!;
  };
  let best = { correction: candidates[0]!, error: Number.POSITIVE_INFINITY };
  for (const correction of candidates) {
    const error = absoluteError(missesFor(correction.damping), forecasts, correction);
    if (error < best.error) best = { correction, error };
  }
  return best;
}

/** Log errors of the refits' forecasts with the chosen correction, per horizon band, with their slots. */
type RawBand = { e: number[]; s: number[]; o: number[] };

function collect(z: Float64Array, pseudo: PseudoForecast[], c: Correction, w: number): RawBand[] {
  const bands = BAND_EDGES.map((): RawBand => ({ e: [], s: [], o: [] }));
  pseudo.forEach(({ cut, base, terms, average }, origin) => {
    for (let k = 0; k < base.length; k++) {
      const actual = z[cut + k]!;
      if (!Number.isFinite(actual)) continue;
      const b = bands[bandIndex(k)]!;
      b.e.push(actual - blended(base[k]! + correctionAt(terms, c, k), average?.[k], w));
      b.s.push((cut + k) % P);
      b.o.push(origin);
    }
  });
  return bands;
}

/**
 * Pools thin bands with their neighbours outward until each has enough errors. Bands pooled
 * from the same errors in the same order are one object (with a 200-minute horizon, three of
 * the four bands hold the same 240 errors), so what is computed from a band is computed once.
 */
function pool(bands: RawBand[]): Errors[] {
  const pooled = new Map<string, Errors>();
  return bands.map((_, b) => {
    const sources = [b];
    let n = bands[b]!.e.length;
    for (let d = 1; n < MIN_BAND_SAMPLES && d < bands.length; d++) {
      for (const other of [b - d, b + d]) {
        if (other < 0 || other >= bands.length) continue;
        sources.push(other);
        n += bands[other]!.e.length;
      }
    }
    const key = sources.filter((i) => bands[i]!.e.length > 0).join();
    let errors = pooled.get(key);
    if (!errors) {
      errors = { errors: new Float64Array(n), slots: new Int32Array(n), origins: new Int32Array(n) };
      let at = 0;
      for (const i of sources) {
        const { e, s, o } = bands[i]!;
        errors.errors.set(e, at);
        errors.slots.set(s, at);
        errors.origins.set(o, at);
        at += e.length;
      }
      pooled.set(key, errors);
    }
    return errors;
  });
}

export interface ResidualBands {
  /** The fit chosen (its weekly weight), among those given. */
  model: Model;
  /** The refits' log errors per horizon band (a thin band holds its neighbours' too). */
  bands: Errors[];
  /** Out-of-sample errors the band rests on (0: none, under about 1.5 days of history). */
  samples: number;
  /** The level correction chosen. */
  correction: Correction;
  /** The chosen fit's forecasts at every pseudo-origin: the 8-hourly refits, then today's. */
  forecasts: PseudoForecast[];
  /** Weight of the seasonal average in the centre (./blend.ts; 0: the model alone). */
  blendWeight: number;
  /** The seasonal average from the origin. */
  average: Float64Array;
}

const refitsOf = (pseudo: PseudoForecast[][], v: number): number => (pseudo[v] ?? []).length;

/**
 * Errors of pseudo-origin forecasts for z (whole days, then `elapsed` bins of today), and the
 * fit among `models` (one per weekly weight, the first the default) and the correction they
 * choose. `fits` gives the fit of z's first whole days (./model.ts daysFits, at params).
 */
export function residualBands(
  z: Float64Array,
  models: Model[],
  horizonBins: number,
  params: ModelParams,
  fits: (whole: number) => DaysFit = daysFits(z, params),
): ResidualBands {
  const pseudo = pseudoForecasts(z, models[0]!.elapsed, horizonBins, params, fits);
  const scored = models.map((m, v) => {
    const forecasts = [...(pseudo[v] ?? []), ...todayForecasts(z, m)];
    const fallback = {
      correction: { window: 0, decay: params.deviationDecay, damping: params.trendDamping },
      error: Number.NaN,
    };
    // Today's pseudo-origins see at most today's hours ahead: alone, they cannot tell how long a
    // correction lasts over two days. NASA with 7 days of history, where most origins have no
    // refit with a week of its own: p50 / p90 pinball 7.57 / 4.40 with corrections chosen from
    // them, 7.43 / 4.31 with the default.
    const candidates = corrections(params.trendDamping);
    const chosen = (pseudo[v] ?? []).length > 0 ? chooseCorrection(z, forecasts, candidates) : fallback;
    return { model: m, v, forecasts, ...chosen };
  });
  let best = scored[0]!;
  for (const s of scored.slice(1)) if (s.error < (1 - WEEKLY_MARGIN) * best.error) best = s;
  const weekly = modelKind(best.model) === 'weekly';
  const blend =
    best.forecasts.length > 0 && refitsOf(pseudo, best.v) > 0
      ? chooseBlend(z, best.forecasts, best.correction, weekly)
      : { weight: 0, averages: [] };
  const forecasts = best.forecasts.map((f, i) => ({ ...f, average: blend.averages[i] }));
  const refits = forecasts.slice(0, refitsOf(pseudo, best.v));
  const raw = collect(z, refits, best.correction, blend.weight);
  const samples = raw.reduce((n, b) => n + b.e.length, 0);
  return {
    model: best.model,
    bands: samples > 0 ? pool(raw) : [],
    samples,
    correction: best.correction,
    forecasts,
    blendWeight: blend.weight,
    average: seasonalAverage(z, z.length, horizonBins, weekly),
  };
}
