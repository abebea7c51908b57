import { describe, expect, it } from 'vitest';
import { attainmentOf } from '#shared/backtest/attainment.ts';
import {
  bestTarget,
  closestTarget,
  costAtAttainment,
  SWEEP_FRACTIONS,
  type SweptPoint,
  savingAtEqualSlo,
} from '#shared/backtest/best-target.ts';
import { judgeSlo } from '#shared/backtest/verdict.ts';

const p = (fraction: number, instanceMinutes: number, attainment: number, objective = 0.995): SweptPoint => ({
  fraction,
  instanceMinutes,
  costVsOracle: instanceMinutes / 500,
  attainment,
  meetsObjective: attainment >= objective,
});
// Cost falls and attainment falls as the target rises, as on every bundled trace.
const SWEEP = [p(0.3, 1200, 0.999), p(0.4, 1000, 0.998), p(0.5, 800, 0.994), p(0.6, 700, 0.98)];

describe('the sweep', () => {
  it('runs 19 targets from 0.1 to 1.0 x saturation', () => {
    expect(SWEEP_FRACTIONS).toHaveLength(19);
    expect([SWEEP_FRACTIONS[0], SWEEP_FRACTIONS[8], SWEEP_FRACTIONS[18]]).toEqual([0.1, 0.5, 1]);
  });
});

describe('bestTarget', () => {
  it.each([
    { case: 'the cheapest target that meets the objective', points: SWEEP, fraction: 0.4 },
    { case: 'order of the points does not matter', points: [...SWEEP].reverse(), fraction: 0.4 },
    { case: 'null when no target meets it', points: [p(0.5, 800, 0.99), p(0.6, 700, 0.98)], fraction: null },
  ])('$case', ({ points, fraction }) => {
    expect(bestTarget(points)?.fraction ?? null).toBe(fraction);
  });

  it('names the closest target when none meets: the highest attainment', () => {
    expect(closestTarget([p(0.1, 9000, 0.99), p(0.5, 800, 0.95)]).fraction).toBe(0.1);
  });

  it('refuses an empty sweep in one line naming the fix', () => {
    expect(() => bestTarget([])).toThrow(/^bestTarget: no swept targets; sweep at least one/);
  });
});

describe('costAtAttainment and the saving at equal SLO', () => {
  it.each([
    // Between 0.4 (99.8 %, 1,000) and 0.5 (99.4 %, 800): 99.6 % is halfway, 900.
    { case: 'linear between adjacent targets', a: 0.996, cost: 900 },
    { case: 'a swept point exactly', a: 0.998, cost: 1000 },
    { case: 'below every point: the cheapest point that reaches it', a: 0.9, cost: 700 },
    { case: 'above every point: no target reaches it', a: 0.9995, cost: null },
  ])('$case', ({ a, cost }) => {
    const got = costAtAttainment(SWEEP, a);
    if (cost === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(cost, 9);
  });

  it.each([
    { case: 'cheaper than target tracking at the same attainment', cost: 810, a: 0.996, saving: 0.1 },
    { case: 'dearer is a negative saving', cost: 990, a: 0.996, saving: -0.1 },
    { case: 'null where no target reaches the attainment', cost: 500, a: 1, saving: null },
  ])('$case', ({ cost, a, saving }) => {
    const got = savingAtEqualSlo(SWEEP, { instanceMinutes: cost, attainment: a });
    if (saving === null) expect(got).toBeNull();
    else expect(got).toBeCloseTo(saving, 9);
  });
});

describe('attainment against the objective', () => {
  it.each([
    // NASA's 184 violation minutes of 39,693: 99.536 %, 93 % of a 99.5 % budget.
    {
      case: 'minutes only, met',
      ratio: 184 / 39_693,
      requests: 0.02,
      objective: { minutes: 0.995, windowMinutes: 43_200 },
      spent: 0.927,
      meets: true,
    },
    {
      case: 'minutes only, missed',
      ratio: 0.0594,
      requests: 0,
      objective: { minutes: 0.995, windowMinutes: 43_200 },
      spent: 11.88,
      meets: false,
    },
    {
      case: 'a requests objective missed spends the larger budget',
      ratio: 0.001,
      requests: 0.02,
      objective: { minutes: 0.995, requests: 0.99, windowMinutes: 43_200 },
      spent: 2,
      meets: false,
    },
  ])('$case', ({ ratio, requests, objective, spent, meets }) => {
    const a = attainmentOf({ violationRatio: ratio, requestsInViolationRatio: requests }, objective);
    expect(a.budgetSpent).toBeCloseTo(spent, 2);
    expect(a.meetsObjective).toBe(meets);
  });
});

describe('the verdict', () => {
  const objective = { minutes: 0.995, windowMinutes: 43_200 };
  const g = (instanceMinutes: number, attainment: number) => ({
    instanceMinutes,
    costVsOracle: instanceMinutes / 500,
    attainment,
    meetsObjective: attainment >= 0.995,
  });
  it.each([
    {
      case: 'meets it and costs less than the best target: a win',
      gov: g(900, 0.997),
      points: SWEEP,
      outcome: 'win',
      reason: '',
    },
    {
      case: 'meets it where no target can: a win',
      gov: g(900, 0.997),
      points: [p(0.5, 800, 0.99)],
      outcome: 'win',
      reason: '',
    },
    {
      case: 'meets it at more cost: a loss on cost',
      gov: g(1100, 0.999),
      points: SWEEP,
      outcome: 'loss',
      reason: 'costs 10.0 % more than target tracking at 0.4 x saturation',
    },
    {
      case: 'misses it, however cheap: a loss',
      gov: g(500, 0.99),
      points: SWEEP,
      outcome: 'loss',
      reason: 'misses the objective: 99 % of minutes',
    },
  ])('$case', ({ gov, points, outcome, reason }) => {
    const v = judgeSlo({
      objective,
      governor: gov,
      best: bestTarget(points),
      closest: closestTarget(points),
      savingAtEqualSlo: savingAtEqualSlo(points, gov),
    });
    expect(v.outcome).toBe(outcome);
    expect(v.reason).toBe(reason);
    expect(v.sentence).not.toContain('\n');
  });

  it('says the win in one sentence with the figures', () => {
    const v = judgeSlo({
      objective,
      governor: g(900, 0.9975),
      best: bestTarget(SWEEP),
      closest: closestTarget(SWEEP),
      savingAtEqualSlo: null,
    });
    expect(v.sentence).toBe(
      'Governor meets 99.5 % of minutes within the SLO (99.75 %) at 1.80x the oracle, 10.0 % less than target tracking at its best target (0.4 x saturation, 2.00x).',
    );
  });

  it('when nothing that scales meets it, says what a fleet held at its peak costs, if that meets it', () => {
    const none = [p(0.5, 800, 0.99), p(0.6, 700, 0.98)];
    const judge = (gov: ReturnType<typeof g>, meetsObjective: boolean, points = none) =>
      judgeSlo({
        objective,
        governor: gov,
        best: bestTarget(points),
        closest: closestTarget(points),
        savingAtEqualSlo: null,
        heldAtPeak: { instances: 40, costVsOracle: 3.724, meetsObjective },
      }).sentence;
    expect(judge(g(900, 0.98), true)).toBe(
      'Governor misses 99.5 % of minutes within the SLO (98 %) at 1.80x the oracle, and target tracking cannot meet it at any target (at best 99 % at 0.5 x saturation, 1.60x); a fleet held at its peak (40 instances) meets it at 3.72x.',
    );
    // Not when the held fleet misses it too, when Governor meets it, or when a target meets it.
    expect(judge(g(900, 0.98), false)).not.toContain('held at its peak');
    expect(judge(g(900, 0.997), true)).not.toContain('held at its peak');
    expect(judge(g(500, 0.99), true, SWEEP)).not.toContain('held at its peak');
  });

  it('when Governor meets it where no target does, says so of a fleet held at its peak only when that costs less', () => {
    const none = [p(0.5, 800, 0.99), p(0.6, 700, 0.98)];
    const judge = (held: { costVsOracle: number; meetsObjective: boolean }) =>
      judgeSlo({
        objective,
        governor: g(900, 0.997),
        best: bestTarget(none),
        closest: closestTarget(none),
        savingAtEqualSlo: null,
        heldAtPeak: { instances: 40, ...held },
      });
    const v = judge({ costVsOracle: 1.5, meetsObjective: true });
    expect(v.outcome).toBe('win');
    expect(v.sentence).toBe(
      'Governor meets 99.5 % of minutes within the SLO (99.7 %) at 1.80x the oracle; target tracking cannot meet it at any target (at best 99 % at 0.5 x saturation, 1.60x); a fleet held at its peak (40 instances) meets it for less, at 1.50x.',
    );
    expect(judge({ costVsOracle: 1.9, meetsObjective: true }).sentence).not.toContain('held at its peak');
    expect(judge({ costVsOracle: 1.5, meetsObjective: false }).sentence).not.toContain('held at its peak');
  });

  it('says when the attainment is the worst window of a run longer than the window', () => {
    const v = judgeSlo({
      objective,
      governor: { ...g(900, 0.9975), worstWindow: true },
      best: bestTarget(SWEEP),
      closest: closestTarget(SWEEP),
      savingAtEqualSlo: null,
    });
    expect(v.sentence).toMatch(
      /^Governor meets 99\.5 % of minutes within the SLO \(99\.75 % in its worst 30 days\) at 1\.80x/,
    );
  });
});
