/**
 * The planner's search prices each (types, spot) pair with costModel() (shared/mix/cost-model.ts)
 * and builds only the cheaper plans (shared/mix/optimize.ts). Its figure must be build()'s to the last bit, or the
 * search would pick another plan than before: checked exactly, over random pools, prices, zones,
 * unavailable pools, commitments and shapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costModel } from '#shared/mix/cost-model.ts';
import { build } from '#shared/mix/optimize.ts';
import { layoutOf } from '#shared/mix/pools.ts';
import type { MixPolicy } from '#shared/mix/types.ts';
import { CapacityMixSchema } from '#shared/policy/capacity-mix-schema.ts';
import { propertyRuns } from './harness.ts';

const TYPES = ['g5.2xlarge', 'g6.2xlarge', 'g6e.xlarge', 'g5.4xlarge'];
const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const price = fc.double({ min: 0.05, max: 9, noNaN: true });

const caseArb = fc.record({
  pools: fc.uniqueArray(
    fc.record({
      type: fc.constantFrom(...TYPES),
      onDemand: price,
      spotShare: fc.double({ min: 0.1, max: 0.9, noNaN: true }),
    }),
    { minLength: 1, maxLength: 4, selector: (x) => x.type },
  ),
  zones: fc.option(fc.subarray(ZONES, { minLength: 1 }), { nil: undefined }),
  unavailable: fc.subarray(['g6.2xlarge@us-east-1b', 'g5.2xlarge', 'g6e.xlarge@us-east-1a']),
  committed: fc.integer({ min: 0, max: 12 }),
  committedUsd: fc.option(price, { nil: undefined }),
  capacity: fc.integer({ min: 1, max: 80 }),
  spotPart: fc.double({ min: 0, max: 1, noNaN: true }),
  listed: fc.integer({ min: 1, max: 4 }),
});

describe('costModel', () => {
  it('prices a shape exactly as build() does, to the last bit', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const pools = c.pools.map((x) => ({
          instanceType: x.type,
          onDemandUsdPerHour: x.onDemand,
          spotUsdPerHour: x.onDemand * x.spotShare,
          interruption: '<5%' as const,
        }));
        const committedType = pools[0]!.instanceType;
        const p: MixPolicy = {
          targetId: 'gpu',
          minCapacity: 1,
          maxCapacity: 80,
          mix: CapacityMixSchema.parse({
            pools,
            committed: {
              instances: c.committed,
              instanceType: committedType,
              ...(c.committedUsd !== undefined ? { usdPerHour: c.committedUsd } : {}),
            },
            spot: { maxPercent: 70 },
            ...(c.zones ? { zones: c.zones } : {}),
          }),
          replacementLeadMinutes: 15,
        };
        const listed = pools.slice(0, Math.min(c.listed, pools.length));
        const layout = layoutOf(
          listed.map((x) => x.instanceType),
          c.zones ?? [],
          c.unavailable,
        );
        const spot = Math.floor(c.spotPart * c.capacity);
        const plan = build(p, { capacity: c.capacity, spot, pools: listed, layout }, []);
        expect(Object.is(costModel(p, listed, layout)(c.capacity, spot), plan.usdPerHour)).toBe(true);
      }),
      { numRuns: propertyRuns() },
    );
  });
});
