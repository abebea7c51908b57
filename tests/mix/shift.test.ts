/** replanFor() and affordableCapacity(): the shell's two uses of a plan between planner runs. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mixFloor } from '#shared/mix/optimize.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import {
  affordableCapacity,
  largestPoolAt,
  lossCoverFloor,
  marginalUsdPerHour,
  replanFor,
  spotAt,
} from '#shared/mix/shift.ts';
import { at, flat, mixPolicy, POOLS, propertyRuns } from './harness.ts';

const planFor = (p90: number, policy = mixPolicy()) =>
  stepMix(initialMixState(), { forecast: flat(at(0), p90) }, policy, at(0)).plan!;

describe('replanFor', () => {
  it('moves the spot of a dry pool elsewhere, or to on-demand, on the demand the plan was sized for', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 35 }),
        fc.subarray(POOLS.map((x) => x.instanceType)),
        fc.boolean(),
        (p90, dry, breakerOpen) => {
          const policy = mixPolicy();
          const held = planFor(p90, policy);
          const shifted = replanFor(policy, held, { unavailablePools: dry, breakerOpen });
          for (const type of dry) expect(shifted.spotByPool[type] ?? 0).toBe(0);
          if (breakerOpen) expect(shifted.spot).toBe(0);
          expect(shifted.capacity).toBeGreaterThanOrEqual(mixFloor(policy));
          // What remains after losing the largest pool still covers what the held plan covered.
          expect(shifted.capacity - shifted.largestSpotPool).toBeGreaterThanOrEqual(
            Math.min(held.sizedFor, policy.maxCapacity - shifted.largestSpotPool),
          );
        },
      ),
      { numRuns: propertyRuns() },
    );
  });

  it('with every pool available it gives the held plan back', () => {
    const held = planFor(10);
    expect(replanFor(mixPolicy(), held, { unavailablePools: [], breakerOpen: false })).toEqual(held);
  });
});

describe('affordableCapacity', () => {
  it('is null without a budget', () => {
    expect(affordableCapacity(mixPolicy(), planFor(10))).toBeNull();
  });

  it('never below the floor, never above max, and within the budget above the floor', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 35 }),
        fc.double({ min: 1.6, max: 60, noNaN: true }),
        (p90, budget) => {
          const policy = mixPolicy({ maxUsdPerHour: budget });
          const plan = planFor(p90, policy);
          const cap = affordableCapacity(policy, plan)!;
          expect(cap).toBeGreaterThanOrEqual(mixFloor(policy));
          expect(cap).toBeLessThanOrEqual(policy.maxCapacity);
          const cost = plan.usdPerHour + (cap - plan.capacity) * marginalUsdPerHour(policy, plan);
          if (cap > mixFloor(policy)) expect(cost).toBeLessThanOrEqual(budget + 1e-6);
        },
      ),
      { numRuns: propertyRuns() },
    );
  });

  it('in numbers: the 9.52 USD/h plan of 12 under a 12 USD/h budget grows to 15 (0.37 x 1.2 + 0.63 x 0.53 a step)', () => {
    const policy = mixPolicy({ maxUsdPerHour: 12 });
    const plan = planFor(10, policy);
    expect(plan.capacity).toBe(12);
    // The hedge split: 37 % on demand above the base (shared/mix/hedge.ts; tests/mix/reasons.test.ts).
    const step = 0.37 * 1.2 + 0.63 * ((0.48 + 0.4 + 0.72) / 3);
    expect(marginalUsdPerHour(policy, plan)).toBeCloseTo(step, 9);
    expect(affordableCapacity(policy, plan)).toBe(12 + Math.floor((12 - plan.usdPerHour) / step)); // 15
  });
});

describe('lossCoverFloor', () => {
  it('is the least capacity that still serves the need after losing its largest spot pool', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 35 }),
        fc.double({ min: 0, max: 30, noNaN: true }),
        (p90, need) => {
          const policy = mixPolicy();
          const plan = planFor(p90, policy);
          const floor = lossCoverFloor(policy, plan, need);
          expect(floor).toBeGreaterThanOrEqual(Math.min(Math.ceil(need - 1e-9), policy.maxCapacity));
          if (floor < policy.maxCapacity) {
            expect(floor - largestPoolAt(plan, floor)).toBeGreaterThanOrEqual(Math.ceil(need - 1e-9));
            if (floor > Math.ceil(need - 1e-9))
              expect(floor - 1 - largestPoolAt(plan, floor - 1)).toBeLessThan(Math.ceil(need - 1e-9));
          }
        },
      ),
      { numRuns: propertyRuns() },
    );
  });

  it('in numbers: the 12-instance plan (base 2, 40 % on-demand above it, 3 pools) covers a need of 10 with 12', () => {
    const policy = mixPolicy();
    const plan = planFor(10, policy);
    expect(spotAt(plan, 12)).toBe(6);
    expect(largestPoolAt(plan, 12)).toBe(2);
    expect(lossCoverFloor(policy, plan, 10)).toBe(12);
    expect(
      lossCoverFloor(policy, replanFor(policy, plan, { unavailablePools: [], breakerOpen: true }), 10),
    ).toBe(10);
  });
});
