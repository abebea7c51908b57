import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommitInputError, costOf, hourlyUsage, lookbackPlan, planCommitment } from '#shared/commit/plan.ts';

const usageOf = (xs: number[]) => Float64Array.from(xs);
const offer = (usdPerHour: number) => ({ term: '1-year', usdPerHour });

describe('planCommitment', () => {
  it('commits what is used more than the break-even share of hours (the header worked example)', () => {
    // 4 instance-hours every hour, 10 in one hour of four; break-even 0.76 / 1.52 = 50 %.
    const usage = usageOf(Array.from({ length: 96 }, (_, h) => (h % 4 === 3 ? 10 : 4)));
    const plan = planCommitment(usage, 1.52, offer(0.76));
    expect(plan.instances).toBe(4);
    expect(plan.breakEven).toBeCloseTo(0.5, 12);
    expect(plan.utilization).toBe(1);
    expect(plan.onDemandUsd).toBeCloseTo((96 * 4 + 24 * 6) * 1.52, 9);
    expect(plan.costUsd).toBeCloseTo(96 * 4 * 0.76 + 24 * 6 * 1.52, 9);
    expect(plan.saving).toBeCloseTo(1 - plan.costUsd / plan.onDemandUsd, 12);
  });

  it('commits nothing when the rate is no discount, or nothing runs', () => {
    expect(planCommitment(usageOf([3, 3, 3]), 1, offer(1)).instances).toBe(0);
    const idle = planCommitment(usageOf([0, 0]), 1, offer(0.5));
    expect(idle).toMatchObject({ instances: 0, utilization: 1, coverage: 0, saving: 0 });
  });

  it('refuses a price that is not a positive number, naming it', () => {
    expect(() => planCommitment(usageOf([1]), 0, offer(0.5))).toThrow(/on-demand price must be more than 0/);
    expect(() => planCommitment(usageOf([1]), 1, offer(Number.NaN))).toThrow(
      /1-year rate must be more than 0/,
    );
  });

  const usageArb = fc.array(fc.double({ min: 0, max: 40, noNaN: true }), { minLength: 1, maxLength: 200 });
  const rateArb = fc.double({ min: 0.05, max: 0.99, noNaN: true });

  it('is the cheapest whole number of instances (cost is convex; property)', () => {
    fc.assert(
      fc.property(usageArb, rateArb, (xs, rate) => {
        const usage = usageOf(xs);
        const best = planCommitment(usage, 1, offer(rate));
        for (let n = 0; n <= Math.ceil(Math.max(...xs)) + 1; n++) {
          expect(best.costUsd).toBeLessThanOrEqual(costOf(usage, 1, offer(rate), n).costUsd + 1e-9);
        }
        expect(best.instances).toBeLessThanOrEqual(Math.ceil(Math.max(...xs)));
      }),
    );
  });

  it('never lowers the recommendation for more history of the same shape (property)', () => {
    fc.assert(
      fc.property(usageArb, rateArb, fc.integer({ min: 2, max: 5 }), (xs, rate, times) => {
        const once = planCommitment(usageOf(xs), 1, offer(rate)).instances;
        const more = planCommitment(usageOf(Array.from({ length: times }, () => xs).flat()), 1, offer(rate));
        expect(more.instances).toBeGreaterThanOrEqual(once);
      }),
    );
  });

  it('never lowers the recommendation for a higher discount (property)', () => {
    fc.assert(
      fc.property(usageArb, rateArb, rateArb, (xs, a, b) => {
        const [cheap, dear] = a <= b ? [a, b] : [b, a];
        const usage = usageOf(xs);
        expect(planCommitment(usage, 1, offer(cheap)).instances).toBeGreaterThanOrEqual(
          planCommitment(usage, 1, offer(dear)).instances,
        );
      }),
    );
  });
});

describe('hourlyUsage', () => {
  it('adds each clock hour\u2019s instance-minutes: 10 for half an hour and 0 after is 5 instance-hours', () => {
    const fleet = [...Array(30).fill(10), ...Array(30).fill(0), ...Array(15).fill(4)];
    expect([...hourlyUsage(fleet)]).toEqual([5, 1]);
  });

  it('names the minute of a fleet that is not a count', () => {
    expect(() => hourlyUsage([1, 2, -1])).toThrow(CommitInputError);
    expect(() => hourlyUsage([1, 2, -1])).toThrow(/minute 2 is -1/);
  });
});

describe('lookbackPlan: as Cost Explorer recommends, from the last days only', () => {
  // Two weeks at 2 instances, then one at 6: a 7-day lookback sees only the 6.
  const usage = usageOf([...Array(14 * 24).fill(2), ...Array(7 * 24).fill(6)]);

  it('sizes on the lookback and judges the result over the whole history', () => {
    const seven = lookbackPlan(usage, 1, offer(0.5), 7)!;
    expect(seven.instances).toBe(6);
    expect(seven.whole.instances).toBe(6);
    expect(seven.whole.utilization).toBeCloseTo((14 * 2 + 7 * 6) / (21 * 6), 12);
    // The whole history says 2: used every hour; instances 3-6 only a third of the hours (< 50 %).
    expect(planCommitment(usage, 1, offer(0.5)).instances).toBe(2);
  });

  it('has nothing to say on a history shorter than its lookback', () => {
    expect(lookbackPlan(usage, 1, offer(0.5), 30)).toBeNull();
  });
});
