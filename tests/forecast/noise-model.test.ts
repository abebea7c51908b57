import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32, poisson } from '#shared/backtest/noise.ts';
import {
  fitLevelNoise,
  fitNoise,
  noiseSd,
  noisyDemand,
  relativeNoise,
  rescaleNoise,
  trailingMedians,
} from '#shared/sizing/noise-model.ts';

/** Minutes of Poisson counts around a level that walks from `from` to `to`. */
function poissonDay(from: number, to: number, minutes: number, seed: number): number[] {
  const random = mulberry32(seed);
  return Array.from({ length: minutes }, (_, m) => poisson(from + ((to - from) * m) / minutes, random));
}

describe('fitNoise: variance = a x level + b x level^2, fitted robustly', () => {
  it('finds count noise in Poisson counts: a near 1, b near 0 (a level of 100 wobbles by about 10)', () => {
    const demand = poissonDay(20, 400, 2880, 7);
    const model = fitLevelNoise(demand, 15)!;
    expect(model.samples).toBeGreaterThan(2800);
    expect(noiseSd(model, 100)).toBeGreaterThan(8.5);
    expect(noiseSd(model, 100)).toBeLessThan(12.5);
    expect(noisyDemand(model, 100, 2.33)).toBeGreaterThan(119);
    expect(noisyDemand(model, 100, 2.33)).toBeLessThan(130);
  });

  it('finds proportional noise in a 5 % wobble at every volume: relative noise near 0.05 at 100 and at 10,000', () => {
    const random = mulberry32(3);
    const levels = Array.from({ length: 1200 }, (_, m) => 100 * 100 ** (m / 1200));
    const actuals = levels.map(
      (l) => l * (1 + 0.05 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())),
    );
    const model = fitNoise(levels, actuals)!;
    for (const level of [100, 10_000]) {
      expect(relativeNoise(model, level)).toBeGreaterThan(0.04);
      expect(relativeNoise(model, level)).toBeLessThan(0.06);
    }
  });

  it('is barely widened by spikes: a tenth of the minutes at 3x the level move it under 25 % (a plain standard deviation, over 8x)', () => {
    const calm = poissonDay(200, 200, 2000, 11);
    const spiky = calm.map((x, m) => (m % 10 === 0 ? 3 * x : x));
    const a = noiseSd(fitLevelNoise(calm, 15)!, 200);
    const b = noiseSd(fitLevelNoise(spiky, 15)!, 200);
    expect(b / a).toBeLessThan(1.25);
    const sd = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + (x - 200) ** 2, 0) / xs.length);
    expect(sd(spiky) / sd(calm)).toBeGreaterThan(8);
  });

  it('needs 20 minutes with a level: fewer give null, not a guess', () => {
    expect(
      fitLevelNoise(
        [5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6, 7, 5, 6],
        15,
      ),
    ).toBeNull();
    expect(fitNoise([], [])).toBeNull();
    expect(fitNoise([0, 0, 0], [1, 2, 3])).toBeNull();
  });

  it('never returns a negative term, whatever the minutes', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 5000 }), { minLength: 0, maxLength: 200 }), (demand) => {
        const m = fitLevelNoise(demand, 5);
        if (m) {
          expect(m.a).toBeGreaterThanOrEqual(0);
          expect(m.b).toBeGreaterThanOrEqual(0);
          expect(Number.isFinite(m.a) && Number.isFinite(m.b)).toBe(true);
        }
      }),
    );
  });
});

describe('trailingMedians', () => {
  it('is the median of the window before each minute, NaN until the window is full and after a gap', () => {
    const out = trailingMedians([1, 9, 5, 7, Number.NaN, 2, 4, 6, 8], 3);
    expect([...out].map((x) => (Number.isNaN(x) ? null : x))).toEqual([
      null,
      null,
      null,
      5,
      7,
      null,
      null,
      null,
      4,
    ]);
  });
});

describe('units', () => {
  it('rescaleNoise keeps the model true in a unit k times larger: Var(kX) = k a (k l) + b (k l)^2', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 0.1, noNaN: true }),
        fc.double({ min: 0.1, max: 20, noNaN: true }),
        fc.double({ min: 1, max: 10_000, noNaN: true }),
        (a, b, k, level) => {
          const m = { a, b, samples: 100 };
          expect(noiseSd(rescaleNoise(m, k), k * level)).toBeCloseTo(k * noiseSd(m, level), 6);
        },
      ),
    );
  });

  it('relative noise is 0 at a level of 0 rather than a division by zero', () => {
    expect(relativeNoise({ a: 1, b: 0, samples: 10 }, 0)).toBe(0);
  });
});
