/**
 * The spot hedge (shared/mix/hedge.ts): the MixedInstancesPolicy split that holds the loss cover
 * and the growth past the plan on spot, within spot.maxPercent at every size up to maxCapacity,
 * taken only where it holds the loss cover for less.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverSplit, type HedgePricing, hedgeIsCheaper, hedgeSplit, spotUnder } from '#shared/mix/hedge.ts';
import { largestLoss, layoutOf } from '#shared/mix/pools.ts';
import { propertyRuns } from './harness.ts';

const NINE = layoutOf(['a', 'b', 'c'], ['z1', 'z2', 'z3']);
const pricing = (o: Partial<HedgePricing> = {}): HedgePricing => ({
  onDemandUsdPerHour: 1.52,
  spotUsdPerHour: 0.532,
  committed: 48,
  lossOf: (s, l) => largestLoss(s, l, 'pool'),
  layout: NINE,
  maxCapacity: 80,
  ...o,
});

describe('hedgeSplit', () => {
  it('in numbers: 48 committed, a plan of 55 with 7 spot, maxPercent 70, maxCapacity 80', () => {
    expect(coverSplit(55, 7, 70)).toEqual({
      onDemandBaseCapacity: 45,
      onDemandPercentageAboveBaseCapacity: 30,
    });
    const hedge = hedgeSplit(55, 7, 48, 70, 80)!;
    // Base at the commitment, everything above it on spot: at 80, 32 of 80 spot (40 % <= 70 %).
    expect(hedge).toEqual({ onDemandBaseCapacity: 48, onDemandPercentageAboveBaseCapacity: 0 });
    expect(spotUnder(hedge, 55)).toBe(7);
    expect(spotUnder(hedge, 50)).toBe(2);
    // The cover split ran 3 of those 50 on spot with 3 committed instances idle.
    expect(spotUnder(coverSplit(55, 7, 70), 50)).toBe(3);
    expect(hedgeIsCheaper(hedge, coverSplit(55, 7, 70), 48, 80, pricing())).toBe(true);
  });

  it('is null with no base to raise and no room below 100 - maxPercent', () => {
    // 7 spot of 10 at 70 %: the cover split's base is 0, and at base 0 the least percentage is 30.
    expect(hedgeSplit(10, 7, 0, 70, 80)).toBeNull();
  });

  it('runs exactly the planned spot at the plan, and within maxPercent at every size up to maxCapacity', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 10, max: 100 }),
        fc.integer({ min: 0, max: 60 }),
        (capacity, spotWanted, committedWanted, share, extra) => {
          const spot = Math.min(spotWanted, Math.floor((capacity * share) / 100));
          const committed = Math.min(committedWanted, capacity - spot);
          const maxCapacity = capacity + extra;
          const cover = coverSplit(capacity, spot, share);
          const hedge = hedgeSplit(capacity, spot, committed, share, maxCapacity);
          if (hedge === null) return;
          expect(spotUnder(hedge, capacity)).toBe(spot);
          expect(hedge.onDemandBaseCapacity).toBeGreaterThanOrEqual(cover.onDemandBaseCapacity);
          for (let d = 1; d <= maxCapacity; d++)
            expect(100 * spotUnder(hedge, d)).toBeLessThanOrEqual(share * d);
        },
      ),
      { numRuns: propertyRuns() },
    );
  });
});

describe('hedgeIsCheaper', () => {
  it('refuses the hedge when spot costs as much as on demand and the extra spot needs a larger loss cover', () => {
    // No commitment, base 5: the hedge's 26 % on demand (against 30) puts more spot in each pool
    // of three, so the floor needs more instances, at no saving an instance.
    const three = layoutOf(['a', 'b', 'c'], []);
    const pr = pricing({ committed: 0, spotUsdPerHour: 1.52, layout: three });
    const cover = coverSplit(15, 7, 70);
    const hedge = hedgeSplit(15, 7, 0, 70, 80)!;
    expect(hedge.onDemandPercentageAboveBaseCapacity).toBeLessThan(30);
    expect(hedgeIsCheaper(hedge, cover, 1, 80, pr)).toBe(false);
    expect(hedgeIsCheaper(hedge, cover, 1, 80, pricing({ committed: 0, layout: three }))).toBe(true);
  });
});
