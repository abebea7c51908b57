import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTrace } from '#shared/backtest/trace.ts';
import { mergeSorted, sortFloat64 } from '#shared/forecast/sort.ts';
import { sortedFinite } from '#shared/forecast/stats.ts';
import { fitLevelNoise, fitNoise, type NoiseModel, trailingMedians } from '#shared/sizing/noise-model.ts';
import { TrailingMedian } from '#shared/sizing/rolling-median.ts';
import { fitNoiseV1, sortedFiniteV1, trailingMediansV1 } from './reference/hot-paths-v1.ts';

/** Equal bit for bit: same length, and Object.is per value (so -0 differs from +0, NaN equals NaN). */
function sameBits(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function sameModel(a: NoiseModel | null, b: NoiseModel | null): boolean {
  if (a === null || b === null) return a === b;
  return Object.is(a.a, b.a) && Object.is(a.b, b.b) && a.samples === b.samples;
}

/** Values as traces and residuals hold them: repeats, zeros of both signs, gaps. */
const value = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 60 }) },
  { weight: 3, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  },
);
const series = fc.array(value, { maxLength: 400 });

describe('hot paths: the new code gives the old results bit for bit', () => {
  it('sortedFinite orders as the native typed-array sort did, -0 before +0, on any values', () => {
    fc.assert(
      fc.property(series, (xs) => sameBits(sortedFinite(xs), sortedFiniteV1(xs))),
      { numRuns: 2000 },
    );
  });

  it.each([
    { case: 'ascending', make: (i: number) => i },
    { case: 'descending', make: (i: number) => -i },
    { case: 'all equal', make: () => 7 },
    { case: 'zeros of both signs', make: (i: number) => (i % 3 ? 0 : -0) },
    { case: 'organ pipe', make: (i: number) => Math.min(i, 5000 - i) },
    { case: 'sawtooth', make: (i: number) => i % 17 },
  ])('sortFloat64 sorts 5,000 values $case as the native sort does', ({ make }) => {
    const a = Float64Array.from({ length: 5000 }, (_, i) => make(i));
    const b = a.slice();
    sortFloat64(a);
    expect(sameBits(a, b.sort())).toBe(true);
  });

  it('mergeSorted of two sorted arrays equals sorting them together, -0 before +0, on any values', () => {
    const finite = series.map((xs) => Float64Array.from(xs.filter(Number.isFinite)).sort());
    fc.assert(
      fc.property(finite, finite, (a, b) => {
        const both = new Float64Array(a.length + b.length);
        both.set(a);
        both.set(b, a.length);
        return sameBits(mergeSorted(a, b), both.sort());
      }),
      { numRuns: 2000 },
    );
  });

  it('trailingMedians equals the linear splice version on any series and window', () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 0, max: 40 }), (xs, w) =>
        sameBits(trailingMedians(xs, w), trailingMediansV1(xs, w)),
      ),
      { numRuns: 2000 },
    );
  });

  /**
   * The same levels, but for the sign of a zero: a window that takes -0 in for +0 out keeps +0
   * (trailingMedians' rule), so a level of 0 can depend on where the window started
   * ([0, 0, 0, 0, -0, 0, 0] at window 1: -0 from a slice starting at the -0, +0 kept through it).
   * fitNoise reads only levels above 0, so that sign never reaches a fit (checked below).
   */
  const sameLevels = (a: ArrayLike<number>, b: ArrayLike<number>) =>
    a.length === b.length && Array.from(a).every((x, i) => Object.is(x, b[i]) || (x === 0 && b[i] === 0));

  it("levels kept as minutes arrive, sliced at any start, are the slice's own trailing medians, and fit the same noise (the look-ahead's refits)", () => {
    fc.assert(
      fc.property(series, fc.integer({ min: 0, max: 40 }), fc.nat(), (xs, w, cut) => {
        const rolling = new TrailingMedian(w);
        const kept = xs.map((x) => rolling.next(x));
        const from = xs.length === 0 ? 0 : cut % xs.length;
        const levels = Float64Array.from(kept.slice(from));
        levels.fill(Number.NaN, 0, Math.min(levels.length, w));
        const slice = xs.slice(from);
        return (
          sameLevels(levels, trailingMedians(slice, w)) &&
          sameModel(fitLevelNoise(slice, w, levels), fitLevelNoise(slice, w))
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('a zero level may differ in sign from where the window started, and fits the same', () => {
    const xs = [0, 0, 0, 0, -0, 0, 0];
    const rolling = new TrailingMedian(1);
    const kept = Float64Array.from(xs.map((x) => rolling.next(x)).slice(4));
    kept[0] = Number.NaN;
    const own = trailingMedians(xs.slice(4), 1);
    expect([Object.is(kept[1], 0), Object.is(own[1], -0)]).toEqual([true, true]);
    expect(sameLevels(kept, own)).toBe(true);
    expect(fitLevelNoise(xs.slice(4), 1, kept)).toEqual(fitLevelNoise(xs.slice(4), 1));
  });

  it('the noise fitted from kept levels is fitLevelNoise of the history', () => {
    const history = Array.from({ length: 600 }, (_, m) => 200 + 80 * Math.sin(m / 50) + ((m * 7919) % 23));
    const rolling = new TrailingMedian(15);
    const kept = Float64Array.from([...history, 0].map((x) => rolling.next(x))).subarray(0, history.length);
    const levels = Float64Array.from(kept.subarray(120));
    levels.fill(Number.NaN, 0, 15);
    expect(fitLevelNoise(history.slice(120), 15, levels)).toEqual(fitLevelNoise(history.slice(120), 15));
    expect(fitNoise(trailingMedians(history.slice(120), 15), history.slice(120))).toEqual(
      fitLevelNoise(history.slice(120), 15),
    );
  });

  /** fitNoise and the sorted-pairs version agree on every (level, actual) list of `pairs`. */
  const fitsAsBefore = (pairs: fc.Arbitrary<[number, number][]>, numRuns: number) =>
    fc.assert(
      fc.property(pairs, (ps) => {
        const levels = ps.map((p) => p[0]);
        const actuals = ps.map((p) => p[1]);
        return sameModel(fitNoise(levels, actuals), fitNoiseV1(levels, actuals));
      }),
      { numRuns },
    );

  it('fitNoise equals the sorted-pairs version on any levels and actuals', () => {
    const level = fc.oneof(
      fc.integer({ min: -2, max: 40 }),
      fc.double({ min: -10, max: 1e6, noNaN: true }),
      value,
    );
    fitsAsBefore(fc.array(fc.tuple(level, value), { maxLength: 400 }), 2000);
  });

  it('fitNoise equals the sorted-pairs version with up to six bins and equal levels across their edges', () => {
    const level = fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constantFrom(0.5, 2.5, 0, Number.NaN));
    fitsAsBefore(fc.array(fc.tuple(level, value), { minLength: 20, maxLength: 700 }), 1000);
  });
});

describe('hot paths on every bundled trace: the same levels and noise fits as before', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const files = readdirSync(join(root, 'traces')).filter((f) => f.endsWith('.csv'));
  const traces = files.map((file) => {
    const path = join('traces', file);
    return { file, requests: parseTrace(readFileSync(join(root, path), 'utf8'), path).requests };
  });

  it.each(traces)('$file: trailing medians at windows 3, 15, 60 and 120', ({ requests }) => {
    for (const w of [3, 15, 60, 120])
      expect(sameBits(trailingMedians(requests, w), trailingMediansV1(requests, w))).toBe(true);
  });

  // As the backtest refits: every hour, on the last two days of minutes, at the default 15-minute
  // level; the schema's extremes (3 and 120) once a day, which keeps the old code's ~2 ms a fit
  // under 10 s here.
  it.each(traces)(
    '$file: the hourly noise refit at every hour (and levels of 3 and 120 daily)',
    ({ requests }) => {
      let fits = 0;
      for (let end = 60; end <= requests.length; end += 60) {
        const history = requests.slice(Math.max(0, end - 2880), end);
        for (const w of end % 1440 === 0 ? [3, 15, 120] : [15]) {
          expect(
            sameModel(fitLevelNoise(history, w), fitNoiseV1(trailingMediansV1(history, w), history)),
          ).toBe(true);
          fits++;
        }
      }
      expect(fits).toBe(Math.floor(requests.length / 60) + 2 * Math.floor(requests.length / 1440));
    },
  );
});
