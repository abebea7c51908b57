import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KEPT_RESIDUALS,
  keptMeasure,
  keptWidths,
  measure,
  mixed,
  slotWidths,
} from '#shared/forecast/widths.ts';
import { measureV1 } from './reference/widths-v1.ts';
import { normal, rng } from './synthetic.ts';

const P = 288;

/** Residuals of `days` days: noise, with repeats, zeros of both signs and gaps mixed in at `rate`. */
function residuals(days: number, seed: number, rate: number): Float64Array {
  const random = rng(seed);
  const draw = normal(random);
  const odd = [0, -0, Number.NaN, 0.25, -0.25, Number.POSITIVE_INFINITY];
  return Float64Array.from({ length: days * P }, () =>
    random() < rate ? odd[Math.floor(random() * odd.length)]! : 0.05 * draw(),
  );
}

describe('slot widths measured by selection and merged columns equal the sorted ones, bit for bit', () => {
  it('on random residuals with repeats, zeros of both signs and gaps, 1 to 16 days', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 0, max: 1e6 }),
        fc.constantFrom(0, 0.05, 0.5, 1),
        fc.boolean(),
        (days, seed, rate, withSlots) => {
          const e = residuals(days, seed, rate);
          expect(measure(e, days, withSlots)).toEqual(measureV1(e, days, withSlots));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('leaves the residuals as they were', () => {
    const e = residuals(14, 1, 0.05);
    const copy = e.slice();
    measure(e, 14, true);
    expect(e).toEqual(copy);
  });
});

describe('measures kept per residuals array', () => {
  const dayCounts = fc.integer({ min: 1, max: 16 });
  const seeds = fc.integer({ min: 0, max: 1e6 });
  it('the same measure and widths as made afresh, one object per residuals, days, slots and mix', () => {
    fc.assert(
      fc.property(dayCounts, seeds, fc.constantFrom(0, 0.5, 1), (days, seed, mix) => {
        const e = residuals(days, seed, 0.05);
        const fresh = mixed(measure(e, days, mix > 0), mix);
        const kept = slotWidths(e, days, mix);
        expect(kept).toEqual(fresh);
        expect(slotWidths(e, days, mix)).toBe(kept);
        const m = keptMeasure(e, days, true);
        expect(m).toEqual(measure(e, days, true));
        expect(keptMeasure(e, days, true)).toBe(m);
        expect(keptWidths(e, days, true, mix)).toEqual(mixed(m, mix));
        expect(keptWidths(e, days, true, mix)).toBe(keptWidths(e, days, true, mix));
      }),
      { numRuns: 60 },
    );
  });

  it('another array with the same values is measured afresh (kept by identity, never by value)', () => {
    const e = residuals(7, 3, 0.05);
    const again = e.slice();
    expect(keptMeasure(again, 7, true)).not.toBe(keptMeasure(e, 7, true));
    expect(keptMeasure(again, 7, true)).toEqual(keptMeasure(e, 7, true));
    // Days and withSlots are part of the key.
    expect(keptMeasure(e, 6, true)).not.toBe(keptMeasure(e, 7, true));
    expect(keptMeasure(e, 7, false).slots).toBeNull();
  });

  it('keeps the last KEPT_RESIDUALS arrays: an older one is measured afresh, a recent one is found', () => {
    const first = residuals(3, 5, 0.05);
    const kept = keptMeasure(first, 3, true);
    const others = Array.from({ length: KEPT_RESIDUALS - 1 }, (_, i) => residuals(3, 50 + i, 0.05));
    for (const e of others) keptMeasure(e, 3, true);
    expect(keptMeasure(first, 3, true)).toBe(kept);
    // first is now the most recent: KEPT_RESIDUALS new arrays push it out.
    for (let i = 0; i < KEPT_RESIDUALS; i++) keptMeasure(residuals(3, 500 + i, 0.05), 3, true);
    const again = keptMeasure(first, 3, true);
    expect(again).not.toBe(kept);
    expect(again).toEqual(kept);
  });
});
