import { describe, expect, it } from 'vitest';
import { chooseShape, crossCalibrated, type Errors } from '#shared/forecast/band.ts';
import { widthAt } from '#shared/forecast/widths.ts';
import { normal, rng } from './synthetic.ts';

const P = 288;

/**
 * Log residuals over `days` days (5 % noise), with a burst of +1.2 (x3.3) at slots `at` on
 * each day where `bursty(day)` holds; and the pseudo-origins' errors over the last two days.
 */
function residualsWith(days: number, at: (day: number) => number[], seed: number) {
  const draw = normal(rng(seed));
  const e = new Float64Array(days * P);
  for (let d = 0; d < days; d++) {
    for (let s = 0; s < P; s++) e[d * P + s] = 0.05 * draw();
    for (const s of at(d)) e[d * P + s]! += 1.2;
  }
  const recent = Array.from({ length: 2 * P }, (_, i) => (days - 2) * P + i);
  const errors: Errors = {
    errors: Float64Array.from(recent, (t) => e[t]! + 0.02 * draw()),
    slots: Int32Array.from(recent, (t) => t % P),
    origins: Int32Array.from(recent, (_, i) => Math.floor(i / 96)),
  };
  return { e, errors: [errors] };
}

describe('the band is shaped by the slot of the day only when the shape recurs', () => {
  it('bursts at 09:30 and 09:35 on two days in three: the slot widths are kept and the burst slots are widest', () => {
    const { e, errors } = residualsWith(14, (d) => (d % 3 !== 2 ? [114, 115] : []), 1);
    const widths = chooseShape(e, 14, errors);
    expect(widths.mix).toBeGreaterThan(0);
    expect(widthAt(widths, 0.9, 114)).toBeGreaterThan(5 * widthAt(widths, 0.9, 200));
  });

  it('bursts at a random slot each day (flash crowds): the band stays flat', () => {
    const random = rng(5);
    const { e, errors } = residualsWith(14, () => [Math.floor(random() * P)], 2);
    expect(chooseShape(e, 14, errors).mix).toBe(0);
  });
});

describe('cross-calibration over pseudo-origins', () => {
  /** Scores of 6 origins, 200 each: standard normal plus an offset per origin. */
  function scores(offsets: number[], seed: number) {
    const draw = normal(rng(seed));
    const norm = new Float64Array(offsets.length * 200);
    const origins = new Int32Array(norm.length);
    for (let i = 0; i < norm.length; i++) {
      origins[i] = Math.floor(i / 200);
      norm[i] = draw() + offsets[origins[i]!]!;
    }
    return { norm, origins };
  }

  it.each([
    {
      case: 'origins that agree keep the level (p90 stays about p90)',
      offsets: [0, 0, 0, 0, 0, 0],
      min: 0.9,
      max: 0.92,
    },
    {
      case: 'origins whose level differs raise it (p90 read at p93 or more)',
      offsets: [-1, 1, -0.5, 0.5, 1.5, -1.5],
      min: 0.93,
      max: 0.95,
    },
  ])('$case', ({ offsets, min, max }) => {
    const { norm, origins } = scores(offsets, 11);
    const level = crossCalibrated(norm, origins, 0.9);
    expect(level).toBeGreaterThanOrEqual(min - 1e-9);
    expect(level).toBeLessThanOrEqual(max + 1e-9);
  });

  it('the level never goes past halfway to 1 (p95 for a p90), nor moves with fewer than three origins', () => {
    const wild = scores([-5, 5, -4, 4, 6, -6], 12);
    expect(crossCalibrated(wild.norm, wild.origins, 0.9)).toBeCloseTo(0.95, 9);
    const two = scores([-5, 5], 13);
    expect(crossCalibrated(two.norm, two.origins, 0.9)).toBe(0.9);
  });

  it('lower quantiles move the other way (p10 read lower)', () => {
    const { norm, origins } = scores([-1, 1, -0.5, 0.5, 1.5, -1.5], 14);
    expect(crossCalibrated(norm, origins, 0.1)).toBeLessThan(0.1);
  });
});
