import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Forecast } from '#shared/forecast/types.ts';
import {
  burstIncreases,
  coveredQuantile,
  leadTimeSpread,
  sizeWarmPool,
  type WarmPoolInput,
} from '#shared/sizing/warm-pool.ts';

/** The reference scenario: cold 8 min, warm 1 min, idle at 5 %, 10 requests per minute per instance. */
const base: WarmPoolInput = {
  forecastSpread: 0,
  burstIncreases: [],
  instanceCapacity: 10,
  coldStartMinutes: 8,
  warmStartMinutes: 1,
  maxPool: 20,
};
const oneToHundred = Array.from({ length: 100 }, (_, i) => i + 1);

describe('warm-pool sizing', () => {
  it('covers the p94.3 rise in the reference scenario: 1 - 0.05 x 8 / (1 x 7)', () => {
    expect(coveredQuantile(8, 1, 0.05, 1)).toBeCloseTo(1 - 0.4 / 7, 12);
  });

  it.each([
    {
      case: 'no spread and no bursts keeps none',
      input: {},
      size: 0,
      reasons: ['NoUncertainty'],
    },
    {
      case: 'no spread and no bursts keeps the configured minimum',
      input: { minPool: 2 },
      size: 2,
      reasons: ['NoUncertainty', 'RaisedToMin'],
    },
    {
      // 30 x z(0.9429) / z(0.99) = 30 x 1.5805 / 2.3263 = 20.4 req/min: 2.04 instances, so 3.
      case: 'a p99 - p50 spread of 30 req/min keeps 3 instances of 10',
      input: { forecastSpread: 30 },
      size: 3,
      reasons: ['CoversForecastSpread'],
    },
    {
      // Rises 1..100 req/min: the p94.3 is 94.3, 9.43 instances, so 10.
      case: 'bursts of 1 to 100 req/min keep 10 instances',
      input: { burstIncreases: oneToHundred },
      size: 10,
      reasons: ['CoversBursts'],
    },
    {
      case: 'falls in the burst history (negative rises) count as no rise',
      input: { burstIncreases: [-50, -20, -10, 0] },
      size: 0,
      reasons: ['NoUncertainty'],
    },
    {
      case: 'the operator maximum wins',
      input: { burstIncreases: oneToHundred, maxPool: 4 },
      size: 4,
      reasons: ['CoversBursts', 'ClampedToMax'],
    },
    {
      case: 'a warm start no faster than a cold one keeps only the minimum',
      input: { forecastSpread: 300, warmStartMinutes: 8, minPool: 1 },
      size: 1,
      reasons: ['NoStartupGain'],
    },
  ])('$case', ({ input, size, reasons }) => {
    const decision = sizeWarmPool({ ...base, ...input });
    expect(decision.size).toBe(size);
    expect(decision.reasons).toEqual(reasons);
    expect(decision.message).toMatch(new RegExp(`^keep ${size} warm`));
  });

  it('explains itself in one sentence with the numbers', () => {
    expect(sizeWarmPool({ ...base, forecastSpread: 30 }).message).toBe(
      'keep 3 warm: forecast uncertainty of 20 req/min at p94.3 need 2.04 instances of 10 req/min; one idles at 5 % of its price and saves 7 min of start-up',
    );
  });

  it('a costlier shortfall covers a higher quantile and keeps more', () => {
    // p94.3: 100 x 1.58 / 2.33 = 68 req/min, 7 instances; p98.6: 100 x 2.19 / 2.33 = 94, 10.
    const cheap = sizeWarmPool({ ...base, forecastSpread: 100 });
    const dear = sizeWarmPool({ ...base, forecastSpread: 100, shortfallCostRatio: 4 });
    expect(dear.quantile).toBeGreaterThan(cheap.quantile);
    expect([cheap.size, dear.size]).toEqual([7, 10]);
  });

  it.each([
    { case: 'a zero instance capacity', input: { instanceCapacity: 0 }, error: /warm pool instanceCapacity/ },
    {
      case: 'a minimum above the maximum',
      input: { minPool: 5, maxPool: 2 },
      error: /minPool must not exceed maxPool/,
    },
    { case: 'a negative spread', input: { forecastSpread: -1 }, error: /warm pool forecastSpread/ },
  ])('rejects $case with a message naming the field', ({ input, error }) => {
    expect(() => sizeWarmPool({ ...base, ...input })).toThrow(error);
  });
});

describe('warm-pool sizing properties', () => {
  const inputs = fc.record({
    forecastSpread: fc.double({ min: 0, max: 1000, noNaN: true }),
    burstIncreases: fc.array(fc.double({ min: -100, max: 1000, noNaN: true }), { maxLength: 50 }),
    instanceCapacity: fc.double({ min: 0.1, max: 100, noNaN: true }),
    coldStartMinutes: fc.integer({ min: 0, max: 20 }),
    warmStartMinutes: fc.integer({ min: 0, max: 5 }),
    idleCostFraction: fc.double({ min: 0.01, max: 1, noNaN: true }),
    shortfallCostRatio: fc.double({ min: 0.1, max: 10, noNaN: true }),
    minPool: fc.integer({ min: 0, max: 5 }),
    maxPool: fc.integer({ min: 5, max: 50 }),
  });

  it('more forecast spread never gives a smaller pool', () => {
    fc.assert(
      fc.property(inputs, fc.double({ min: 0, max: 1000, noNaN: true }), (input, extra) => {
        const more = { ...input, forecastSpread: input.forecastSpread + extra };
        expect(sizeWarmPool(more).size).toBeGreaterThanOrEqual(sizeWarmPool(input).size);
      }),
    );
  });

  it('larger bursts never give a smaller pool', () => {
    fc.assert(
      fc.property(inputs, fc.double({ min: 1, max: 10, noNaN: true }), (input, factor) => {
        const more = { ...input, burstIncreases: input.burstIncreases.map((x) => (x > 0 ? x * factor : x)) };
        expect(sizeWarmPool(more).size).toBeGreaterThanOrEqual(sizeWarmPool(input).size);
      }),
    );
  });

  it('the pool stays within [minPool, maxPool]', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const { size } = sizeWarmPool(input);
        expect(size).toBeGreaterThanOrEqual(input.minPool);
        expect(size).toBeLessThanOrEqual(input.maxPool);
        expect(Number.isInteger(size)).toBe(true);
      }),
    );
  });

  it('zero spread and no bursts give the configured minimum', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        expect(sizeWarmPool({ ...input, forecastSpread: 0, burstIncreases: [] }).size).toBe(input.minPool);
      }),
    );
  });
});

describe('inputs to the sizing', () => {
  it('burstIncreases: [10, 10, 10, 30, 10] over 2-minute windows rises 20 at minutes 1 and 2', () => {
    expect(burstIncreases([10, 10, 10, 30, 10], 2)).toEqual([20, 20]);
  });

  it('burstIncreases skips missing minutes and rejects a window under 1', () => {
    expect(burstIncreases([10, Number.NaN, 10, 40, 10], 1)).toEqual([30, -30]);
    expect(() => burstIncreases([1, 2, 3], 0)).toThrow(/windowMinutes must be at least 1/);
  });

  it('leadTimeSpread takes the largest p99 - p50 over the steps that start within the lead time', () => {
    const f = {
      stepMinutes: 5,
      point: [10, 10, 10, 10],
      quantiles: { p10: [], p50: [10, 10, 10, 10], p90: [], p99: [12, 15, 30, 90] },
    } as unknown as Forecast;
    expect(leadTimeSpread(f, 10)).toBe(5);
    expect(leadTimeSpread(f, 11)).toBe(20);
    expect(leadTimeSpread(f, 0)).toBe(2);
  });
});
