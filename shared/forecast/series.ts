/**
 * The forecaster's working series: mean requests per minute in five-minute bins, aligned so
 * the last bin ends at the forecast origin, and its log transform.
 */

/** Five-minute bins: the forecaster's resolution (288 a day, 2016 a week). */
export const BIN_MINUTES = 5;
export const BINS_PER_DAY = 288;
export const DAYS_PER_WEEK = 7;

/** A history value is missing when it is null, undefined, NaN or infinite. */
export const isPresent = (v: number | null | undefined): v is number => v != null && Number.isFinite(v);

/**
 * Requests per minute in five-minute bins. Per-minute history is grouped in fives counted back
 * from its end (a leading partial group is dropped), each bin the mean of its present minutes;
 * a bin with fewer than 3 of its 5 minutes is missing (NaN), since two minutes are too noisy to
 * stand for five. Five-minute history (counts per bin) is divided by 5.
 */
export function toFiveMinuteRates(
  history: readonly (number | null | undefined)[],
  stepMinutes: 1 | 5,
): Float64Array {
  if (stepMinutes === BIN_MINUTES) {
    return Float64Array.from(history, (v) => (isPresent(v) ? v / BIN_MINUTES : Number.NaN));
  }
  const bins = Math.floor(history.length / BIN_MINUTES);
  const offset = history.length - bins * BIN_MINUTES;
  const out = new Float64Array(bins);
  for (let b = 0; b < bins; b++) {
    let sum = 0;
    let n = 0;
    for (let i = offset + b * BIN_MINUTES; i < offset + (b + 1) * BIN_MINUTES; i++) {
      const v = history[i];
      if (isPresent(v)) {
        sum += v;
        n++;
      }
    }
    out[b] = n >= 3 ? sum / n : Number.NaN;
  }
  return out;
}

/**
 * The first minute of the history a forecast at `origin` reads: the start of the day (at
 * dayStartMinute) `historyDays` whole days before the start of today, or 0 when the history is
 * shorter. So every forecast of one day sees the same whole days (and today up to its origin),
 * takes the same log offset and reuses their fit (./model.ts sharedDaysFit); a window of
 * exactly historyDays x 24 h would cut into its oldest day at a different minute at each refit.
 * Minutes count on the clock dayStartMinute is read on (a trace's minute 0 is UTC midnight).
 */
export function historyStart(origin: number, historyDays: number, dayStartMinute = 0): number {
  return Math.max(0, origin - minutesIntoDay(origin, dayStartMinute) - historyDays * 1440);
}

/** Minutes from the start of `minute`'s day (days starting at dayStartMinute) to it: 0 to 1439. */
export const minutesIntoDay = (minute: number, dayStartMinute: number): number =>
  (((minute - dayStartMinute) % 1440) + 1440) % 1440;

/**
 * Demand is modelled in log space, log(x + c), so daily and weekly effects multiply (a quiet
 * Sunday is 40 % down at every hour, not 20 requests down) and residuals scale with the level.
 * The offset c keeps zeros finite and damps the relative noise of tiny counts: 10 % of the
 * mean rate, at least 0.01 requests per minute (mean 47.7 on NASA gives c = 4.8). The caller
 * passes the whole days only (./forecast.ts), not today's bins, so the offset, and with it the
 * fit of those days, is the same for every forecast of a day.
 */
export function logOffset(rates: Float64Array): number {
  let sum = 0;
  let n = 0;
  for (const v of rates) {
    if (Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return Math.max(0.01, n === 0 ? 0 : (0.1 * sum) / n);
}

export const toLog = (rates: Float64Array, c: number): Float64Array =>
  rates.map((v) => (Number.isFinite(v) ? Math.log(v + c) : Number.NaN));

export const fromLog = (z: number, c: number): number => Math.max(0, Math.exp(z) - c);
