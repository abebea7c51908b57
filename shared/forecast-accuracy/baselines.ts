/**
 * The forecasts Governor's is measured against, each a pure function of the five-minute rates
 * before the origin:
 * - seasonal naive: the same five minutes yesterday, or a week ago;
 * - the same, with quantiles from its own past errors (a naive forecaster made honest);
 * - predictive scaling in the manner of EC2 Auto Scaling: an hourly forecast for 48 h from up
 *   to 14 days of history, refreshed every 6 h, point only (AWS publishes no quantiles).
 */
import { BINS_PER_DAY, DAYS_PER_WEEK, fromLog } from '../forecast/series.ts';
import { quantileOfSorted, sortedFinite } from '../forecast/stats.ts';

const P = BINS_PER_DAY;
const WEEK = DAYS_PER_WEEK * P;
/** Bins per hour, and EC2's window: 14 days, at least 24 hours. */
const HOUR = 12;
const EC2_HISTORY_BINS = 14 * P;

export interface BaselineForecast {
  /** Requests per minute per five-minute step. */
  point: Float64Array;
  p50: Float64Array;
  p90: Float64Array;
}

const pointOnly = (point: Float64Array): BaselineForecast => ({ point, p50: point, p90: point });

/**
 * The value one (or, past the first period, two...) periods before each step, stepping one
 * more period back over a missing value. Step k uses rates[origin + k - period x (floor(k /
 * period) + 1)]: tomorrow repeats yesterday too, never today's unfinished data.
 */
export function seasonalNaive(
  rates: Float64Array,
  origin: number,
  steps: number,
  period: number,
): Float64Array {
  const out = new Float64Array(steps);
  for (let k = 0; k < steps; k++) {
    let t = origin + k - period * (Math.floor(k / period) + 1);
    while (t >= 0 && !Number.isFinite(rates[t]!)) t -= period;
    out[k] = t >= 0 ? rates[t]! : Number.NaN;
  }
  return out;
}

export const naiveYesterday = (rates: Float64Array, origin: number, steps: number): BaselineForecast =>
  pointOnly(seasonalNaive(rates, origin, steps, P));

export const naiveLastWeek = (rates: Float64Array, origin: number, steps: number): BaselineForecast =>
  pointOnly(seasonalNaive(rates, origin, steps, WEEK));

/**
 * Seasonal naive with quantiles: its log errors over the last `historyBins` before the origin
 * (how far this bin was from the one a period earlier), added to its point in log space. The
 * offset c is 10 % of the window's mean rate, as in the forecaster.
 */
export function naiveWithQuantiles(
  rates: Float64Array,
  origin: number,
  steps: number,
  period: number,
  historyBins: number,
): BaselineForecast {
  const point = seasonalNaive(rates, origin, steps, period);
  const from = Math.max(period, origin - historyBins);
  let sum = 0;
  for (let t = from; t < origin; t++) sum += Number.isFinite(rates[t]!) ? rates[t]! : 0;
  const c = Math.max(0.01, (0.1 * sum) / Math.max(1, origin - from));
  const errors = new Float64Array(Math.max(0, origin - from));
  for (let t = from; t < origin; t++)
    errors[t - from] = Math.log(rates[t]! + c) - Math.log(rates[t - period]! + c);
  const sorted = sortedFinite(errors);
  const shift = (q: number) =>
    point.map((v) => fromLog(Math.log(v + c) + (quantileOfSorted(sorted, q) || 0), c));
  return { point: shift(0.5), p50: shift(0.5), p90: shift(0.9) };
}

/** Mean requests per minute of each whole hour in [from, to), oldest first, hours ending at `to`. */
function hourlyMeans(rates: Float64Array, from: number, to: number): Float64Array {
  const hours = Math.floor((to - from) / HOUR);
  const out = new Float64Array(hours);
  for (let h = 0; h < hours; h++) {
    let sum = 0;
    let n = 0;
    for (let t = to - (hours - h) * HOUR; t < to - (hours - h - 1) * HOUR; t++) {
      if (Number.isFinite(rates[t]!)) {
        sum += rates[t]!;
        n++;
      }
    }
    out[h] = n === 0 ? Number.NaN : sum / n;
  }
  return out;
}

/**
 * Hourly forecast in the manner of EC2 predictive scaling. AWS does not publish its model; this
 * stands in with a seasonal average over its window: with a week or more of history, the mean
 * of the same hour of the week over the weeks available (one or two), else the mean of the
 * same hour of the day over the days available. Each hour's value holds for its 12 bins.
 */
export function ec2Style(rates: Float64Array, origin: number, steps: number): BaselineForecast {
  const from = Math.max(0, origin - EC2_HISTORY_BINS);
  const hourly = hourlyMeans(rates, from, origin);
  const period = hourly.length >= WEEK / HOUR ? WEEK / HOUR : P / HOUR;
  const out = new Float64Array(steps);
  for (let k = 0; k < steps; k++) {
    const h = Math.floor(k / HOUR);
    let sum = 0;
    let n = 0;
    for (let back = hourly.length + h - period * (Math.floor(h / period) + 1); back >= 0; back -= period) {
      if (Number.isFinite(hourly[back]!)) {
        sum += hourly[back]!;
        n++;
      }
    }
    out[k] = n === 0 ? Number.NaN : sum / n;
  }
  return pointOnly(out);
}
