import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTrace } from '#shared/backtest/trace.ts';
import { ForecastInputError } from '#shared/forecast/types.ts';
import { ec2Style, naiveWithQuantiles, seasonalNaive } from '#shared/forecast-accuracy/baselines.ts';
import { evaluateForecasts } from '#shared/forecast-accuracy/evaluate.ts';
import { accumulate, emptyTotals, finish, pinball } from '#shared/forecast-accuracy/metrics.ts';
import { synthetic } from './synthetic.ts';

const P = 288;

describe('scores', () => {
  it.each([
    { case: 'a p90 of 100 when 120 arrives costs 0.9 x 20', q: 0.9, y: 120, f: 100, want: 18 },
    { case: 'a p90 of 100 when 80 arrives costs 0.1 x 20', q: 0.9, y: 80, f: 100, want: 2 },
    { case: 'a p50 costs half the absolute error either way', q: 0.5, y: 80, f: 100, want: 10 },
  ])('pinball: $case', ({ q, y, f, want }) => {
    expect(pinball(q, y, f)).toBeCloseTo(want, 12);
  });

  it('MAPE skips steps under 1 request per minute; coverage counts steps at or under p90; missing steps are skipped', () => {
    const totals = emptyTotals();
    accumulate(totals, [10, 0.5, 20, Number.NaN], {
      point: [12, 50, 20, 1],
      p50: [12, 50, 20, 1],
      p90: [15, 60, 19, 1],
    });
    const s = finish(totals);
    expect(s.steps).toBe(3);
    expect(s.mape).toBeCloseTo(10, 12); // (20 % + 0 %) / 2
    expect(s.coverageP90).toBeCloseTo(2 / 3, 12);
  });
});

describe('baselines', () => {
  const rates = Float64Array.from({ length: 3 * P }, (_, i) => i);

  it('seasonal naive repeats the bin one period back, and past one period, two (never unseen data)', () => {
    const f = seasonalNaive(rates, 2 * P, P + 2, P);
    expect([f[0], f[P - 1], f[P], f[P + 1]]).toEqual([P, 2 * P - 1, P, P + 1]);
  });

  it('seasonal naive steps one more period back over a missing bin', () => {
    const gappy = rates.slice();
    gappy[P + 5] = Number.NaN;
    expect(seasonalNaive(gappy, 2 * P, 6, P)[5]).toBe(5);
  });

  it('EC2-style holds each hour flat at the mean of the same hour on the days it has', () => {
    // Two days: the hour from 01:00 is 10 then 30; its forecast is 20 for all 12 bins.
    const two = new Float64Array(2 * P).fill(1);
    two.fill(10, 12, 24);
    two.fill(30, P + 12, P + 24);
    const f = ec2Style(two, 2 * P, 48);
    expect(Array.from(f.point.slice(12, 24))).toEqual(new Array(12).fill(20));
    expect(f.p90).toBe(f.point);
  });

  it('EC2-style needs 24 hours of history: with less it forecasts nothing (NaN)', () => {
    expect(Number.isNaN(ec2Style(new Float64Array(P - 12).fill(5), P - 12, 12).point[0]!)).toBe(true);
  });

  it('naive with quantiles puts its p90 above its point on noisy data', () => {
    const noisy = Float64Array.from(synthetic({ days: 3, noise: 0.3 }).filter((_, m) => m % 5 === 0));
    const f = naiveWithQuantiles(noisy, 2 * P, P, P, 2 * P);
    for (let k = 0; k < P; k++) expect(f.p90[k]!).toBeGreaterThan(f.p50[k]!);
  });
});

describe('rolling-origin evaluation', () => {
  it('on a clean seasonal trace scores every method at every origin, and Governor beats naive by over 20 % at p90', () => {
    const minutes = synthetic({ days: 10, weekendFactor: 0.6, noise: 0.2 });
    const e = evaluateForecasts(minutes, { historyDays: 7, horizonHours: 6 });
    // Origins every 6 h from day 7 while 6 h still fit: days 7 to 9.75.
    expect(e.origins).toBe(12);
    expect(e.methods.map((m) => m.id)).toEqual([
      'governor',
      'naive-day',
      'naive-week',
      'naive-day-q',
      'naive-week-q',
      'ec2-style',
    ]);
    for (const m of e.methods) expect(m.steps).toBe(12 * 72);
    expect(e.p90GainVsBestNaive).toBeGreaterThan(0.2);
    expect(e.governorModels).toEqual({ weekly: 12 });
    expect(e.governorFallbacks).toEqual({});
  });

  it.each([
    {
      case: 'history of 0 days',
      options: { historyDays: 0, horizonHours: 6 },
      error: /historyDays must be a whole number from 1 to 28/,
    },
    {
      case: 'a 49-hour horizon',
      options: { historyDays: 7, horizonHours: 49 },
      error: /horizonHours must be a whole number from 1 to 48/,
    },
    {
      case: 'a trace shorter than a week plus the horizon',
      options: { historyDays: 3, horizonHours: 48 },
      error: /evaluating needs 9.0 days/,
    },
  ])('rejects $case', ({ options, error }) => {
    const call = () => evaluateForecasts(synthetic({ days: 8 }), options);
    expect(call).toThrow(ForecastInputError);
    expect(call).toThrow(error);
  });

  it('on the NASA trace, Governor p90 pinball loss is at least 20 % below the best naive baseline', () => {
    const trace = parseTrace(readFileSync('traces/nasa_http_1995_jul_per_minute.csv', 'utf8'), 'nasa');
    const e = evaluateForecasts(trace.requests, { historyDays: 14, horizonHours: 48 });
    expect(e.p90GainVsBestNaive).toBeGreaterThanOrEqual(0.2);
    const governor = e.methods.find((m) => m.id === 'governor')!;
    expect(governor.coverageP90).toBeGreaterThan(0.85);
  });
});
