import { describe, expect, it } from 'vitest';
import { MetricsFeed } from '#shared/backtest/metrics.ts';
import { governorPolicy } from '#shared/backtest/policies/governor.ts';
import { snapshotFrom } from '#shared/backtest/policies/snapshot.ts';
import { buildScenario, DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { simulate } from '#shared/backtest/simulate.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { variantTarget } from './fixtures.ts';
import { datapoints } from './views.ts';

const target = (extra = ''): TargetPolicy =>
  variantTarget(`    scaling: { minCapacity: 1, maxCapacity: 8 }
    signals:
      - { metric: invocationsPerInstance, target: 7, tolerance: 0.1 }
      - { metric: gpuUtilization, target: 70 }
      - { metric: gpuMemoryUtilization, target: 70 }
    damping: { scaleOutBreaches: 1, scaleInBreaches: 3 }
${extra}`);

describe('the snapshot the governor policy decides on', () => {
  // Datapoints of minutes 0..5, each 6 requests per instance over 3 ready instances.
  const feed = new MetricsFeed(1);
  for (const d of datapoints([6, 6, 6, 6, 6, 6], 3)) feed.record({ ...d, gpuUtilization: 40 });

  it('holds only what CloudWatch has delivered: at minute 5 with delay 1, minute 3 stamped 180 s', () => {
    feed.advanceTo(5);
    const snap = snapshotFrom(
      { now: 300_000, ready: 4, pending: 2, warmIdle: 0, metrics: feed },
      target(),
      1,
    );
    expect(snap.capacity).toEqual({ desired: 6, ready: 4 });
    expect(snap.readings.invocationsPerInstance).toEqual({ value: 6, timestamp: 180_000, basis: 3 });
    expect(snap.readings.gpuUtilization).toEqual({ value: 40, timestamp: 180_000, basis: 3 });
  });

  it.each([
    {
      case: 'request signals are multiplied by k = requestsPerMinuteAtSlo / mu (k 12: 6 reads as 72)',
      k: 12,
      invocations: 72,
    },
    { case: 'k 1 leaves them as they are', k: 1, invocations: 6 },
  ])('$case', ({ k, invocations }) => {
    feed.advanceTo(5);
    const snap = snapshotFrom(
      { now: 300_000, ready: 3, pending: 0, warmIdle: 0, metrics: feed },
      target(),
      k,
    );
    expect(snap.readings.invocationsPerInstance?.value).toBe(invocations);
    // Percentages need no units.
    expect(snap.readings.gpuUtilization?.value).toBe(40);
  });

  it('leaves a metric the simulator does not model missing, and has no readings before the first delivery', () => {
    feed.advanceTo(5);
    const snap = snapshotFrom(
      { now: 300_000, ready: 3, pending: 0, warmIdle: 0, metrics: feed },
      target(),
      1,
    );
    expect(snap.readings.gpuMemoryUtilization).toBeUndefined();
    feed.advanceTo(1);
    const early = snapshotFrom(
      { now: 60_000, ready: 3, pending: 0, warmIdle: 0, metrics: feed },
      target(),
      1,
    );
    expect(early.readings).toEqual({});
  });
});

describe('the governor policy in a run', () => {
  // 7 requests a minute until minute 20, then 40. 4 at peak: mu = 10, one instance at first
  // (7 / 10 rounds up to 1), reading 7 = its target. The jump is seen at 20 + 1 + delay.
  const requests = [...Array.from({ length: 20 }, () => 7), ...Array.from({ length: 20 }, () => 40)];
  const run = (delay: number, t = target()) => {
    const workload = { requests, work: requests };
    const scenario = buildScenario(
      workload,
      { ...DEFAULT_SCENARIO, peakInstances: 4, metricDelayMinutes: delay },
      10,
    );
    const policy = governorPolicy({ target: t, unitScale: scenario.policyUnitScale, warmPoolSize: 0 });
    return simulate(policy, { scenario, workload, oracleInstanceMinutes: 1 });
  };

  it.each([
    { case: 'with delay 0 it scales out at minute 21', delay: 0, minute: 21 },
    { case: 'with delay 1 (the default) at minute 22', delay: 1, minute: 22 },
    { case: 'with delay 2 at minute 23', delay: 2, minute: 23 },
  ])('$case', ({ delay, minute }) => {
    const result = run(delay);
    const first = result.decisions![0]!;
    expect(first.minute).toBe(minute);
    expect(first.action).toBe('scale-out');
    expect(first.from).toBe(1);
    // 40 per instance is 5.7x the target of 7: panic, straight to the proposal (4 = stepUp limit).
    expect(first.reasons[0]).toBe('PanicScaleOut');
  });

  it('counts every decision by reason and marks only the ones that moved capacity', () => {
    const result = run(1);
    const counts = result.summary.reasonCounts!;
    // 2 minutes with nothing delivered, then within band until the jump is seen at minute 22.
    expect(counts.NoData).toBe(2);
    expect(counts.WithinBand).toBe(20);
    expect(result.decisions!.every((d) => d.action !== 'hold')).toBe(true);
    expect(result.decisions!.length).toBe(result.summary.scalingActions);
  });

  it('carries its engine state: with 3 breaches needed, the scale-out waits two more minutes', () => {
    const t = target();
    const slow = {
      ...t,
      damping: { ...t.damping, scaleOutBreaches: 3 },
      panic: { ...t.panic, enabled: false },
    };
    expect(run(1, slow).decisions![0]!.minute).toBe(24);
  });
});
