import { describe, expect, it } from 'vitest';
import {
  awsConcurrencyTrackingPolicy,
  concurrencyAt,
  highResolutionDelay,
} from '#shared/backtest/policies/aws-target-tracking-concurrency.ts';
import type { ResolvedScenario } from '#shared/backtest/scenario.ts';

const scenario = {
  muSat: 12.5,
  mu: 10,
  sloMs: 2000,
  sloUtilization: 0.8,
  metricDelayMinutes: 1,
} as unknown as ResolvedScenario;

describe('target tracking on the high-resolution concurrency metric', () => {
  it('targets the concurrency at half the saturation rate: 6.25 req/min x 267 ms', () => {
    // Mean time in system at u 0.5: 2000 x 0.2 / 0.5 / ln 20 = 267 ms.
    expect(concurrencyAt(0.5, scenario)).toBeCloseTo((6.25 / 60) * (800 / Math.log(20) / 1000), 12);
  });

  it.each([
    { delay: 0, folded: 0 },
    { delay: 1, folded: 0 },
    { delay: 2, folded: 1 },
  ])('sees a minute sooner than one-minute metrics: delay $delay -> $folded', ({ delay, folded }) => {
    expect(highResolutionDelay(delay)).toBe(folded);
  });

  it('runs on its own metric delay', () => {
    const policy = awsConcurrencyTrackingPolicy(scenario);
    expect(policy.name).toBe('aws-target-tracking-concurrency');
    expect(policy.metricDelayMinutes).toBe(0);
  });
});
