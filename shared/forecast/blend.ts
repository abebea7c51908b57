/**
 * A pull toward a plain seasonal average. The seasonal model reads each weekday from medians
 * and adapts its level to the last days and hours; a mean of the same hour of the week over
 * every week of history (EC2 predictive scaling's kind of forecast) adapts to nothing. Where
 * the week repeats and the last hours mislead, the average is the better centre; where the
 * level moves, the model is. Which holds is measured, not assumed: the pseudo-origins' errors
 * (./residuals.ts) choose the weight of the average in the centre, 0 unless it helps.
 */
import { type Correction, correctionAt, type Terms } from './correction.ts';
import { BINS_PER_DAY, DAYS_PER_WEEK } from './series.ts';

/**
 * One pseudo-origin's forecast: where it starts (an index into z), its log forecast before
 * the level correction, and the terms the corrections read there.
 */
export interface PseudoForecast {
  cut: number;
  base: Float64Array;
  terms: Terms;
  /** The seasonal average from the cut (seasonalAverage), when one was weighed. */
  average?: Float64Array;
}

const P = BINS_PER_DAY;
const HOUR = 12;
/** Weights of the average tried; 0 (the model alone) is the default. */
export const BLEND_WEIGHTS: readonly number[] = [0, 0.25, 0.5];
/**
 * A weight other than 0 must lower the pseudo-origins' mean absolute log error by this share,
 * as the weekly weight must (./residuals.ts): a plain "lower" picks on noise.
 */
const BLEND_MARGIN = 0.05;

/**
 * Log mean of the same hour of the period (a week with a week of history before the cut, else
 * a day) over every period before the cut, for `steps` bins after it; NaN where none.
 */
export function seasonalAverage(z: Float64Array, cut: number, steps: number, weekly: boolean): Float64Array {
  const period = weekly ? DAYS_PER_WEEK * P : P;
  const out = new Float64Array(steps).fill(Number.NaN);
  for (let h = 0; h * HOUR < steps; h++) {
    const start = cut + h * HOUR;
    let [sum, n] = [0, 0];
    for (let s = start - period * (Math.floor((h * HOUR) / period) + 1); s >= 0; s -= period) {
      for (let t = s; t < s + HOUR && t < cut; t++) {
        if (Number.isFinite(z[t]!)) {
          sum += z[t]!;
          n++;
        }
      }
    }
    if (n > 0) out.fill(sum / n, h * HOUR, Math.min(steps, (h + 1) * HOUR));
  }
  return out;
}

/** A centre pulled toward the average at weight w (unchanged where the average has no value). */
export const blended = (centre: number, average: number | undefined, w: number): number =>
  w > 0 && average !== undefined && Number.isFinite(average) ? centre + w * (average - centre) : centre;

/**
 * The weight of the seasonal average (BLEND_WEIGHTS) with the lowest mean absolute log error
 * over the forecasts, by BLEND_MARGIN, and each forecast's average.
 */
export function chooseBlend(
  z: Float64Array,
  forecasts: readonly PseudoForecast[],
  c: Correction,
  weekly: boolean,
): { weight: number; averages: Float64Array[] } {
  const averages = forecasts.map((f) => seasonalAverage(z, f.cut, f.base.length, weekly));
  const sums = BLEND_WEIGHTS.map(() => 0);
  let n = 0;
  forecasts.forEach((f, i) => {
    for (let k = 0; k < f.base.length; k++) {
      const actual = z[f.cut + k]!;
      if (!Number.isFinite(actual)) continue;
      const centre = f.base[k]! + correctionAt(f.terms, c, k);
      BLEND_WEIGHTS.forEach((w, j) => {
        sums[j]! += Math.abs(actual - blended(centre, averages[i]![k], w));
      });
      n++;
    }
  });
  let best = 0;
  for (let j = 1; j < BLEND_WEIGHTS.length; j++) if (sums[j]! < (1 - BLEND_MARGIN) * sums[best]!) best = j;
  return { weight: n === 0 ? 0 : BLEND_WEIGHTS[best]!, averages };
}
