import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactFinite, orderStatistics, quantileInPlace, quantilesInPlace } from '#shared/forecast/sort.ts';
import { quantileOfSorted, sortedFinite } from '#shared/forecast/stats.ts';

/** Values as residuals hold them: repeats, zeros of both signs, gaps and infinities. */
const value = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: -5, max: 5 }) },
  { weight: 3, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  },
);
const series = fc.array(value, { maxLength: 300 });
const level = fc.oneof(
  fc.double({ min: -0.5, max: 1.5, noNaN: true }),
  fc.constantFrom(0, 0.1, 0.5, 0.9, 0.99, 1, Number.NaN, Number.POSITIVE_INFINITY),
);

describe('selection reads the values a sort would, bit for bit', () => {
  it('quantilesInPlace equals quantileOfSorted of sortedFinite at any levels, in any order', () => {
    fc.assert(
      fc.property(series, fc.array(level, { minLength: 1, maxLength: 6 }), (xs, qs) => {
        const sorted = sortedFinite(xs);
        const out = new Float64Array(qs.length);
        quantilesInPlace(Float64Array.from(xs), xs.length, qs, out);
        return qs.every((q, i) => Object.is(out[i], quantileOfSorted(sorted, q)));
      }),
      { numRuns: 3000 },
    );
  });

  it('quantileInPlace equals the sorted median on even and odd counts', () => {
    fc.assert(
      fc.property(series, (xs) =>
        Object.is(
          quantileInPlace(Float64Array.from(xs), xs.length, 0.5),
          quantileOfSorted(sortedFinite(xs), 0.5),
        ),
      ),
      { numRuns: 3000 },
    );
  });

  it('orderStatistics gives every rank of the sort, -0 before +0', () => {
    fc.assert(
      fc.property(series, (xs) => {
        const a = Float64Array.from(xs);
        const n = compactFinite(a, a.length);
        const sorted = sortedFinite(xs);
        const ranks = Int32Array.from({ length: n }, (_, k) => k);
        const out = new Float64Array(n);
        orderStatistics(a, n, ranks, out);
        return out.every((v, k) => Object.is(v, sorted[k]));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    { case: 'a zero is +0 whatever the signs of the zeros, as sorted', values: [0, 0, -0, 0], q: 0, want: 0 },
    { case: 'the +0 after the -0s', values: [-0, 0, -0, 1], q: 2 / 3, want: 0 },
    {
      case: 'nothing finite gives NaN',
      values: [Number.NaN, Number.POSITIVE_INFINITY],
      q: 0.5,
      want: Number.NaN,
    },
    { case: 'the mean of the middle two', values: [10, 1, 3, 2], q: 0.5, want: 2.5 },
  ])('$case', ({ values, q, want }) => {
    expect(Object.is(quantileInPlace(Float64Array.from(values), values.length, q), want)).toBe(true);
  });
});
