/**
 * A plan with no spot in it still lets the group grow past its capacity on spot, at
 * spot.maxPercent, over the spot pools only: a commitment that covers the forecast must not send
 * every instance the capacity engine adds on demand (docs/capacity-mix.md, "What the planner does").
 */
import { describe, expect, it } from 'vitest';
import { cheapestPlan } from '#shared/mix/optimize.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { largestPoolAt, spotAt } from '#shared/mix/shift.ts';
import { listsSpot } from '#shared/mix/types.ts';
import { at, flat, mixPolicy, POOLS } from './harness.ts';

const covered = { p90Peak: 8, p90LossCover: 8, p50Mean: 6 };
/** Ten committed g5 (the first type on demand), spot allowed up to the 5-10 % band: g6 and g5. */
const committed = mixPolicy({
  committed: { instances: 10, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
  spot: { maxPercent: 60, maxInterruption: '5-10%' },
});

describe('a plan with no spot, under a commitment that covers the forecast', () => {
  it('holds its capacity on demand and grows past it on spot within maxPercent up to maxCapacity, listing only spot pools', () => {
    const plan = cheapestPlan(committed, covered);
    expect(plan.spot).toBe(0);
    expect(plan.capacity).toBe(10);
    expect(plan.mixedInstancesPolicy.onDemandBaseCapacity).toBe(10);
    // The hedge split (shared/mix/hedge.ts): 20 % on demand above the base of 10 keeps spot within
    // 60 % up to maxCapacity 40 (30 above the base, 6 on demand, 24 spot: 60 %).
    expect(plan.shapedBy).toContain('SpotHedge');
    expect(plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity).toBe(20);
    expect(plan.mixedInstancesPolicy.overrides.map((o) => o.instanceType)).toEqual([
      'g5.2xlarge',
      'g6.2xlarge',
    ]);
    expect(listsSpot(plan)).toBe(true);
    expect(spotAt(plan, 10)).toBe(0);
    // 15 instances: 5 above the base, ceil(5 x 20 %) = 1 of them on demand, 4 on spot.
    expect(spotAt(plan, 15)).toBe(4);
    expect(largestPoolAt(plan, 15)).toBe(2);
    expect(spotAt(plan, 40)).toBe(24);
  });

  it('stays all on-demand with every pool listed when the breaker is open', () => {
    const plan = cheapestPlan(committed, covered, { breakerOpen: true, unavailablePools: [] });
    expect(plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity).toBe(100);
    expect(plan.mixedInstancesPolicy.overrides).toHaveLength(POOLS.length);
    expect(listsSpot(plan)).toBe(false);
    expect(spotAt(plan, 15)).toBe(0);
  });

  it('stays all on-demand when the type on-demand launches first may not run spot', () => {
    const strict = mixPolicy({
      committed: { instances: 10, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
      spot: { maxPercent: 60, maxInterruption: '<5%' },
    });
    const plan = cheapestPlan(strict, covered);
    expect(plan.spot).toBe(0);
    expect(plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity).toBe(100);
    expect(plan.mixedInstancesPolicy.overrides).toHaveLength(POOLS.length);
  });

  it('shifts at once when a pool it lists runs dry, to the pools still open', () => {
    const first = stepMix(initialMixState(), { forecast: flat(at(0), 8) }, committed, at(0));
    expect(first.state.plan && listsSpot(first.state.plan)).toBe(true);
    const dry = stepMix(
      first.state,
      { forecast: flat(at(10), 8), availability: { breakerOpen: false, unavailablePools: ['g6.2xlarge'] } },
      committed,
      at(10),
    );
    expect(dry.decision.reasons[0]).toBe('AvailabilityShift');
    expect(dry.state.plan?.mixedInstancesPolicy.overrides.map((o) => o.instanceType)).toEqual(['g5.2xlarge']);
  });
});
