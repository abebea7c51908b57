import { describe, expect, it } from 'vitest';
import { forecast } from '#shared/forecast/forecast.ts';
import { toFiveMinuteRates } from '#shared/forecast/series.ts';
import { type Forecast, ForecastInputError, type ForecastResult } from '#shared/forecast/types.ts';
import { meanRelativeError, rng, type SyntheticOptions, synthetic, truthBins } from './synthetic.ts';

const DAY = 1440;

function ok(result: ForecastResult): Forecast {
  if (!result.ok) throw new Error(`expected a forecast, got ${result.reason}: ${result.message}`);
  return result;
}

/** Forecast from all of `history` (per minute), the origin right after it. */
const forecastAll = (history: readonly (number | null)[], horizonMinutes = 2 * DAY) =>
  ok(forecast(history, { stepMinutes: 1, origin: history.length, horizonMinutes }));

describe('the forecaster recovers known seasonality, trend and level', () => {
  // Tolerances: mean absolute error of the p50 against the true five-minute mean over the next
  // 48 h. Per-minute log noise of 0.1 leaves about 4.5 % noise in each five-minute bin.
  it.each([
    {
      case: 'daily and weekly cycles from 14 days, to within 2 %',
      o: { days: 14, weekendFactor: 0.6 },
      tol: 0.02,
    },
    {
      case: 'a weekend after 12 days (Saturday and Sunday at 60 %), to within 2 %',
      o: { days: 12, weekendFactor: 0.6 },
      tol: 0.02,
    },
    {
      case: 'a 3 %-a-day growth trend, to within 4 %',
      o: { days: 14, weekendFactor: 0.6, trendPerDay: 0.03 },
      tol: 0.04,
    },
    { case: 'a 3 %-a-day decline, to within 4 %', o: { days: 14, trendPerDay: -0.03 }, tol: 0.04 },
    { case: 'the maximum of 28 days, to within 2 %', o: { days: 28, weekendFactor: 0.6 }, tol: 0.02 },
    {
      case: 'noisy demand (log noise 0.3 a minute), to within 6 %',
      o: { days: 14, weekendFactor: 0.6, noise: 0.3 },
      tol: 0.06,
    },
  ] satisfies { case: string; o: SyntheticOptions; tol: number }[])('$case', ({ o, tol }) => {
    const history = synthetic(o);
    const f = forecastAll(history);
    expect(f.model).toBe('weekly');
    expect(meanRelativeError(f.point, truthBins(history.length, f.point.length, o))).toBeLessThan(tol);
  });

  it('a forecast that ignored the weekly cycle would miss a weekend by 40 %; this one does not', () => {
    const o = { days: 12, weekendFactor: 0.6 };
    const f = forecastAll(synthetic(o));
    const truth = truthBins(12 * DAY, f.point.length, o);
    const ratio = f.point.reduce((a, b) => a + b, 0) / truth.reduce((a, b) => a + b, 0);
    expect(ratio).toBeGreaterThan(0.97);
    expect(ratio).toBeLessThan(1.03);
  });

  it('gaps (10 % of minutes and a 6-hour hole) are skipped and said so', () => {
    const o = { days: 14, weekendFactor: 0.6 };
    const random = rng(7);
    const history: (number | null)[] = synthetic(o).map((v) => (random() < 0.1 ? null : v));
    for (let m = 12 * DAY + 600; m < 12 * DAY + 960; m++) history[m] = Number.NaN;
    const f = forecastAll(history);
    expect(meanRelativeError(f.point, truthBins(history.length, f.point.length, o))).toBeLessThan(0.03);
    expect(f.notes.join(' ')).toMatch(/% of five-minute bins missing/);
  });

  it('a level that jumps 30 % in the last half hour carries into the next hour, then fades', () => {
    const o = { days: 14, noise: 0.05 };
    const history = synthetic(o).map((v, m) => (m >= 14 * DAY - 30 ? Math.round(v * 1.3) : v));
    const f = forecastAll(history);
    const truth = truthBins(14 * DAY, f.point.length, o);
    expect(f.point[0]! / truth[0]!).toBeGreaterThan(1.2);
    expect(f.point[287]! / truth[287]!).toBeLessThan(1.05);
  });
});

describe('a launch-day spike does not raise every later Thursday', () => {
  // Minute 0 is a Monday: day 10 is a Thursday, and the origin (day 17) is the next Thursday 00:00.
  const o = { days: 17, weekendFactor: 0.6, seed: 3 };
  const clean = synthetic(o);
  const spiked = clean.map((v, m) => (m >= 10 * DAY + 540 && m < 10 * DAY + 720 ? v * 5 : v));

  it('the next Thursday 09:00-12:00 is forecast within 5 % of the spike-free forecast and of the truth', () => {
    const [a, b] = [forecastAll(clean), forecastAll(spiked)];
    const truth = truthBins(17 * DAY, 288, o);
    for (let k = 108; k < 144; k++) {
      expect(Math.abs(b.point[k]! / a.point[k]! - 1)).toBeLessThan(0.05);
      expect(Math.abs(b.point[k]! / truth[k]! - 1)).toBeLessThan(0.05);
    }
  });

  it('its p90 on that Thursday stays within 10 % of the spike-free p90', () => {
    const [a, b] = [forecastAll(clean), forecastAll(spiked)];
    for (let k = 108; k < 144; k++)
      expect(Math.abs(b.quantiles.p90[k]! / a.quantiles.p90[k]! - 1)).toBeLessThan(0.1);
  });
});

describe('quantiles are honest on held-out data', () => {
  // 16 origins 12 h apart over days 14 to 21.5 of a 24-day series, each scored 48 h ahead
  // against what the series did next (bins the forecaster never saw).
  it.each([
    { case: 'log noise 0.2 a minute', noise: 0.2, seed: 1 },
    { case: 'log noise 0.4 a minute', noise: 0.4, seed: 3 },
  ])('$case: p90 covers 90 % +- 4 points, p50 50 % +- 5, p99 at least 97 %', ({ noise, seed }) => {
    const o = { days: 24, weekendFactor: 0.6, noise, seed };
    const history = synthetic(o);
    const rates = toFiveMinuteRates(history, 1);
    const covered = { p50: 0, p90: 0, p99: 0 };
    let n = 0;
    for (let day = 14; day <= 21.5; day += 0.5) {
      const origin = day * DAY;
      const f = forecastAll(history.slice(0, origin));
      for (let k = 0; k < f.point.length; k++) {
        const y = rates[origin / 5 + k]!;
        for (const q of ['p50', 'p90', 'p99'] as const) if (y <= f.quantiles[q][k]!) covered[q]++;
        n++;
      }
    }
    expect(Math.abs(covered.p90 / n - 0.9)).toBeLessThan(0.04);
    expect(Math.abs(covered.p50 / n - 0.5)).toBeLessThan(0.05);
    expect(covered.p99 / n).toBeGreaterThan(0.97);
  });
});

describe('short histories fall back and say so', () => {
  it('3 days: daily seasonality only, named in model and notes, still within 3 %', () => {
    const o = { days: 3 };
    const f = forecastAll(synthetic(o));
    expect(f.model).toBe('daily');
    expect(f.notes.join(' ')).toMatch(/less than a week: daily seasonality only/);
    expect(meanRelativeError(f.point, truthBins(3 * DAY, f.point.length, o))).toBeLessThan(0.03);
  });

  it('1 day: quantiles from widened in-sample residuals, with 0 out-of-sample errors', () => {
    const f = forecastAll(synthetic({ days: 1 }));
    expect(f.residualSamples).toBe(0);
    expect(f.notes.join(' ')).toMatch(/widened in-sample residuals/);
    expect(f.quantiles.p90[0]!).toBeGreaterThan(f.quantiles.p50[0]!);
  });

  it.each([
    {
      case: 'under one day is InsufficientHistory',
      history: synthetic({ days: 1 }).slice(1),
      reason: 'InsufficientHistory',
    },
    {
      case: 'two days of gaps is NoData',
      history: new Array<number | null>(2 * DAY).fill(null),
      reason: 'NoData',
    },
  ])('$case (a result, not an exception)', ({ history, reason }) => {
    const result = forecast(history, { stepMinutes: 1, origin: 0 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBe(reason);
  });

  it('more than 28 days: the last 28 are used, and a note says so', () => {
    const f = forecastAll(synthetic({ days: 30 }));
    expect(f.historyDays).toBe(28);
    expect(f.notes.join(' ')).toMatch(/used the last 28/);
  });
});

describe('the result and its contract', () => {
  const history = synthetic({ days: 8, weekendFactor: 0.6 });

  it('has one value per five-minute step, ordered quantiles, and the point equal to p50', () => {
    const f = ok(forecast(history, { stepMinutes: 1, origin: 5_000, horizonMinutes: 62 }));
    expect(f).toMatchObject({ origin: 5_000, stepMinutes: 5, historyDays: 8 });
    expect(f.point).toHaveLength(13);
    expect(f.point).toEqual(f.quantiles.p50);
    for (let k = 0; k < 13; k++) {
      const { p10, p50, p90, p99 } = f.quantiles;
      expect([p10[k]!, p50[k]!, p90[k]!, p99[k]!]).toEqual(
        [p10[k]!, p50[k]!, p90[k]!, p99[k]!].sort((a, b) => a - b),
      );
      expect(p10[k]!).toBeGreaterThanOrEqual(0);
    }
  });

  it('per-five-minute counts give the same forecast as the per-minute counts they sum', () => {
    const fives = Array.from({ length: history.length / 5 }, (_, i) =>
      history.slice(5 * i, 5 * i + 5).reduce((a, b) => a + b, 0),
    );
    const a = ok(forecast(history, { stepMinutes: 1, origin: 0 }));
    const b = ok(forecast(fives, { stepMinutes: 5, origin: 0 }));
    for (const [k, v] of b.point.entries()) expect(v).toBeCloseTo(a.point[k]!, 9);
  });

  it('days turn over at dayStartMinute: the same series on a clock 4 h ahead gives the same forecast', () => {
    const h = synthetic({ days: 12, weekendFactor: 0.6 }).slice(0, 11 * DAY + 1080);
    const local = ok(forecast(h, { stepMinutes: 1, origin: h.length }));
    const utc = ok(forecast(h, { stepMinutes: 1, origin: h.length + 240, dayStartMinute: 240 }));
    expect(utc.point).toEqual(local.point);
  });

  it('a wrong dayStartMinute (noon) misses the weekend that starts at midnight by more', () => {
    // Origin Friday 18:00; the next 48 h hold Friday night and the weekend.
    const o = { days: 12, weekendFactor: 0.6 };
    const h = synthetic(o).slice(0, 11 * DAY + 1080);
    const truth = truthBins(h.length, 576, o);
    const right = ok(forecast(h, { stepMinutes: 1, origin: h.length }));
    const wrong = ok(forecast(h, { stepMinutes: 1, origin: h.length, dayStartMinute: 720 }));
    expect(meanRelativeError(right.point, truth)).toBeLessThan(0.02);
    expect(meanRelativeError(wrong.point, truth)).toBeGreaterThan(meanRelativeError(right.point, truth));
  });

  it('24 h of history ending at noon counts its day back from the origin, and says so', () => {
    const h = synthetic({ days: 2 }).slice(720, 720 + DAY);
    const f = ok(forecast(h, { stepMinutes: 1, origin: 720 + DAY }));
    expect(f.historyDays).toBe(1);
    expect(f.notes.join(' ')).toMatch(/days counted back from the origin/);
  });

  it('is pure: the same input gives the same output and the history is not changed', () => {
    const copy = [...history];
    expect(forecast(history, { stepMinutes: 1, origin: 7 })).toEqual(
      forecast(history, { stepMinutes: 1, origin: 7 }),
    );
    expect(history).toEqual(copy);
  });

  it.each([
    {
      case: 'a negative count names its index',
      history: [1, 2, 3, 4, 5, -3],
      options: {},
      error: /history\[5\] is -3/,
    },
    {
      case: 'a 2-minute step names stepMinutes',
      history: [1],
      options: { stepMinutes: 2 },
      error: /options.stepMinutes must be 1/,
    },
    {
      case: 'a zero horizon names horizonMinutes',
      history: [1],
      options: { horizonMinutes: 0 },
      error: /options.horizonMinutes must be at least 5/,
    },
    {
      case: 'an infinite origin names origin',
      history: [1],
      options: { origin: Infinity },
      error: /options.origin/,
    },
  ])('bad input throws ForecastInputError: $case', ({ history: h, options, error }) => {
    const call = () => forecast(h, { stepMinutes: 1, origin: 0, ...options } as never);
    expect(call).toThrow(ForecastInputError);
    expect(call).toThrow(error);
  });
});
