/**
 * Honest quantiles: the forecaster is refitted at pseudo-origins inside the history (every
 * 8 h, up to 2 days back), each forecast is compared with what happened next, and the log
 * errors are pooled by horizon band. Log errors are relative errors, so the band scales with
 * the level: a 10 % error at the peak and at night alike.
 */
import { baseAt, fitModel, type ModelParams } from './model.ts';
import { BINS_PER_DAY, DAYS_PER_WEEK } from './series.ts';
import { quantileOfSorted, sortedFinite } from './stats.ts';

const P = BINS_PER_DAY;
/**
 * Pseudo-origins every 8 h (96 bins), at most 6 of them (2 days back): close enough to the
 * origin that their fits have nearly the history the real one has (further back, fits on
 * fewer days are worse and the band too wide: p90 coverage 0.94 on NASA with 14 origins 12 h
 * apart, 0.90 with origins within 2 days), and far enough to see 48 h ahead. 6 origins 8 h
 * apart scored the same as 12 origins 4 h apart (p90 pinball 2.631 against 2.630 on NASA with
 * 14 days) at half the cost: a forecast is 7 fits.
 */
const PSEUDO_SPACING_BINS = 96;
const MAX_PSEUDO_ORIGINS = 6;
/** Horizon bands (in bins, upper edges): 1 h, 6 h, 24 h, then the rest. */
const BAND_EDGES = [12, 72, P, Number.POSITIVE_INFINITY];
/** A band with fewer errors than this borrows its neighbours' (p99 of 100 samples is already rough). */
const MIN_BAND_SAMPLES = 200;

export interface ResidualBands {
  /** Sorted log errors per band; a thin band holds its neighbours' errors too. */
  sorted: Float64Array[];
  samples: number;
  /** The deviation decay the pseudo-origins chose; null when there were none. */
  decay: number | null;
}

const bandOf = (k: number): number => BAND_EDGES.findIndex((edge) => k < edge);

/**
 * The least history a pseudo-origin's fit may have: a day, or a week when the real fit has a
 * week. A daily-only fit's errors on a weekly series (a Saturday forecast from Friday's
 * shape) would make the band as wide as the weekly cycle: with 7 days of history on a series
 * with 40 % quieter weekends, p90 pinball was 36 % worse than seasonal naive.
 */
const minPseudoBins = (wholeBins: number): number => (wholeBins >= DAYS_PER_WEEK * P ? DAYS_PER_WEEK * P : P);

/** One pseudo-origin's forecast: where it starts, its log forecast before the deviation, the deviation. */
interface PseudoForecast {
  cut: number;
  base: Float64Array;
  deviation: number;
}

function pseudoForecasts(
  z: Float64Array,
  elapsed: number,
  horizonBins: number,
  params: ModelParams,
): PseudoForecast[] {
  const out: PseudoForecast[] = [];
  const minWhole = minPseudoBins(z.length - elapsed);
  for (let i = 1; i <= MAX_PSEUDO_ORIGINS; i++) {
    const cut = z.length - i * PSEUDO_SPACING_BINS;
    const today = (((elapsed - i * PSEUDO_SPACING_BINS) % P) + P) % P;
    const whole = Math.floor((cut - today) / P) * P;
    if (whole < minWhole) break;
    const model = fitModel(z.subarray(cut - today - whole, cut), today, params);
    const base = new Float64Array(Math.min(horizonBins, z.length - cut));
    for (let k = 0; k < base.length; k++) base[k] = baseAt(model, k);
    out.push({ cut, base, deviation: model.deviation });
  }
  return out;
}

/**
 * Decay of the last half hour's deviation, per five-minute step, chosen by the pseudo-origins'
 * mean absolute error. Whether a busy half hour stays busy is a property of the traffic: on
 * NASA it does (bursts last hours), on demand with independent minute-to-minute noise it does
 * not, and carrying that noise forward would only add it to the forecast.
 */
export const DECAY_CANDIDATES = [0, 0.9, 0.97, 0.99] as const;

function chooseDecay(z: Float64Array, pseudo: PseudoForecast[]): number {
  let best: number = DECAY_CANDIDATES[0];
  let bestError = Number.POSITIVE_INFINITY;
  for (const decay of DECAY_CANDIDATES) {
    let error = 0;
    for (const { cut, base, deviation } of pseudo) {
      for (let k = 0, carry = deviation * decay; k < base.length; k++, carry *= decay) {
        const actual = z[cut + k]!;
        if (Number.isFinite(actual)) error += Math.abs(actual - base[k]! - carry);
      }
    }
    if (error < bestError) [best, bestError] = [decay, error];
  }
  return best;
}

/** Log errors of the pseudo-origins' forecasts with the chosen decay, per horizon band (unsorted). */
function collect(z: Float64Array, pseudo: PseudoForecast[], decay: number): number[][] {
  const bands: number[][] = BAND_EDGES.map(() => []);
  for (const { cut, base, deviation } of pseudo) {
    for (let k = 0, carry = deviation * decay; k < base.length; k++, carry *= decay) {
      const actual = z[cut + k]!;
      if (Number.isFinite(actual)) bands[bandOf(k)]!.push(actual - base[k]! - carry);
    }
  }
  return bands;
}

/** Pools thin bands with their neighbours outward until each has enough errors. */
function pool(bands: number[][]): Float64Array[] {
  return bands.map((_, b) => {
    const merged = [...bands[b]!];
    for (let d = 1; merged.length < MIN_BAND_SAMPLES && d < bands.length; d++) {
      for (const other of [b - d, b + d])
        if (other >= 0 && other < bands.length) merged.push(...bands[other]!);
    }
    return sortedFinite(merged);
  });
}

/** Errors of pseudo-origin forecasts for z (whole days, then `elapsed` bins of today). */
export function residualBands(
  z: Float64Array,
  elapsed: number,
  horizonBins: number,
  params: ModelParams,
): ResidualBands {
  const pseudo = pseudoForecasts(z, elapsed, horizonBins, params);
  if (pseudo.length === 0)
    return { sorted: BAND_EDGES.map(() => new Float64Array(0)), samples: 0, decay: null };
  const decay = chooseDecay(z, pseudo);
  const bands = collect(z, pseudo, decay);
  const samples = bands.reduce((n, b) => n + b.length, 0);
  return { sorted: pool(bands), samples, decay };
}

/** The q-quantile of the log error at step k; NaN when there are no errors at all. */
export function errorQuantile(bands: ResidualBands, k: number, q: number): number {
  return quantileOfSorted(bands.sorted[bandOf(k)]!, q);
}
