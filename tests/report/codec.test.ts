import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseDecimals, decodeSeries, encodeSeries } from '#shared/report/codec.ts';

const roundTrip = (values: number[]) => Array.from(decodeSeries(encodeSeries(values)));

describe('encodeSeries and decodeSeries', () => {
  it.each([
    { case: 'an empty series stays empty', values: [] },
    { case: 'one value comes back', values: [7] },
    { case: 'a flat capacity series comes back', values: [12, 12, 12, 12, 12] },
    { case: 'a linear ramp (a run of equal deltas) comes back', values: [1, 2, 3, 4, 5, 6] },
    { case: 'zeros and jumps come back', values: [0, 0, 80, 0, 1, 1, 40] },
    { case: 'negative values come back', values: [-3, -3, 5, -700] },
    { case: 'counts beyond 2^31 come back exactly', values: [2 ** 40, 2 ** 40 + 1, 3] },
  ])('$case', ({ values }) => {
    expect(roundTrip(values)).toEqual(values);
  });

  it('returns whole numbers exactly, whatever the sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e9, max: 1e9 }), { maxLength: 300 }), (values) => {
        expect(roundTrip(values)).toEqual(values);
      }),
    );
  });

  it('returns fractional values within half a unit of the last kept decimal', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 5000, noNaN: true }), { minLength: 1, maxLength: 200 }),
        (values) => {
          const decimals = encodeSeries(values).decimals;
          const back = roundTrip(values);
          for (const [i, v] of values.entries()) {
            expect(Math.abs(back[i]! - v)).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9);
          }
        },
      ),
    );
  });

  it.each([
    { case: 'a series of whole numbers keeps 0 decimals', values: [1, 40, 3], decimals: 0 },
    { case: 'a forecast peaking at 512 keeps 0 decimals (1 req/min)', values: [100.4, 512.2], decimals: 0 },
    { case: 'a forecast peaking at 42.5 keeps 1 decimal', values: [1.25, 42.5], decimals: 1 },
    { case: 'a forecast peaking at 4.2 keeps 2 decimals', values: [0.5, 4.2], decimals: 2 },
    { case: 'tiny values keep at most 6 decimals', values: [1e-9, 2e-9], decimals: 6 },
  ])('$case', ({ values, decimals }) => {
    expect(chooseDecimals(values)).toBe(decimals);
  });

  it.each([
    { case: 'NaN', value: Number.NaN },
    { case: 'Infinity', value: Number.POSITIVE_INFINITY },
  ])('rejects $case with the index of the value', ({ value }) => {
    expect(() => encodeSeries([1, 2, value])).toThrow(/index 2/);
  });

  it('keeps a flat 40,000-minute capacity series under 10 bytes and a noisy demand near a byte a minute', () => {
    const flat = encodeSeries(new Array(40_000).fill(12));
    const demand = Array.from({ length: 40_000 }, (_, m) =>
      Math.round(200 + 150 * Math.sin(m / 229) + 10 * Math.sin(m * 1.7)),
    );
    const noisy = encodeSeries(demand);
    expect(flat.data.length).toBeLessThan(10);
    expect(noisy.data.length / 40_000).toBeLessThan(1.5);
    expect(roundTrip(demand)).toEqual(demand);
  });

  it('rejects a payload whose length does not match its data', () => {
    expect(() => decodeSeries({ ...encodeSeries([1, 2, 3]), length: 4 })).toThrow(
      /decoded 3 values; the series says 4/,
    );
  });
});
