import { describe, expect, it } from 'vitest';
import { levelFloor, stepNeeds } from '#shared/sizing/floor-needs.ts';

const noise = { a: 1, b: 0, samples: 1000 };
const sizing = { requestsPerInstance: 75, instanceCapacity: 120, floorSigmas: 2.6, noise };

describe('stepNeeds: each step needs the larger of the quantile floor and the noise floor', () => {
  it.each([
    // 20 requests a minute: the quantile floor is 0.27 instances, the noise floor (20 + 2.6 x 4.47) / 120 = 0.26.
    {
      case: 'a quiet night: count noise is about as wide as the target headroom',
      q: 20,
      p50: 20,
      need: 20 / 75,
    },
    // 2,000: quantile floor 26.7; noise floor (2000 + 2.6 x 44.7) / 120 = 17.6: the target's headroom rules.
    { case: 'a busy afternoon: the target headroom rules', q: 2000, p50: 2000, need: 2000 / 75 },
    // 10 a minute: quantile 0.13; noise (10 + 8.2) / 120 = 0.152: noise rules.
    { case: 'very small counts: the noise rules', q: 10, p50: 10, need: (10 + 2.6 * Math.sqrt(10)) / 120 },
  ])('$case', ({ q, p50, need }) => {
    expect(stepNeeds([q], [p50], sizing)[0]).toBeCloseTo(need, 6);
  });

  it('is the quantile floor alone without a noise model or with floorSigmas 0', () => {
    expect(stepNeeds([10], [10], { ...sizing, noise: null })[0]).toBeCloseTo(10 / 75, 9);
    expect(stepNeeds([10], [10], { ...sizing, floorSigmas: 0 })[0]).toBeCloseTo(10 / 75, 9);
  });
});

describe('levelFloor: before a forecast, the last level plus its noise', () => {
  it('takes the median of the last levelMinutes minutes (a spike in them does not move it)', () => {
    const recent = [...Array(14).fill(100), 900];
    expect(levelFloor(recent, 15, sizing)).toBeCloseTo((100 + 2.6 * 10) / 120, 6);
  });

  it.each([
    { case: 'no noise model', recent: Array(15).fill(100), s: { ...sizing, noise: null } },
    { case: 'floorSigmas 0', recent: Array(15).fill(100), s: { ...sizing, floorSigmas: 0 } },
    { case: 'fewer minutes than the level needs', recent: Array(14).fill(100), s: sizing },
    { case: 'a gap among the last minutes', recent: [...Array(14).fill(100), Number.NaN], s: sizing },
  ])('is null with $case', ({ recent, s }) => {
    expect(levelFloor(recent, 15, s)).toBeNull();
  });
});
