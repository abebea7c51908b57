import { describe, expect, it } from 'vitest';
import type { Figures } from '#shared/tune/evaluate.ts';
import { compare, feasible, goalOf, paretoFront, worstFold } from '#shared/tune/objective.ts';

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
