import { describe, expect, it } from 'vitest';
import type { Figures } from '#shared/tune/evaluate.ts';
import { compare, feasible, paretoFront } from '#shared/tune/objective.ts';

const fig = (instanceMinutes: number, violationMinutes: number, folds = [0.01, 0.01, 0.01]): Figures => ({
  instanceMinutes,
  costVsOracle: instanceMinutes / 1000,
  violationMinutes,
  violationRatio: violationMinutes / 1000,
  scalingActions: 0,
  folds: folds.map((v) => ({ costVsOracle: 1, violationRatio: v })),
});
const perFold = { violationRatio: 0.02, perFold: [0.02, 0.02, 0.02], source: 'target tracking' };
const single = { violationRatio: 0.02, source: '2 %' };

describe('feasible', () => {
  it.each([
    { case: 'within the goal overall and in every fold', f: fig(1500, 15), goal: perFold, ok: true },
    { case: 'over the goal overall', f: fig(1500, 25), goal: perFold, ok: false },
    {
      case: 'within overall but over in one fold (one good week hides a bad one)',
      f: fig(1500, 15, [0.001, 0.001, 0.03]),
      goal: perFold,
      ok: false,
    },
    {
      case: 'one-number goal: a fold up to 1.5x is tolerated',
      f: fig(1500, 15, [0.005, 0.01, 0.029]),
      goal: single,
      ok: true,
    },
    {
      case: 'one-number goal: a fold beyond 1.5x is not',
      f: fig(1500, 15, [0.001, 0.001, 0.031]),
      goal: single,
      ok: false,
    },
  ])('$case', ({ f, goal, ok }) => {
    expect(feasible(f, goal)).toBe(ok);
  });
});

describe('compare: feasible first and cheapest, the rest by violations', () => {
  it('orders as the goal says', () => {
    const list = [fig(2000, 30), fig(1800, 10), fig(1500, 15), fig(1400, 40), fig(3000, 5)];
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
