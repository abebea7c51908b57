/**
 * The seasonal model's quantiles, from the real origin or any pseudo-origin: its centre (the
 * base plus the level correction) plus the band's offset for the step's horizon band and slot
 * of the day (./band.ts). And the series a forecast returns: requests per minute per step,
 * ordered p10 <= p50 <= p90 <= p99, never negative.
 */
import { chooseShape, normalizedScales, widthAt } from './band.ts';
import { correctionAt, termsAt } from './correction.ts';
import type { LogForecaster } from './fallback.ts';
import { baseAt, trendAt } from './model.ts';
import { bandIndex, type ResidualBands } from './residuals.ts';
import { BINS_PER_DAY, fromLog } from './series.ts';
import { normalQuantile, robustScale } from './stats.ts';
import { QUANTILES, type QuantileName } from './types.ts';

const P = BINS_PER_DAY;
const NAMES = Object.keys(QUANTILES) as QuantileName[];
const LEVELS: number[] = NAMES.map((n) => QUANTILES[n]);
/**
 * With no pseudo-origin (under about 1.5 days of history) the band is the in-sample residual
 * scale under a normal shape, widened by 1.5: in-sample residuals flatter a model that has
 * seen the data, and miss day-to-day level changes.
 */
const IN_SAMPLE_WIDENING = 1.5;

/**
 * The seasonal model as a forecaster from the origin (cut = z.length) and from each cut in
 * r.forecasts. Log quantile q at step k = centre + scale(horizon band, q) x width(slot, q).
 */
export function seasonalForecaster(z: Float64Array, r: ResidualBands): LogForecaster {
  const { model, correction } = r;
  const widths = chooseShape(model.seasonal.residuals, model.seasonal.days, r.bands);
  const scales = r.samples > 0 ? r.bands.map((b) => normalizedScales(b, widths, LEVELS)) : null;
  const fitScale = r.samples > 0 ? 0 : robustScale(model.seasonal.residuals) || 0;
  const inSample = (q: number) => normalQuantile(q) * IN_SAMPLE_WIDENING * fitScale;
  const byCut = new Map(r.forecasts.map((f) => [f.cut, f]));
  const own = termsAt(model.devs, model.devs.length, trendAt(model, model.elapsed));
  return {
    quantile: (cut, k, q) => {
      const f = byCut.get(cut);
      if (cut !== z.length && !f) return Number.NaN;
      const base = f ? f.base[k]! : baseAt(model, k);
      const i = LEVELS.indexOf(q);
      const offset =
        scales && i >= 0 ? scales[bandIndex(k)]![i]! * widthAt(widths, q, (cut + k) % P) : inSample(q);
      return base + correctionAt(f ? f.terms : own, correction, k) + offset;
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
