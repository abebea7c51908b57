/**
 * Forecast scores, accumulated over many forecasts: pinball (quantile) loss at p50 and p90,
 * MAPE of the point forecast, and p90 coverage. Units: requests per minute for the losses.
 */

/**
 * Pinball loss of quantile forecast f for level q at actual y: q (y - f) when y is above, (1 - q)
 * (f - y) when below. A p90 forecast of 100 costs 0.9 x 20 = 18 when 120 arrives, but only
 * 0.1 x 20 = 2 when 80 does: under-forecasting a p90 is nine times as costly.
 */
export const pinball = (q: number, y: number, f: number): number =>
  y >= f ? q * (y - f) : (1 - q) * (f - y);

/**
 * MAPE leaves out steps under 1 request per minute: an outage bin at 0.2 against a forecast of
 * 30 would count as 15 000 % and drown every other step (NASA has 7 such bins in its last two weeks).
 */
export const MAPE_MIN_ACTUAL = 1;

export interface ScoreTotals {
  pinballP50: number;
  pinballP90: number;
  /** Sum of |f - y| / y over steps with y >= MAPE_MIN_ACTUAL. */
  ape: number;
  apeCount: number;
  covered90: number;
  count: number;
}

export interface Scores {
  /** Mean pinball loss at p50 (half the mean absolute error), requests per minute. */
  pinballP50: number;
  /** Mean pinball loss at p90, requests per minute. */
  pinballP90: number;
  /** Mean absolute percentage error of the point forecast, in percent, over steps with y >= 1. */
  mape: number;
  /** Share of steps at or under the p90 forecast (0.9 when honest). */
  coverageP90: number;
  /** Steps scored. */
  steps: number;
}

export const emptyTotals = (): ScoreTotals => ({
  pinballP50: 0,
  pinballP90: 0,
  ape: 0,
  apeCount: 0,
  covered90: 0,
  count: 0,
});

export interface Scored {
  point: ArrayLike<number>;
  p50: ArrayLike<number>;
  p90: ArrayLike<number>;
}

/** Adds one forecast's steps to the totals; steps whose actual or forecast is missing are skipped. */
export function accumulate(totals: ScoreTotals, actual: ArrayLike<number>, f: Scored): void {
  for (let k = 0; k < actual.length; k++) {
    const y = actual[k]!;
    const [point, p50, p90] = [f.point[k]!, f.p50[k]!, f.p90[k]!];
    if (!Number.isFinite(y) || !Number.isFinite(point) || !Number.isFinite(p50) || !Number.isFinite(p90))
      continue;
    totals.pinballP50 += pinball(0.5, y, p50);
    totals.pinballP90 += pinball(0.9, y, p90);
    if (y >= MAPE_MIN_ACTUAL) {
      totals.ape += Math.abs(point - y) / y;
      totals.apeCount++;
    }
    if (y <= p90) totals.covered90++;
    totals.count++;
  }
}

export function finish(t: ScoreTotals): Scores {
  const n = Math.max(1, t.count);
  return {
    pinballP50: t.pinballP50 / n,
    pinballP90: t.pinballP90 / n,
    mape: (100 * t.ape) / Math.max(1, t.apeCount),
    coverageP90: t.covered90 / n,
    steps: t.count,
  };
}
