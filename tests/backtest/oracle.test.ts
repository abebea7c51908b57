import { describe, expect, it } from 'vitest';
import { oraclePolicy } from '#shared/backtest/policies/oracle.ts';
import { staticPeakPolicy } from '#shared/backtest/policies/static-peak.ts';
import { buildScenario, DEFAULT_SCENARIO, instancesFor, oracleCapacity } from '#shared/backtest/scenario.ts';
import { simulate } from '#shared/backtest/simulate.ts';

const run = (requests: number[], peakInstances: number, policy: 'oracle' | 'static-peak') => {
  const options = { ...DEFAULT_SCENARIO, peakInstances };
  const workload = { requests, work: requests };
  const scenario = buildScenario(workload, options, undefined);
  const oracleInstanceMinutes = oracleCapacity(requests, peakInstances).reduce((a, b) => a + b, 0);
  const ctx = { scenario, work: requests };
  const p = policy === 'oracle' ? oraclePolicy(ctx) : staticPeakPolicy(ctx);
  return simulate(p, { scenario, workload, oracleInstanceMinutes });
};

describe('the oracle', () => {
  it.each([
    {
      // max 40, 4 at peak: mu = 10 requests/min per instance. 10 -> 1, 20 -> 2, 40 -> 4, 30 -> 3,
      // 0 -> 0 but minCapacity 1. Sum 11.
      case: 'a small ramp needs 1, 2, 4, 3 and the minimum 1: 11 instance-minutes',
      requests: [10, 20, 40, 30, 0],
      peak: 4,
      capacity: [1, 2, 4, 3, 1],
    },
    {
      // max 56, 40 at peak: mu = 1.4. 21 / 1.4 is 15.000000000000002 in floats (naive ceil: 16);
      // 21 x 40 / 56 - 1e-9 rounds up to exactly 15. 56 -> 40. Sum 55.
      case: 'rounding noise never adds an instance (21 of 56 with 40 at peak is 15, not 16)',
      requests: [21, 56],
      peak: 40,
      capacity: [15, 40],
    },
    {
      // max 7, 3 at peak: mu = 7/3. 1 -> ceil(0.43) = 1, 3 -> ceil(1.29) = 2, 7 -> 3, 5 -> ceil(2.14) = 3.
      case: 'fractions round up: 1, 3, 7, 5 of 7 with 3 at peak need 1, 2, 3, 3',
      requests: [1, 3, 7, 5],
      peak: 3,
      capacity: [1, 2, 3, 3],
    },
  ])('$case', ({ requests, peak, capacity }) => {
    expect(oracleCapacity(requests, peak)).toEqual(capacity);
    const result = run(requests, peak, 'oracle');
    const total = capacity.reduce((a, b) => a + b, 0);
    expect(result.summary.instanceMinutes).toBe(total);
    expect(result.summary.costVsOracle).toBe(1);
    expect(result.summary.violationMinutes).toBe(0);
    expect(result.series.ready).toEqual(capacity);
  });

  it('serves each minute from that minute: no start-up delay, so it never violates', () => {
    // A jump from 1 to 40 instances in one minute is met at once.
    const result = run([1, 1, 100, 1, 100], 40, 'oracle');
    expect(result.series.ready).toEqual([1, 1, 40, 1, 40]);
    expect(result.summary.violationMinutes).toBe(0);
    // Changes at minutes 2, 3 and 4; it starts at oracle(0), so minute 0 is no action.
    expect(result.summary.scalingActions).toBe(3);
  });
});

describe('static peak', () => {
  it.each([
    // 40 instances x 5 minutes = 200 instance-minutes; the oracle needs 1+2+4+3+1 = 11 at 4 at
    // peak, but here peak is 40: 10 -> 10, 20 -> 20, 40 -> 40, 30 -> 30, 0 -> 1 = 101.
    {
      case: '40 at peak over 5 minutes is 200 instance-minutes, 200/101 of the oracle',
      requests: [10, 20, 40, 30, 0],
      peak: 40,
      minutes: 200,
      vsOracle: 200 / 101,
    },
    // 4 x 3 = 12; oracle 1 + 4 + 1 = 6.
    {
      case: '4 at peak over 3 minutes is 12 instance-minutes, twice the oracle',
      requests: [5, 40, 0],
      peak: 4,
      minutes: 12,
      vsOracle: 2,
    },
  ])('$case', ({ requests, peak, minutes, vsOracle }) => {
    const result = run(requests, peak, 'static-peak');
    expect(result.summary.instanceMinutes).toBe(minutes);
    expect(result.summary.costVsOracle).toBeCloseTo(vsOracle, 12);
    expect(result.summary.violationMinutes).toBe(0);
    expect(result.summary.scalingActions).toBe(0);
  });

  it('prices instance-minutes per instance-hour: 200 instance-minutes at 1.52 USD/h cost 5.0667 USD', () => {
    const result = run([10, 20, 40, 30, 0], 40, 'static-peak');
    expect(result.summary.costUsd).toBeCloseTo((200 / 60) * 1.52, 10);
  });
});

describe('the initial fleet', () => {
  it.each([
    // Minutes 0..8 inclusive (cold start 8): max 40 of a peak of 80, 40 at peak -> 20.
    {
      case: 'sized for the busiest of minutes 0 to coldStartMinutes inclusive',
      requests: [10, 10, 10, 10, 10, 10, 10, 10, 40, 80],
      cold: 8,
      initial: 20,
    },
    // Cold start 2: minutes 0..2 only, max 10 of 80 -> 5; minute 8's 40 is not seen.
    {
      case: 'a shorter cold start looks at fewer minutes',
      requests: [10, 10, 10, 10, 10, 10, 10, 10, 40, 80],
      cold: 2,
      initial: 5,
    },
    // An idle opening still starts at minCapacity 1.
    { case: 'an idle opening starts at minCapacity', requests: [0, 0, 0, 100], cold: 2, initial: 1 },
  ])('$case', ({ requests, cold, initial }) => {
    const scenario = buildScenario(
      { requests, work: requests },
      { ...DEFAULT_SCENARIO, coldStartMinutes: cold },
      undefined,
    );
    expect(scenario.initialInstances).toBe(initial);
  });

  it('instancesFor is the oracle rounding: exact multiples stay whole', () => {
    expect(instancesFor(50, 100, 40, 1)).toBe(20);
    expect(instancesFor(50.0001, 100, 40, 1)).toBe(21);
    expect(instancesFor(0, 100, 40, 1)).toBe(1);
  });
});
