import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PseudoForecast } from '#shared/forecast/blend.ts';
import { BLEND_WEIGHTS, blended, chooseBlend, seasonalAverage } from '#shared/forecast/blend.ts';
import { termsAt } from '#shared/forecast/correction.ts';
import { forecast } from '#shared/forecast/forecast.ts';
import { normal, rng, synthetic } from './synthetic.ts';

const P = 288;
const WEEK = 7 * P;
const CORRECTION = { window: 0, decay: 0, damping: 0.8 };
const TERMS = termsAt(new Float64Array(0), 0, { trend: 0, damping: 0.8, start: 0 });

/** A log series constant within each hour of the week (value: hour of the week / 100), `days` long. */
const hourOfWeek = (days: number) =>
  Float64Array.from({ length: days * P }, (_, t) => Math.floor((t % WEEK) / 12) / 100);

describe('the seasonal average is the mean of the same hour over every period before the cut', () => {
  it.each([
    { case: 'three weeks, weekly: each hour equals last week’s', days: 21, weekly: true },
    { case: 'five days, daily: each hour equals yesterday’s on a daily series', days: 5, weekly: false },
  ])('$case', ({ days, weekly }) => {
    const z = weekly
      ? hourOfWeek(days)
      : Float64Array.from({ length: days * P }, (_, t) => Math.floor((t % P) / 12) / 100);
    const cut = days * P - 36;
    const average = seasonalAverage(z, cut, 2 * P, weekly);
    const period = weekly ? WEEK : P;
    // Blocks are hours counted from the cut: with the cut 3 h before midnight they stay aligned.
    for (const k of [0, 11, 12, 100, 2 * P - 1]) {
      const source = cut + k - period * (Math.floor(k / period) + 1);
      expect(average[k]).toBeCloseTo(z[source]!, 9);
    }
  });

  it('an hour with no value before the cut, in any period, has no average', () => {
    const z = new Float64Array(8 * P).fill(Number.NaN);
    expect(seasonalAverage(z, 8 * P, 24, true).every(Number.isNaN)).toBe(true);
  });
});

describe('a centre pulled toward the average', () => {
  it.each([
    { case: 'weight 0 keeps the centre', centre: 1, average: 3, w: 0, expected: 1 },
    { case: 'weight 0.5 is halfway', centre: 1, average: 3, w: 0.5, expected: 2 },
    { case: 'no average keeps the centre', centre: 1, average: Number.NaN, w: 0.5, expected: 1 },
  ])('$case', ({ centre, average, w, expected }) => {
    expect(blended(centre, average, w)).toBe(expected);
  });
});

/** Pseudo-forecasts every 8 h over the last two days of z, each off by its own level error. */
function forecastsOf(z: Float64Array, offsets: readonly number[]): PseudoForecast[] {
  return offsets.map((offset, i) => {
    const cut = z.length - (i + 1) * 96;
    const base = Float64Array.from({ length: z.length - cut }, (_, k) => z[cut + k]! + offset);
    return { cut, base, terms: TERMS };
  });
}

describe('the weight of the average is chosen by the pseudo-origins’ errors', () => {
  const week = hourOfWeek(21);
  const doubled = week.map((v, t) => (t >= 18 * P ? v + 0.69 : v));
  it.each([
    { case: 'a model that was right: no pull', z: week, offsets: [0, 0, 0, 0, 0, 0], weight: 0 },
    {
      case: 'a week that repeats exactly and a model off by ±0.3 at each origin: the largest pull',
      z: week,
      offsets: [0.3, -0.3, 0.3, -0.3, 0.3, -0.3],
      weight: 0.5,
    },
    {
      case: 'a level that doubled three days ago and a model that has it: no pull',
      z: doubled,
      offsets: [0, 0, 0, 0, 0, 0],
      weight: 0,
    },
  ])('$case', ({ z, offsets, weight }) => {
    expect(chooseBlend(z, forecastsOf(z, offsets), CORRECTION, true).weight).toBe(weight);
  });

  it('the weight is one of the candidates, and 0 for forecasts that were exact (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
        (offsets) => {
          const { weight } = chooseBlend(week, forecastsOf(week, offsets), CORRECTION, true);
          expect(BLEND_WEIGHTS).toContain(weight);
          if (offsets.every((o) => o === 0)) expect(weight).toBe(0);
        },
      ),
      { numRuns: 30, seed: 17 },
    );
  });
});

describe('with a week of history and no refit, the band is measured on the in-sample residuals', () => {
  it('bursts at 09:30 every third day widen the p90 there and not at 15:00; the quantiles stay ordered', () => {
    const draw = normal(rng(3));
    const minutes = synthetic({ days: 7, noise: 0.05, seed: 4 }).map((v, m) =>
      Math.floor(m / 1440) % 3 === 0 && m % 1440 >= 570 && m % 1440 < 580
        ? Math.round(v * (2.5 + 0.3 * draw()))
        : v,
    );
    const result = forecast(minutes, { stepMinutes: 1, origin: minutes.length, horizonMinutes: 1440 });
    if (!result.ok) throw new Error(result.message);
    expect(result.residualSamples).toBe(0);
    const ratio = (k: number) => result.quantiles.p90[k]! / result.quantiles.p50[k]!;
    expect(ratio(114)).toBeGreaterThan(1.5 * ratio(180));
    const { p10, p50, p90, p99 } = result.quantiles;
    for (let k = 0; k < p50.length; k++)
      expect(p10[k]! <= p50[k]! && p50[k]! <= p90[k]! && p90[k]! <= p99[k]!).toBe(true);
  });
});
