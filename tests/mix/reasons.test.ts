/** Every mix reason code, each from the smallest timeline that produces it. */
import { describe, expect, it } from 'vitest';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { MIX_REASON_CODES, type MixReasonCode, type MixStepResult } from '#shared/mix/types.ts';
import { at, flat, mixPolicy, run } from './harness.ts';

const first = (p90: number, policy = mixPolicy()) =>
  stepMix(initialMixState(), { forecast: flat(at(0), p90) }, policy, at(0));
const then = (prev: MixStepResult, minute: number, p90: number, policy = mixPolicy()) =>
  stepMix(prev.state, { forecast: flat(at(minute), p90) }, policy, at(minute));

const CASES: { case: string; code: MixReasonCode; result: () => MixStepResult }[] = [
  { case: 'a first forecast is planned at once', code: 'MixPlanned', result: () => first(10) },
  {
    case: 'a forecast rising past the loss cover is planned at once',
    code: 'LossCoverRestored',
    result: () => then(first(10), 10, 14),
  },
  {
    case: 'a forecast moving inside the dead band changes nothing',
    code: 'WithinDeadBand',
    result: () => then(first(20), 10, 19),
  },
  {
    case: 'a lower forecast waits for the dwell time',
    code: 'DwellHold',
    result: () => then(first(20), 10, 10),
  },
  {
    case: 'a lower forecast after the dwell waits for the change rate',
    code: 'ChangeRateHold',
    result: () => run(mixPolicy(), (m) => (m < 10 ? 20 : 10), 60).at(-1)!,
  },
  {
    case: 'no forecast keeps the plan in force',
    code: 'ForecastMissing',
    result: () => stepMix(first(10).state, { forecast: null }, mixPolicy(), at(10)),
  },
  {
    case: 'a forecast below the committed base plans the floor',
    code: 'FloorHeld',
    result: () => first(0, mixPolicy({ committed: { instances: 4, instanceType: 'g5.2xlarge' } })),
  },
  {
    case: 'a forecast above maxCapacity is clamped',
    code: 'ClampedToMax',
    result: () => first(50),
  },
  {
    case: 'a plan over the budget is capped',
    code: 'BudgetCapped',
    result: () => first(20, mixPolicy({ maxUsdPerHour: 8 })),
  },
  {
    case: 'no spot section plans on-demand only',
    code: 'OnDemandOnly',
    result: () => first(10, mixPolicy({ spot: undefined })),
  },
  {
    case: 'spot in one pool (no spread to cover its loss) is not cheaper',
    code: 'SpotNotCheaper',
    result: () =>
      first(
        10,
        mixPolicy({
          pools: [
            {
              instanceType: 'g5.2xlarge',
              onDemandUsdPerHour: 1.2,
              spotUsdPerHour: 0.48,
              interruption: '<5%',
            },
          ],
        }),
      ),
  },
  {
    case: 'a pool whose spot ran out takes the held plan off it at once',
    code: 'AvailabilityShift',
    result: () =>
      stepMix(
        first(10).state,
        {
          forecast: flat(at(10), 10),
          availability: { unavailablePools: ['g6.2xlarge'], breakerOpen: false },
        },
        mixPolicy(),
        at(10),
      ),
  },
  {
    case: 'a plan by type is re-planned at once over the zones the group turned out to run in',
    code: 'PoolsChanged',
    result: () => then(first(10), 10, 10, mixPolicy({ zones: ['us-east-1a', 'us-east-1b'] })),
  },
  {
    case: 'a pool whose spot ran out gets no spot',
    code: 'PoolUnavailable',
    result: () =>
      stepMix(
        initialMixState(),
        { forecast: flat(at(0), 10), availability: { unavailablePools: ['g6.2xlarge'], breakerOpen: false } },
        mixPolicy(),
        at(0),
      ),
  },
  {
    case: 'a cap on the share of capacity one zone holds narrows the spot share',
    code: 'PoolShareCapped',
    result: () =>
      first(
        20,
        mixPolicy({
          zones: ['us-east-1a', 'us-east-1b', 'us-east-1c'],
          spot: { maxPercent: 60, maxPoolShare: 10, lossDomain: 'zone' },
        }),
      ),
  },
  {
    case: 'a committed base lets the loss cover and the growth past the plan run on spot',
    code: 'SpotHedge',
    result: () => first(12, mixPolicy({ committed: { instances: 10, instanceType: 'g5.2xlarge' } })),
  },
  {
    case: 'the open breaker plans on-demand only',
    code: 'SpotBreakerOpen',
    result: () =>
      stepMix(
        first(10).state,
        { forecast: flat(at(10), 10), availability: { unavailablePools: [], breakerOpen: true } },
        mixPolicy(),
        at(10),
      ),
  },
];

describe('reason codes', () => {
  it.each(CASES)('$code: $case', ({ code, result }) => {
    const r = result();
    expect(r.decision.reasons).toContain(code);
    expect(r.decision.message).toMatch(/\.$/);
  });

  it('a shift for availability leaves the dry pool without spot, or every pool with the breaker open', () => {
    const held = first(10);
    expect(held.plan?.spotByPool['g6.2xlarge']).toBeGreaterThan(0);
    const dry = CASES.find((c) => c.code === 'AvailabilityShift')!.result();
    expect(dry.decision.changed).toBe(true);
    expect(dry.plan?.spotByPool['g6.2xlarge'] ?? 0).toBe(0);
    const open = CASES.find((c) => c.code === 'SpotBreakerOpen')!.result();
    expect(open.decision.reasons[0]).toBe('AvailabilityShift');
    expect(open.plan?.spot).toBe(0);
  });

  it('every reason code has a case', () => {
    expect(new Set(CASES.map((c) => c.code))).toEqual(new Set(MIX_REASON_CODES));
  });
});

describe('plans, in numbers', () => {
  it('p90 10 with two committed: 12 instances, 6 on-demand, 2 spot in each of 3 pools, 9.52 USD/h', () => {
    const { plan } = first(10);
    expect(plan).toMatchObject({ capacity: 12, onDemand: 6, committed: 2, spot: 6, largestSpotPool: 2 });
    expect(plan?.usdPerHour).toBeCloseTo(9.52, 6);
    // The hedge split (shared/mix/hedge.ts): above the base of 2, 37 % on demand, the least that
    // keeps spot within 60 % at maxCapacity 40 (38 above the base, ceil(14.06) = 15 on demand, 23
    // spot: 57.5 %); at 12, 4 of the 10 above the base on demand, 6 spot.
    expect(plan?.shapedBy).toContain('SpotHedge');
    expect(plan?.mixedInstancesPolicy).toMatchObject({
      onDemandBaseCapacity: 2,
      onDemandPercentageAboveBaseCapacity: 37,
      spotAllocationStrategy: 'price-capacity-optimized',
    });
  });

  it('the MixedInstancesPolicy yields exactly the planned spot at the planned capacity (Auto Scaling rounds on-demand up)', () => {
    for (const p90 of [1, 3, 7, 10, 17, 25, 33]) {
      const plan = first(p90).plan!;
      const { onDemandBaseCapacity: base, onDemandPercentageAboveBaseCapacity: pct } =
        plan.mixedInstancesPolicy;
      const above = plan.capacity - base;
      expect(above - Math.ceil((above * pct) / 100)).toBe(plan.spot);
    }
  });

  it('the committed base is billed even with no demand', () => {
    const plan = first(0, mixPolicy({ spot: undefined }, { min: 1, max: 40 })).plan!;
    expect(plan).toMatchObject({ capacity: 2, onDemand: 2, committed: 2, spot: 0 });
    expect(plan.usdPerHour).toBeCloseTo(1.52, 6);
  });
});
