/**
 * Held-out scoring: every policy runs the whole trace (the forecaster keeps its history) and
 * the figures count only minutes from --score-from on.
 */
import { describe, expect, it } from 'vitest';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { formatTable } from '#shared/backtest/table.ts';
import { scoreFromOption } from '#shared/cli/backtest.ts';
import { dailySteps, variantTarget } from './fixtures.ts';

const target = variantTarget(`    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 200 }
    signals:
      - { metric: invocationsPerInstance, target: 75 }
    forecast: { quantile: p50, refreshMinutes: 60 }`);
const trace = dailySteps(3, true);
const whole = runBacktest({ trace, target, options: DEFAULT_SCENARIO });
const from = 2 * 1440;
const scored = runBacktest({ trace, target, options: DEFAULT_SCENARIO, scoreFrom: from });
const by = (r: typeof whole, name: string) => r.policies.find((p) => p.summary.name === name)!;

describe('--score-from', () => {
  it('counts instance-minutes, violations and actions of the scored minutes only, from the same run', () => {
    for (const name of ['governor', 'aws-target-tracking', 'oracle']) {
      const full = by(whole, name);
      const part = by(scored, name);
      const provisioned = full.series.provisioned.slice(from).reduce((a, b) => a + b, 0);
      expect(part.summary.instanceMinutes).toBeCloseTo(provisioned, 6);
      expect(part.summary.violationMinutes).toBe(
        full.series.violationMinutes.filter((m) => m >= from).length,
      );
      expect(part.series.ready).toEqual(full.series.ready);
      expect(part.series.provisioned).toEqual(full.series.provisioned);
    }
  });

  it('measures cost against the oracle of the scored minutes: the oracle stays 1.00x', () => {
    expect(by(scored, 'oracle').summary.costVsOracle).toBe(1);
    expect(by(scored, 'governor').summary.violationRatio).toBe(
      by(scored, 'governor').summary.violationMinutes / (trace.requests.length - from),
    );
  });

  it('says in the table what was scored', () => {
    expect(formatTable(scored)).toContain(
      'scored from minute 2,880 (2.0 days in) to the end: 1,440 minutes (24.0 hours); every policy ran the whole trace',
    );
    expect(scored.trace.scoreFrom).toBe(from);
    expect(whole.trace.scoreFrom).toBeUndefined();
  });

  it('refuses a start that leaves nothing to score', () => {
    expect(() =>
      runBacktest({ trace, target, options: DEFAULT_SCENARIO, scoreFrom: trace.requests.length }),
    ).toThrow(/scoring from minute 4320 leaves nothing to score/);
  });
});

describe('scoreFromOption', () => {
  it.each([
    { raw: '0.67', minutes: 3000, minute: 2010 },
    { raw: '0.5', minutes: 101, minute: 50 },
    { raw: '1', minutes: 3000, minute: 1 },
    { raw: '2880', minutes: 4320, minute: 2880 },
  ])('"$raw" of $minutes minutes is minute $minute', ({ raw, minutes, minute }) => {
    expect(scoreFromOption(raw, minutes)).toBe(minute);
  });

  it.each([
    { raw: '1.5', message: /a fraction of it below 1/ },
    { raw: '-3', message: /a minute of the trace/ },
    { raw: 'abc', message: /a minute of the trace/ },
    { raw: '5000', message: /is minute 5000, but the trace has 4320 minutes/ },
  ])('refuses "$raw" in one line naming the fix', ({ raw, message }) => {
    expect(() => scoreFromOption(raw, 4320)).toThrow(message);
  });
});
