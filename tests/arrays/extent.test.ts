import { describe, expect, it } from 'vitest';
import { appendAll, maxOf, minOf } from '#shared/arrays/extent.ts';

describe('maxOf and minOf: Math.max and Math.min of an array of any length', () => {
  it.each([
    { case: 'a few values', values: [3, 9, -2], max: 9, min: -2 },
    {
      case: 'nothing: the empty value',
      values: [],
      max: Number.NEGATIVE_INFINITY,
      min: Number.POSITIVE_INFINITY,
    },
    { case: 'a NaN wins, as in Math.max', values: [1, Number.NaN, 5], max: Number.NaN, min: Number.NaN },
  ])('$case', ({ values, max, min }) => {
    expect(maxOf(values)).toBe(max);
    expect(minOf(values)).toBe(min);
    expect(maxOf(values)).toBe(Math.max(...values));
  });

  it('takes a starting value as Math.max(0, ...values) does', () => {
    expect(maxOf([], 0)).toBe(0);
    expect(maxOf([-5, -1], 0)).toBe(0);
    expect(minOf([4, 7], 0.5)).toBe(0.5);
  });

  it('takes a year of minutes (525,600), past the ~125,000 arguments a spread can pass', () => {
    const year = Float64Array.from({ length: 525_600 }, (_, m) => m % 1440);
    expect(maxOf(year)).toBe(1439);
    expect(minOf(year)).toBe(0);
    const into = [1];
    expect(appendAll(into, year).length).toBe(525_601);
  });
});
