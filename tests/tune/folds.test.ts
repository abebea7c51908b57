/**
 * A training fold longer than the objective's window is judged by its worst window, as the
 * backtest judges a run that long (shared/tune/evaluate.ts, shared/backtest/attainment.ts).
 */
import { describe, expect, it } from 'vitest';
import { worstWindow } from '#shared/backtest/attainment.ts';
import { lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import { evaluate } from '#shared/tune/evaluate.ts';
import { FOLDS } from '#shared/tune/folds.ts';
import { minuteTrace, variantTarget } from '../backtest/fixtures.ts';

const policy = (windowDays: number) =>
  variantTarget(`    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 100 }
    signals:
      - { metric: invocationsPerInstance, target: 75, tolerance: 0.05 }
      - { metric: p95LatencyMs, sloMs: 2000 }
    slo: { objective: { minutes: 0.99 }, windowDays: ${windowDays} }`);

// Four days, flat but for one-minute surges of 6x, all in the first day of the first fold.
const MINUTES = 4 * 1440;
const surges = [100, 400, 700, 1000];
const requests = Array.from({ length: MINUTES }, (_, m) => (surges.includes(m) ? 600 : 100));
const trace = minuteTrace('four-days', requests);

describe('tune folds', () => {
  it('reads a fold longer than the window by its worst window, a fold within it whole', () => {
    const run = (windowDays: number) => {
      const target = policy(windowDays);
      return evaluate(trace, target, referenceScenario(target), lookaheadMemo(), 'aws-target-tracking');
    };
    const daily = run(1);
    const monthly = run(30);
    const first = { from: 0, to: Math.floor(MINUTES / FOLDS) };
    expect(first.to - first.from).toBeGreaterThan(1440);
    // Within a 30-day window the fold is read whole; with a 1-day window, by its worst day.
    const bad = monthly.folds[0]!.violationRatio * (first.to - first.from);
    expect(bad).toBeGreaterThan(0);
    expect(daily.folds[0]!.violationRatio).toBeCloseTo(bad / 1440, 12);
    expect(daily.folds[0]!.violationRatio).toBeGreaterThan(monthly.folds[0]!.violationRatio);
    // The same scan the backtest uses, on the fold's own span.
    expect(
      worstWindow({ violationMinutes: [], requests, scoreFrom: first.from, end: first.to }, 1440).badMinutes,
    ).toBe(0);
    // The other folds had no surge: nothing to find in either reading.
    expect(daily.folds.slice(1).map((f) => f.violationRatio)).toEqual(
      monthly.folds.slice(1).map((f) => f.violationRatio),
    );
  });
});
