import { describe, expect, it } from 'vitest';
import type { Figures } from '#shared/tune/evaluate.ts';
import { compare, feasible, goalOf, paretoFront, worstFold, worstSaving } from '#shared/tune/objective.ts';

const fig = (
  instanceMinutes: number,
  violationMinutes: number,
  folds = [0.01, 0.01, 0.01],
  requests = folds,
): Figures => ({
  instanceMinutes,
  costVsOracle: instanceMinutes / 1000,
  violationMinutes,
  violationRatio: violationMinutes / 1000,
  requestsViolationRatio: violationMinutes / 1000,
  scalingActions: 0,
  folds: folds.map((v, i) => ({ costVsOracle: 1, violationRatio: v, requestsViolationRatio: requests[i]! })),
});
// 96 % of minutes with half the budget held back: at most 2 % in each fold.
const perFold = goalOf({ minutes: 0.96 }, 0.5);
const withRequests = goalOf({ minutes: 0.96, requests: 0.96 }, 0.5);

describe('goalOf: the objective plus a share of its error budget, in every fold', () => {
  it.each([
    {
      case: '99.5 % with half the budget held back: 99.75 % a fold',
      minutes: 0.995,
      margin: 0.5,
      max: 0.0025,
    },
    { case: '99.5 % with no margin: the objective itself', minutes: 0.995, margin: 0, max: 0.005 },
    { case: '99.9 % with a quarter held back: 0.075 %', minutes: 0.999, margin: 0.25, max: 0.00075 },
  ])('$case', ({ minutes, margin, max }) => {
    const goal = goalOf({ minutes }, margin);
    expect(goal.maxViolationRatio).toBeCloseTo(max, 12);
    expect(goal.maxRequestsViolationRatio).toBeUndefined();
    expect(goal.source).toMatch(/^at least [\d.]+ % of minutes within the SLO in each fold/);
  });

  it('holds a requests objective back by the same margin', () => {
    expect(withRequests.maxRequestsViolationRatio).toBeCloseTo(0.02, 12);
    expect(withRequests.source).toMatch(/and 98 % of requests/);
  });
});

describe('feasible', () => {
  it.each([
    { case: 'within the goal in every fold', f: fig(1500, 15), goal: perFold, ok: true },
    {
      case: 'within overall but over in one fold (one good week hides a bad one)',
      f: fig(1500, 15, [0.001, 0.001, 0.03]),
      goal: perFold,
      ok: false,
    },
    {
      case: 'minutes within, requests over in one fold (a requests objective)',
      f: fig(1500, 15, [0.01, 0.01, 0.01], [0.01, 0.05, 0.01]),
      goal: withRequests,
      ok: false,
    },
    {
      case: 'requests over, but the objective has no requests share',
      f: fig(1500, 15, [0.01, 0.01, 0.01], [0.01, 0.05, 0.01]),
      goal: perFold,
      ok: true,
    },
  ])('$case', ({ f, goal, ok }) => {
    expect(feasible(f, goal)).toBe(ok);
  });

  it('measures the worst fold against its allowance (1.5: half again over)', () => {
    expect(worstFold(fig(1500, 15, [0.01, 0.03, 0.005]), perFold)).toBeCloseTo(1.5, 12);
  });
});

describe('compare: feasible first and cheapest, the rest by their worst fold, then violations', () => {
  it('orders as the goal says', () => {
    const list = [
      fig(2000, 30, [0.03, 0.03, 0.03]),
      fig(1800, 10),
      fig(1500, 15),
      fig(1400, 40, [0.01, 0.01, 0.1]),
      fig(3000, 5, [0.025, 0, 0]),
    ];
    const sorted = [...list]
      .sort((a, b) => compare(a, b, perFold))
      .map((f) => [f.instanceMinutes, f.violationMinutes]);
    expect(sorted).toEqual([
      [1500, 15],
      [1800, 10],
      [3000, 5],
      [2000, 30],
      [1400, 40],
    ]);
  });
});

describe('judged against the starting policy (Goal.reference, as tune does)', () => {
  // Fold costs (x oracle) and violation ratios, with the requests ratio equal to the minutes one.
  const folds = (costs: number[], bad: number[]) =>
    costs.map((c, i) => ({ costVsOracle: c, violationRatio: bad[i]!, requestsViolationRatio: bad[i]! }));
  const cand = (costs: number[], bad = [0.01, 0.01, 0.01]): Figures => ({
    ...fig(costs.reduce((a, b) => a + b, 0) * 1000, 10),
    folds: folds(costs, bad),
  });
  // The start: 2x in every fold, 3 % of minutes bad in the first (over the 2 % a fold allows).
  const start = folds([2, 2, 2], [0.03, 0.01, 0.01]);
  const goal = goalOf({ minutes: 0.96 }, 0.5, start);

  it.each([
    { case: 'the start itself', f: cand([2, 2, 2], [0.03, 0.01, 0.01]), ok: true },
    { case: 'cheaper in every fold, within the goal', f: cand([1.9, 1.9, 1.9]), ok: true },
    {
      case: 'dearer in one fold, however cheap overall (a saving one week paid for the next)',
      f: cand([1.2, 1.2, 2.05]),
      ok: false,
    },
    {
      case: 'over the margin in the first fold, but no further than the start was',
      f: cand([1.9, 1.9, 1.9], [0.03, 0.01, 0.01]),
      ok: true,
    },
    {
      case: 'over the margin further than the start was',
      f: cand([1.9, 1.9, 1.9], [0.035, 0.01, 0.01]),
      ok: false,
    },
    {
      case: 'over the margin in a fold where the start was within it',
      f: cand([1.9, 1.9, 1.9], [0.01, 0.03, 0.01]),
      ok: false,
    },
  ])('$case: feasible $ok', ({ f, ok }) => {
    expect(feasible(f, goal)).toBe(ok);
  });

  it('says so in the goal’s words', () => {
    expect(goal.source).toMatch(/or as much as the starting policy there, and in each fold no dearer/);
  });

  it('ranks by the fold that saves least: 2 % in every fold before 10 % in two and none in the third', () => {
    const even = cand([1.96, 1.96, 1.96]);
    const lumpy = cand([1.8, 1.8, 2]);
    expect(worstSaving(even, start)).toBeCloseTo(0.02, 12);
    expect(worstSaving(lumpy, start)).toBe(0);
    expect([lumpy, even].sort((a, b) => compare(a, b, goal))).toEqual([even, lumpy]);
  });
});

describe('paretoFront', () => {
  it('keeps the points no other beats on both cost and violation minutes, cheapest first', () => {
    const pts = [fig(1000, 50), fig(1200, 30), fig(1100, 60), fig(1500, 30), fig(1600, 10)].map(
      (figures) => ({ figures }),
    );
    expect(paretoFront(pts).map((p) => [p.figures.instanceMinutes, p.figures.violationMinutes])).toEqual([
      [1000, 50],
      [1200, 30],
      [1600, 10],
    ]);
  });
});
