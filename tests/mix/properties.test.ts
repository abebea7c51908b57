/**
 * Invariants of stepMix() over random policies and forecast timelines (fast-check; 2,000 runs on
 * CI, 200 locally): never below the committed base or minCapacity; spot never above its maximum
 * share; losing the largest spot pool keeps the p90 loss cover served unless clamped or capped;
 * the budget never exceeded above the floor; at most one change per minHoursBetweenChanges but
 * for LossCoverRestored; a forecast flapping inside the dead band changes nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mixFloor } from '#shared/mix/optimize.ts';
import { afterLoss } from '#shared/mix/plan.ts';
import { at, mixPolicy, propertyRuns, run } from './harness.ts';

const policyArb = fc
  .record({
    committed: fc.integer({ min: 0, max: 6 }),
    min: fc.integer({ min: 1, max: 4 }),
    max: fc.integer({ min: 6, max: 30 }),
    maxPercent: fc.integer({ min: 1, max: 100 }),
    budget: fc.option(fc.integer({ min: 6, max: 40 }), { nil: undefined }),
    spot: fc.boolean(),
  })
  .map((r) =>
    mixPolicy(
      {
        committed: { instances: r.committed, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
        spot: r.spot ? { maxPercent: r.maxPercent } : undefined,
        maxUsdPerHour: r.budget,
      },
      { min: r.min, max: r.max },
    ),
  );
const levelsArb = fc.array(fc.float({ min: 0, max: 40, noNaN: true }), { minLength: 1, maxLength: 40 });

describe('random policies and timelines (fast-check)', () => {
  it('every plan holds the floor, the spot share, the loss cover and the budget', () => {
    fc.assert(
      fc.property(policyArb, levelsArb, (policy, levels) => {
        const results = run(
          policy,
          (m) => levels[Math.floor(m / 30) % levels.length]!,
          levels.length * 30,
          30,
        );
        for (const r of results) {
          const plan = r.plan!;
          const d = r.decision.demand!;
          expect(plan.capacity).toBeGreaterThanOrEqual(mixFloor(policy));
          expect(plan.onDemand).toBeGreaterThanOrEqual(policy.mix.committed.instances);
          expect(plan.capacity).toBeLessThanOrEqual(policy.maxCapacity);
          expect(plan.spot * 100).toBeLessThanOrEqual((policy.mix.spot?.maxPercent ?? 0) * plan.capacity);
          const wanted = r.decision.wanted!;
          const limited =
            wanted.shapedBy.includes('ClampedToMax') || wanted.shapedBy.includes('BudgetCapped');
          if (!limited && wanted.spot > 0) expect(afterLoss(wanted)).toBeGreaterThanOrEqual(d.p90LossCover);
          if (!limited) expect(wanted.capacity).toBeGreaterThanOrEqual(d.p90Peak);
          const budget = policy.mix.maxUsdPerHour;
          if (budget !== undefined && wanted.capacity > mixFloor(policy))
            expect(wanted.usdPerHour).toBeLessThanOrEqual(budget + 1e-9);
        }
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('changes are at most one per minHoursBetweenChanges, but for LossCoverRestored', () => {
    fc.assert(
      fc.property(policyArb, levelsArb, (policy, levels) => {
        const results = run(
          policy,
          (m) => levels[Math.floor(m / 20) % levels.length]!,
          levels.length * 20,
          10,
        );
        let last: number | null = null;
        for (const r of results) {
          if (!r.decision.changed) continue;
          const code = r.decision.reasons[0];
          if (last !== null && code !== 'LossCoverRestored')
            expect(r.decision.at - last).toBeGreaterThanOrEqual(
              policy.mix.damping.minHoursBetweenChanges * 3_600_000,
            );
          last = r.decision.at;
        }
      }),
      { numRuns: propertyRuns() },
    );
  });

  it('a forecast flapping inside the dead band below the planned level changes nothing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 25 }),
        fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 50 }),
        (level, drops) => {
          const policy = mixPolicy({
            damping: { deadBandPercent: 10, dwellMinutes: 0, minHoursBetweenChanges: 1 },
          });
          const band = Math.floor(level * 0.1);
          const results = run(
            policy,
            (m) => (m === 0 ? level : level - ((drops[m / 10] ?? 0) % (band + 1))),
            drops.length * 10,
          );
          expect(results.filter((r) => r.decision.changed)).toHaveLength(1);
        },
      ),
      { numRuns: propertyRuns() },
    );
  });
});

it('the harness clock starts at t0', () => expect(at(0)).toBe(Date.UTC(2026, 0, 5)));
