import { describe, expect, it } from 'vitest';
import {
  median,
  normalQuantile,
  quantileOfSorted,
  robustCenter,
  robustScale,
  theilSen,
} from '#shared/forecast/stats.ts';

describe('robust statistics', () => {
  it.each([
    { case: 'an odd count gives the middle value', values: [5, 1, 3], want: 3 },
    { case: 'an even count gives the mean of the middle two', values: [10, 1, 3, 2], want: 2.5 },
    { case: 'missing values are skipped', values: [Number.NaN, 4, Number.POSITIVE_INFINITY, 2], want: 3 },
    { case: 'nothing present gives NaN', values: [Number.NaN], want: Number.NaN },
    { case: 'duplicates are handled', values: [2, 2, 2, 1, 2, 9], want: 2 },
  ])('median: $case', ({ values, want }) => {
    expect(median(values)).toEqual(want);
  });

  it('median leaves its input as it was', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it.each([
    { case: 'q 0.5 of [1, 2, 3, 10] interpolates to 2.5', q: 0.5, want: 2.5 },
    { case: 'q 0.9 of [1, 2, 3, 10] interpolates to 7.9', q: 0.9, want: 7.9 },
    { case: 'q 0 is the smallest', q: 0, want: 1 },
    { case: 'q 1 is the largest', q: 1, want: 10 },
  ])('quantileOfSorted: $case', ({ q, want }) => {
    expect(quantileOfSorted([1, 2, 3, 10], q)).toBeCloseTo(want, 12);
  });

  it.each([
    {
      case: 'two weeks agreeing on a rise keep the smaller (a flash crowd week is ignored)',
      values: [0.1, 1.4],
      want: 0.1,
    },
    { case: 'two weeks agreeing on a dip keep the smaller dip', values: [-0.3, -0.5], want: -0.3 },
    { case: 'two weeks disagreeing give 0', values: [0.2, -0.1], want: 0 },
    { case: 'one week is taken as it is', values: [0.25], want: 0.25 },
    { case: 'three or more give the median', values: [0.1, 1.4, 0.2], want: 0.2 },
    { case: 'none gives 0', values: [Number.NaN], want: 0 },
  ])('robustCenter: $case', ({ values, want }) => {
    expect(robustCenter(values)).toBeCloseTo(want, 12);
  });

  it('robustScale of a normal-like sample is near its standard deviation, and ignores one huge outlier', () => {
    const values = [-1.5, -1, -0.5, -0.2, 0, 0.2, 0.5, 1, 1.5, 1000];
    expect(robustScale(values)).toBeGreaterThan(0.5);
    expect(robustScale(values)).toBeLessThan(1.5);
  });

  it('theilSen finds the slope of a line through one outlier', () => {
    expect(theilSen([0, 1, 2, 30, 4, 5, 6])).toBeCloseTo(1, 12);
  });

  it.each([
    { p: 0.5, z: 0 },
    { p: 0.9, z: 1.2815516 },
    { p: 0.99, z: 2.3263479 },
    { p: 0.01, z: -2.3263479 },
    { p: 0.999, z: 3.0902323 },
  ])('normalQuantile($p) is $z', ({ p, z }) => {
    expect(normalQuantile(p)).toBeCloseTo(z, 6);
  });
});
