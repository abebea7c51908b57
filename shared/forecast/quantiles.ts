/**
 * The seasonal model's quantiles, from the real origin or any pseudo-origin: its centre (the
 * base plus the level correction) plus the band's offset for the step's horizon band and slot
 * of the day (./band.ts). And the series a forecast returns: requests per minute per step,
 * ordered p10 <= p50 <= p90 <= p99, never negative.
 */

import { chooseShape, type Errors, normalizedScales } from './band.ts';
import { blended, type PseudoForecast } from './blend.ts';
import { correctionAt, termsAt } from './correction.ts';
import type { LogForecaster } from './fallback.ts';
import { baseAt, trendAt } from './model.ts';
import { bandIndex, type ResidualBands } from './residuals.ts';
import { BINS_PER_DAY, fromLog } from './series.ts';
import { QUANTILES, type QuantileName } from './types.ts';
import { widthAt } from './widths.ts';

const P = BINS_PER_DAY;
const NAMES = Object.keys(QUANTILES) as QuantileName[];
const LEVELS: number[] = NAMES.map((n) => QUANTILES[n]);
/**
 * With no pseudo-origin (under about 1.5 days of history) the band is the in-sample residual
 * scale under a normal shape, widened by 1.5: in-sample residuals flatter a model that has
 * seen the data, and miss day-to-day level changes.
 */
const IN_SAMPLE_WIDENING = 1.5;

/** The in-sample residuals as errors, one origin per day. */
function inSampleErrors(residuals: Float64Array, days: number): Errors {
  const errors = residuals.subarray(0, days * P);
  const slots = Int32Array.from(errors, (_, j) => j % P);
  const origins = Int32Array.from(errors, (_, j) => Math.floor(j / P));
  return { errors, slots, origins };
}

const lastDays = (b: Errors, days: number): Errors => {
  const from = Math.max(0, days - 2) * P;
  return {
    errors: b.errors.subarray(from),
    slots: b.slots.subarray(from),
    origins: b.origins.subarray(from),
  };
};

/**
 * The seasonal model as a forecaster from the origin (cut = z.length) and from each cut in
 * r.forecasts. Log quantile q at step k = centre + scale(horizon band, q) x width(slot, q).
 */
export function seasonalForecaster(z: Float64Array, r: ResidualBands): LogForecaster {
  const { model, correction } = r;
  const { residuals, days } = model.seasonal;
  const pools = r.samples > 0 ? r.bands : [inSampleErrors(residuals, days)];
  const widths = chooseShape(residuals, days, r.samples > 0 ? r.bands : pools.map((b) => lastDays(b, days)));
  // One pool may serve several bands (./residuals.ts): its scales, once.
  const scaled = new Map<Errors, number[]>();
  const scales = pools.map((b) => {
    if (!scaled.has(b))
      scaled.set(
        b,
        normalizedScales(b, widths, LEVELS).map((s) => s * (r.samples > 0 ? 1 : IN_SAMPLE_WIDENING)),
      );
    return scaled.get(b)!;
  });
  const byCut = new Map(r.forecasts.map((f) => [f.cut, f]));
  const own = termsAt(model.devs, model.devs.length, trendAt(model, model.elapsed));
  const centreAt = (k: number, f: PseudoForecast | undefined): number => {
    const base = f ? f.base[k]! : baseAt(model, k);
    return blended(
      base + correctionAt(f ? f.terms : own, correction, k),
      (f ?? r).average?.[k],
      r.blendWeight,
    );
  };
  // The last step's centre: every caller asks for several quantiles of one step in a row.
  let last = { cut: Number.NaN, k: Number.NaN, centre: 0 };
  return {
    quantile: (cut, k, q) => {
      const f = byCut.get(cut);
      if (cut !== z.length && !f) return Number.NaN;
      const i = LEVELS.indexOf(q);
      const scale = scales[Math.min(bandIndex(k), scales.length - 1)]![i]!;
      const offset = i >= 0 ? scale * widthAt(widths, q, (cut + k) % P) : 0;
      if (last.cut !== cut || last.k !== k) last = { cut, k, centre: centreAt(k, f) };
      return last.centre + offset;
    },
  };
}

/**
 * Requests per minute at each step and quantile of a forecaster at the origin. Each quantile
 * is at least the one below it and 0 (a narrow band at night, fromLog's floor at 0, and a
 * fallback's own error quantiles could otherwise cross by rounding).
 */
export function quantileSeries(
  f: LogForecaster,
  origin: number,
  steps: number,
  c: number,
): Record<QuantileName, number[]> {
  const out = Object.fromEntries(NAMES.map((n) => [n, new Array<number>(steps)])) as Record<
    QuantileName,
    number[]
  >;
  for (let k = 0; k < steps; k++) {
    let floor = 0;
    for (const n of NAMES) {
      const v = fromLog(f.quantile(origin, k, QUANTILES[n]), c);
      floor = Math.max(floor, Number.isFinite(v) ? v : floor);
      out[n][k] = floor;
    }
  }
  return out;
}
