import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { measure } from '#shared/forecast/widths.ts';
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
