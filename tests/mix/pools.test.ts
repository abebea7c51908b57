/**
 * Spot pools by instance type and Availability Zone (issue 22, item 3): the spread the planner
 * assumes, what one loss takes, the cap on one pool's (or zone's) share of the capacity, and a
 * shortage in one (type, zone) pool removing that pool only.
 */
import { describe, expect, it } from 'vitest';
import { plannedMix } from '#shared/mix/optimize.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { largestLoss, layoutOf, poolKey, spreadOver } from '#shared/mix/pools.ts';
import { lossCoverFloor, spotAt } from '#shared/mix/shift.ts';
import { at, flat, mixPolicy } from './harness.ts';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const demand = (p90: number) => ({ p90Peak: p90, p90LossCover: p90, p50Mean: p90 * 0.7 });

describe('the spread and what one loss takes', () => {
  it.each([
    { case: 'no zones: a pool is a type (ceil(s / types))', zones: [], spot: 7, pool: 4, zone: 7 },
    {
      case: '3 zones of 2 types: 7 spot, a zone at most 3, a pool at most 2',
      zones: ZONES,
      spot: 7,
      pool: 2,
      zone: 3,
    },
    { case: '3 zones of 2 types: 6 spot, one in each pool', zones: ZONES, spot: 6, pool: 1, zone: 2 },
    { case: 'no spot takes nothing', zones: ZONES, spot: 0, pool: 0, zone: 0 },
  ])('$case', ({ zones, spot, pool, zone }) => {
    const layout = layoutOf(['g5.2xlarge', 'g6.2xlarge'], zones);
    expect(largestLoss(spot, layout, 'pool')).toBe(pool);
    expect(largestLoss(spot, layout, 'zone')).toBe(zone);
    const spread = spreadOver(spot, layout);
    expect(Object.values(spread).reduce((a, b) => a + b, 0)).toBe(spot);
    expect(Math.max(0, ...Object.values(spread))).toBeLessThanOrEqual(pool);
  });

  it('a pool out in one zone leaves that zone fewer pools, and the type in the others', () => {
    const layout = layoutOf(['g5.2xlarge', 'g6.2xlarge'], ZONES, [poolKey('g6.2xlarge', 'us-east-1b')]);
    expect(layout.zones.map((z) => z.pools.length)).toEqual([2, 1, 2]);
    // 6 spot: 2 a zone; us-east-1b has one pool, so a pool there holds 2.
    expect(largestLoss(6, layout, 'pool')).toBe(2);
    expect(layoutOf(['g6.2xlarge'], ZONES, ['g6.2xlarge']).zones).toEqual([]);
  });
});

describe('the planner over types and zones', () => {
  it.each([1, 3, 7, 10, 15, 24, 33])(
    'p90 %i: capacity minus one pool (or zone) still serves the p90',
    (p90) => {
      for (const lossDomain of ['pool', 'zone'] as const) {
        const p = mixPolicy({ zones: ZONES, spot: { maxPercent: 60, lossDomain } });
        const plan = plannedMix(p, demand(p90));
        expect(plan.capacity - plan.largestSpotPool).toBeGreaterThanOrEqual(p90);
        expect(lossCoverFloor(p, plan, p90) - plan.largestSpotPool).toBeGreaterThanOrEqual(p90);
      }
    },
  );

  it('three zones spread the loss: the same demand costs less than with a pool across zones', () => {
    const across = plannedMix(mixPolicy(), demand(10));
    const zoned = plannedMix(mixPolicy({ zones: ZONES }), demand(10));
    expect(zoned.largestSpotPool).toBeLessThan(across.largestSpotPool);
    expect(zoned.usdPerHour).toBeLessThan(across.usdPerHour);
    expect(Object.keys(zoned.spotByPool)).toContain('g6.2xlarge@us-east-1b');
  });

  it.each([
    { share: 5, lossDomain: 'pool' as const },
    { share: 10, lossDomain: 'zone' as const },
    { share: 20, lossDomain: 'zone' as const },
  ])(
    'maxPoolShare $share % by $lossDomain: one loss never takes more, at any p90',
    ({ share, lossDomain }) => {
      const p = mixPolicy({ zones: ZONES, spot: { maxPercent: 60, maxPoolShare: share, lossDomain } });
      for (let p90 = 1; p90 <= 35; p90++) {
        const plan = plannedMix(p, demand(p90));
        expect(100 * plan.largestSpotPool).toBeLessThanOrEqual(share * plan.capacity);
        // The spot share holds at every size the group may reach, not only at the plan's.
        for (let d = 1; d <= p.maxCapacity; d++) expect(100 * spotAt(plan, d)).toBeLessThanOrEqual(60 * d);
      }
    },
  );

  it('a cap that binds says so: PoolShareCapped, with the share in the sentence', () => {
    const p = mixPolicy({ zones: ZONES, spot: { maxPercent: 60, maxPoolShare: 10, lossDomain: 'zone' } });
    const r = stepMix(initialMixState(), { forecast: flat(at(0), 20) }, p, at(0));
    expect(r.decision.reasons).toContain('PoolShareCapped');
    expect(r.decision.message).toContain('one zone takes at most 10 % of the capacity');
    // 3 zones at 10 % each: the spot share is at most 30 %.
    expect(r.plan?.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity).toBe(70);
    const free = stepMix(
      initialMixState(),
      { forecast: flat(at(0), 20) },
      mixPolicy({ zones: ZONES }),
      at(0),
    );
    expect(free.decision.reasons).not.toContain('PoolShareCapped');
  });

  it('a shortage in one (type, zone) pool removes that pool only, and shifts the held plan off it', () => {
    const p = mixPolicy({ zones: ZONES });
    const held = stepMix(initialMixState(), { forecast: flat(at(0), 10) }, p, at(0));
    expect(held.plan?.spotByPool['g6.2xlarge@us-east-1b']).toBeGreaterThan(0);
    const short = { unavailablePools: ['g6.2xlarge@us-east-1b'], breakerOpen: false };
    const r = stepMix(held.state, { forecast: flat(at(10), 10), availability: short }, p, at(10));
    expect(r.decision.reasons.slice(0, 1)).toEqual(['AvailabilityShift']);
    expect(r.plan?.spotByPool['g6.2xlarge@us-east-1b'] ?? 0).toBe(0);
    expect(r.plan?.spotByPool['g6.2xlarge@us-east-1a']).toBeGreaterThan(0);
    expect(r.plan?.spotByPool['g6.2xlarge@us-east-1c']).toBeGreaterThan(0);
    // A shortage in a pool the held plan runs no spot in changes nothing at once.
    const elsewhere = { unavailablePools: ['g6e.xlarge@us-east-1b'], breakerOpen: false };
    const kept = stepMix(held.state, { forecast: flat(at(10), 10), availability: elsewhere }, p, at(10));
    expect(kept.decision.reasons[0]).not.toBe('AvailabilityShift');
  });
});
