/**
 * The look-ahead's measured parts. The backtest measures the lead time as AWS does: the
 * governor policy times its own scale-outs in the simulated fleet, and the floor is planned over
 * the measured lead once it exceeds the configured one, with LeadTimeMeasured on the decisions
 * it shaped. Before a day of history exists, the last level plus its measured noise is the
 * floor. A floor from a fallback forecaster says which one.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32, poisson } from '#shared/backtest/noise.ts';
import { ScaleOutClock } from '#shared/backtest/policies/lead-clock.ts';
import { Lookahead } from '#shared/backtest/policies/lookahead.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import { effectiveLead, LEAD_MAX_SAMPLES } from '#shared/floors/lead-time.ts';
import type { ForecastPolicy, NoisePolicy, TargetPolicy } from '#shared/policy/schema.ts';
import { noiseSd } from '#shared/sizing/noise-model.ts';
import { normal, rng, synthetic } from '../forecast/synthetic.ts';
import { DAY, dailySteps, variantTarget } from './fixtures.ts';
import { datapoints, metricsOf } from './views.ts';

const FORECAST: ForecastPolicy = {
  enabled: true,
  quantile: 'p50',
  leadTimeMinutes: 10,
  historyDays: 14,
  refreshMinutes: 60,
  dayStartMinute: 0,
  scheduledActions: false,
};

const MIN = 60_000;

describe('ScaleOutClock', () => {
  it('times a scale-out from the minute it was asked for to the minute its capacity is all ready', () => {
    const clock = new ScaleOutClock();
    clock.decided(4, 9, 10 * MIN);
    expect(clock.observe(6, 14 * MIN)).toBe(false);
    expect(clock.observe(9, 25 * MIN)).toBe(true);
    expect(clock.samples).toEqual([{ requestedAt: 10 * MIN, servingAt: 25 * MIN }]);
    expect(clock.observe(12, 26 * MIN)).toBe(false); // timed once
  });

  it('drops a scale-out a scale-in undid before it served: it never serves', () => {
    const clock = new ScaleOutClock();
    clock.decided(4, 9, 10 * MIN);
    clock.decided(9, 5, 12 * MIN);
    expect(clock.observe(9, 20 * MIN)).toBe(false);
    expect(clock.samples).toEqual([]);
  });

  it('says the samples changed only when their durations did: what the measured lead reads', () => {
    const clock = new ScaleOutClock();
    const scaleOut = (at: number, minutes: number): boolean => {
      clock.decided(1, 2, at * MIN);
      return clock.observe(2, (at + minutes) * MIN);
    };
    // Twenty 8-minute scale-outs: each one adds a sample until twenty are kept.
    for (let i = 0; i < LEAD_MAX_SAMPLES; i++) expect(scaleOut(60 * i, 8)).toBe(true);
    // The twenty-first replaces the oldest, which took as long: nothing the lead reads moved.
    expect(scaleOut(60 * LEAD_MAX_SAMPLES, 8)).toBe(false);
    expect(clock.samples).toHaveLength(LEAD_MAX_SAMPLES);
    expect(clock.samples[0]!.requestedAt).toBe(60 * MIN);
    // A slower one does move it.
    expect(scaleOut(60 * (LEAD_MAX_SAMPLES + 1), 15)).toBe(true);
    // Nineteen slow ones more: the p90 the lead reads is now 15 minutes, plus the metric delay.
    for (let i = 2; i <= LEAD_MAX_SAMPLES; i++) scaleOut(60 * (LEAD_MAX_SAMPLES + i), 15);
    expect(effectiveLead(10, clock.samples).minutes).toBe(16);
  });

  it('times each of two overlapping scale-outs', () => {
    const clock = new ScaleOutClock();
    clock.decided(4, 6, 0);
    clock.decided(6, 9, 2 * MIN);
    clock.observe(6, 8 * MIN);
    clock.observe(9, 10 * MIN);
    expect(clock.samples).toEqual([
      { requestedAt: 0, servingAt: 8 * MIN },
      { requestedAt: 2 * MIN, servingAt: 10 * MIN },
    ]);
  });
});

const target = (extra: string): TargetPolicy =>
  variantTarget(`    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 200 }
    signals:
      - { metric: invocationsPerInstance, target: 75 }
${extra}`);

describe('the measured lead in a backtest with a 15-minute cold start and a 10-minute configured lead', () => {
  const policy = target('    forecast: { quantile: p50, leadTimeMinutes: 10, refreshMinutes: 60 }');
  const result = runBacktest({
    trace: dailySteps(4, true),
    target: policy,
    options: { ...DEFAULT_SCENARIO, coldStartMinutes: 15 },
    only: ['governor'],
  });
  const governor = result.policies[0]!;

  it('plans floors over the measured 16 minutes (15 + 1 of metric delay) and says so on the decisions', () => {
    expect(governor.summary.reasonCounts?.LeadTimeMeasured).toBeGreaterThan(0);
    const marked = governor.decisions!.find((d) => d.reasons.includes('LeadTimeMeasured'))!;
    expect(marked.message).toMatch(
      /planned over the measured 16-minute lead time \(p90 of \d+ scale-outs\), above the configured 10/,
    );
  });

  it('keeps the configured lead when the fleet starts within it (8-minute cold start)', () => {
    const fast = runBacktest({
      trace: dailySteps(4, true),
      target: policy,
      options: DEFAULT_SCENARIO,
      only: ['governor'],
    });
    expect(fast.policies[0]!.summary.reasonCounts?.LeadTimeMeasured ?? 0).toBe(0);
  });
});

describe('the level floor: measured noise before a day of history', () => {
  // 90 minutes of Poisson counts around 20 a minute (sd about 4.5): relatively noisy.
  const random = mulberry32(5);
  const counts = Array.from({ length: 90 }, () => poisson(20, random));
  const metrics = metricsOf(datapoints(counts, 1));
  const look = (noise?: NoisePolicy) =>
    new Lookahead({
      forecast: { ...FORECAST, enabled: true },
      ...(noise ? { noise } : {}),
      kind: 'sagemaker-variant',
      leadMinutes: 10,
      coldStartMinutes: 8,
      requestsPerInstance: 7.5,
      instanceCapacity: 10,
      minutes: 200,
    });
  const NOISE: NoisePolicy = {
    enabled: true,
    floorSigmas: 2.6,
    bandSigmas: 1,
    historyMinutes: 2880,
    levelMinutes: 15,
  };

  it('is the median of the last 15 minutes plus 2.6 of its measured standard deviations, at the SLO capacity', () => {
    const l = look(NOISE);
    l.update(metrics, 90);
    const model = l.noise!;
    expect(model.samples).toBeGreaterThan(60);
    const level = [...counts.slice(-15)].sort((a, b) => a - b)[7]!;
    expect(l.floorAt(90)).toEqual({
      capacity: Math.ceil((level + 2.6 * noiseSd(model, level)) / 10 - 1e-9),
      kind: 'level',
    });
    expect(l.floorAt(90)!.capacity).toBeGreaterThanOrEqual(3);
  });

  it('holds for the hour until the next refit, and is not there without a noise section', () => {
    const l = look(NOISE);
    l.update(metrics, 90);
    expect(l.floorAt(149)).toEqual(l.floorAt(90));
    expect(l.floorAt(150)).toBeUndefined();
    const off = look();
    off.update(metrics, 90);
    expect(off.floorAt(90)).toBeUndefined();
    expect(off.noise).toBeNull();
  });

  it('waits for 35 minutes of history (15 for a level, 20 to fit)', () => {
    const l = look(NOISE);
    l.update(metricsOf(datapoints(counts.slice(0, 34), 1)), 34);
    expect(l.noise).toBeNull();
    expect(l.floorAt(34)).toBeUndefined();
  });
});

describe('a floor from a fallback forecaster', () => {
  // Two weeks of a daily and weekly cycle, then 30 hours flat at a third of it (a drained
  // service): the seasonal model scores worse than the last hour held flat.
  const draw = normal(rng(9));
  const breakAt = 13 * DAY + 300;
  const demand = synthetic({ days: 15, weekendFactor: 0.6, noise: 0.1, seed: 3 })
    .slice(0, breakAt + 30 * 60)
    .map((v, m) => (m >= breakAt ? Math.round(35 * Math.exp(0.1 * draw())) : v));
  const metrics = metricsOf(datapoints(demand, 1));

  it('says which forecaster it came from, for the ForecastFallback reason', () => {
    const look = new Lookahead({
      forecast: { ...FORECAST, historyDays: 14 },
      kind: 'sagemaker-variant',
      leadMinutes: 10,
      coldStartMinutes: 8,
      requestsPerInstance: 7.5,
      instanceCapacity: 10,
      minutes: demand.length + 10,
    });
    look.update(metrics, demand.length + 2);
    expect(look.floorAt(demand.length + 2)).toMatchObject({ kind: 'forecast', fallback: 'recent-level' });
  });
});
