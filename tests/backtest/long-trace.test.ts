/**
 * A trace longer than V8's argument limit (issue 18, "Any length"): Math.max(...oracle) in
 * bounds.ts threw "Maximum call stack size exceeded" on any trace over about 125,000 minutes
 * (87 days), after the table and before the JSON and HTML. 130,000 synthetic minutes through
 * the backtest core with one cheap policy (static peak; the oracle always runs), its bound
 * notes and the cost chart's model: seconds, not the minutes a full run takes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boundNotes } from '#shared/backtest/bounds.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { referenceScenario } from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { costChartModel } from '#shared/report/cost-chart.ts';
import { yearTrace } from '../../scripts/year-trace.ts';

const MINUTES = 130_000;

describe('a backtest of 130,000 minutes', () => {
  it('runs, says the bound that bound and draws the cost chart without a stack overflow', () => {
    // maxCapacity 2 is below what the busiest minute needs, so boundNotes reads the whole oracle.
    const text = readFileSync('examples/policy.yaml', 'utf8').replace(/maxCapacity: \d+/, 'maxCapacity: 2');
    const parsed = parsePolicyText(text);
    if (!parsed.ok) throw new Error('example policy invalid');
    const target = parsed.policy.targets[0]!;
    const trace: Trace = {
      name: 'year-130k.csv',
      resolution: 'minute',
      requests: yearTrace(MINUTES),
      inputTokens: null,
      outputTokens: null,
    };
    const result = runBacktest({ trace, target, options: referenceScenario(target), only: ['static-peak'] });
    expect(result.oracle).toHaveLength(MINUTES);
    expect(() => boundNotes(result, target)).not.toThrow();
    const chart = costChartModel(result);
    expect(chart.buckets.length).toBeGreaterThan(0);
    expect(chart.yMax).toBeGreaterThan(0);
  });
});
