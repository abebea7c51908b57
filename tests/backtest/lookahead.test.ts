import { describe, expect, it, vi } from 'vitest';
import { Fleet } from '#shared/backtest/fleet.ts';
import { MetricsFeed } from '#shared/backtest/metrics.ts';
import { DeliveredWindow } from '#shared/backtest/policies/delivered-window.ts';
import { DIRECT_FITS, Lookahead, lookaheadMemo } from '#shared/backtest/policies/lookahead.ts';
import { runBacktest } from '#shared/backtest/run.ts';
import { DEFAULT_SCENARIO } from '#shared/backtest/scenario.ts';
import type { Trace } from '#shared/backtest/trace.ts';
import { floorSchedule, stepAt } from '#shared/floors/forecast.ts';
import type { Forecast } from '#shared/forecast/types.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { DAY, dailySteps, variantTarget } from './fixtures.ts';
import { datapoints } from './views.ts';

const target = (extra: string): TargetPolicy =>
  variantTarget(`    instanceCapacity: { requestsPerMinuteAtSlo: 120 }
    scaling: { minCapacity: 1, maxCapacity: 80 }
    signals:
      - { metric: invocationsPerInstance, target: 84 }
${extra}`);

describe('the governor look-ahead in the backtest', () => {
  const trace = dailySteps(4);
  const withForecast = target('    forecast: { requestsPerInstance: 110, refreshMinutes: 60 }');
  const result = runBacktest({ trace, target: withForecast, options: DEFAULT_SCENARIO });
  const byName = Object.fromEntries(result.policies.map((p) => [p.summary.name, p.summary]));

  it('runs governor-reactive beside governor so the forecast gain shows in one run', () => {
    expect(result.policies.map((p) => p.summary.name).slice(0, 2)).toEqual(['governor', 'governor-reactive']);
  });

  it('meets the morning ramp that a reactive scaler is 8 minutes late for', () => {
    // Reactive: every morning the ramp outruns an 8-minute cold start (21 minutes a day here).
    expect(byName['governor-reactive']!.violationMinutes).toBeGreaterThanOrEqual(3 * 5);
    // With the floor, days 2-4 are provisioned ahead; only day 1 (no history yet) is late.
    expect(result.policies[0]!.series.violationMinutes.every((m) => m < DAY)).toBe(true);
    expect(byName.governor!.violationMinutes).toBeLessThan(byName['governor-reactive']!.violationMinutes / 2);
    expect(byName.governor!.reasonCounts?.ForecastFloor).toBeGreaterThan(0);
  });

  it('forecasts nothing on the first day: one whole day of delivered history is needed', () => {
    expect(result.forecast).toBeDefined();
    const firstDay = result.forecast!.p90.slice(0, DAY);
    expect(firstDay.every((v) => v === 0)).toBe(true);
    // Day 3 at noon: the band sits on the 400 requests a minute it has seen twice.
    expect(result.forecast!.p50[2 * DAY + 720]).toBeGreaterThan(300);
  });

  it('never reads a datapoint CloudWatch has not delivered (the feed throws if it did)', () => {
    const feed = new MetricsFeed(1);
    for (const d of datapoints(new Array(DAY + 10).fill(5), 2)) feed.record(d);
    const look = new Lookahead({
      forecast: withForecast.forecast!,
      kind: 'sagemaker-variant',
      leadMinutes: 9,
      coldStartMinutes: 8,
      requestsPerInstance: 10,
      instanceCapacity: 10,
      minutes: DAY + 10,
    });
    feed.advanceTo(DAY + 5);
    expect(() => look.update(feed, DAY + 5)).not.toThrow();
    expect(look.floorAt(DAY + 5)?.capacity).toBeGreaterThanOrEqual(1);
    expect(look.floorAt(DAY + 5)?.kind).toBe('forecast');
    expect(look.floorAt(DAY + 4)).toBeUndefined();
  });
});

describe('the floor AWS stores is the floor the backtest holds', () => {
  // A day and a half of a daily wave: the look-ahead forecasts at minute `at`, and the forecast
  // function's schedule of the same forecast (shared/floors/forecast.ts) must hold, minute by
  // minute, what the look-ahead holds: both read shared/sizing/floor-needs.ts heldNeed.
  const minutes = DAY + 720;
  const demand = Array.from(
    { length: minutes },
    (_, m) => 400 + 300 * Math.sin((2 * Math.PI * m) / DAY) + (m % 7) * 9,
  );
  const section = target('    forecast: { requestsPerInstance: 110, refreshMinutes: 120 }');
  const floorsAt = (at: number, lead: number) => {
    const feed = new MetricsFeed(1);
    for (const d of datapoints(demand, 1)) feed.record(d);
    const made: Forecast[] = [];
    const look = new Lookahead({
      forecast: section.forecast!,
      kind: 'sagemaker-variant',
      leadMinutes: lead,
      coldStartMinutes: 8,
      requestsPerInstance: 110,
      instanceCapacity: 120,
      minutes,
      fits: {
        ...DIRECT_FITS,
        forecast: (h, o, p) => {
          const r = DIRECT_FITS.forecast(h, o, p);
          if (r.ok) made.push(r);
          return r;
        },
      },
    });
    feed.advanceTo(at);
    look.update(feed, at);
    expect(made).toHaveLength(1);
    const floor = floorSchedule({
      forecast: made[0]!,
      quantile: section.forecast!.quantile,
      leadTimeMinutes: lead,
      requestsPerInstance: 110,
      scaling: { minCapacity: 1, maxCapacity: 1000, scaleToZero: false },
      computedAt: at * 60_000,
    });
    const span = section.forecast!.refreshMinutes + lead;
    return Array.from({ length: span }, (_, k) => ({
      backtest: look.floorAt(at + k)!.capacity,
      aws: floor.capacities[stepAt(floor, (at + k) * 60_000)]!,
    }));
  };

  it.each([
    { at: DAY + 61, lead: 10 },
    { at: DAY + 301, lead: 14 },
    { at: DAY + 476, lead: 33 },
  ])(
    'the same every minute when the forecast starts on five minutes (minute $at, lead $lead)',
    ({ at, lead }) => {
      // Delivered through minute at - 2 (delay 1): the forecast's origin is at - 1, a multiple of 5.
      const floors = floorsAt(at, lead);
      expect(floors.map((f) => f.aws)).toEqual(floors.map((f) => f.backtest));
    },
  );

  it('is no flat line, and never rises inside a block: a ramp is asked for where its block starts', () => {
    const at = DAY + 61;
    const floors = floorsAt(at, 10).map((f) => f.backtest);
    expect(new Set(floors).size).toBeGreaterThan(1);
    floors.forEach((f, k) => {
      if (k > 0 && (at + k) % 30 !== 0) expect(f).toBeLessThanOrEqual(floors[k - 1]!);
    });
  });

  it('never less than the backtest holds when the forecast starts between five-minute marks', () => {
    for (const f of floorsAt(DAY + 63, 10)) expect(f.aws).toBeGreaterThanOrEqual(f.backtest);
  });
});

describe('warm capacity of the kind the target can keep', () => {
  // Bursts of +60 requests for 2 minutes in every 12: most cold-start windows see a rise.
  const steps = dailySteps(4);
  const bursty = steps.requests.map((r, m) => (m % 12 < 2 ? r + 60 : r));
  const trace: Trace = { ...steps, name: 'bursty-steps', requests: bursty };
  const section = (kind: string) => {
    const t = target(
      '    forecast: { requestsPerInstance: 110, refreshMinutes: 60 }\n    warmPool: { maxSize: 6 }',
    );
    return kind === 'ec2-asg' ? ({ ...t, kind: 'ec2-asg', autoScalingGroupName: 'g' } as TargetPolicy) : t;
  };
  const run = (kind: string) => runBacktest({ trace, target: section(kind), options: DEFAULT_SCENARIO });
  const governor = (r: ReturnType<typeof run>) => r.policies.find((p) => p.summary.name === 'governor')!;

  it('keeps stopped warm-pool instances for an Auto Scaling group', () => {
    const asg = governor(run('ec2-asg'));
    expect(Math.max(...asg.series.warmPool)).toBeGreaterThan(0);
  });

  it('keeps no warm pool on SageMaker: standby instances in service above the floor instead, billed in full', () => {
    const sm = governor(run('sagemaker-variant'));
    const noPool = governor(
      runBacktest({
        trace,
        target: target('    forecast: { requestsPerInstance: 110, refreshMinutes: 60 }'),
        options: DEFAULT_SCENARIO,
      }),
    );
    expect(sm.series.warmPool.every((w) => w === 0)).toBe(true);
    // The headroom is ready capacity the plain floor does not keep, and it is paid for.
    const readyMinutes = (r: typeof sm) => r.series.ready.reduce((a, b) => a + b, 0);
    expect(readyMinutes(sm)).toBeGreaterThan(readyMinutes(noPool));
    expect(sm.summary.instanceMinutes).toBeGreaterThan(noPool.summary.instanceMinutes);
  });
});

describe('a warm pool resized as the policy learns', () => {
  it('fills new warm instances over a cold start, then serves a scale-out from them in warm time', () => {
    const fleet = new Fleet({ initialReady: 2, coldStartMinutes: 8, warmStartMinutes: 1, warmPoolSize: 0 });
    fleet.resizeWarmPool(3, 0);
    expect(fleet.filling).toBe(3);
    fleet.promote(8);
    expect(fleet.warmIdle).toBe(3);
    fleet.scaleTo(4, 10);
    fleet.promote(11);
    expect(fleet.ready).toBe(4);
  });

  it('terminates idle warm instances at once when the pool shrinks', () => {
    const fleet = new Fleet({ initialReady: 2, coldStartMinutes: 8, warmStartMinutes: 1, warmPoolSize: 4 });
    fleet.resizeWarmPool(1, 0);
    expect(fleet.warmIdle).toBe(1);
  });
});

describe('the delivered window the fits read', () => {
  const delivered = Array.from(
    { length: 3 * DAY },
    (_, i) => 50 + 40 * Math.sin((2 * Math.PI * i) / DAY) + (i % 7),
  );

  it('reads minutes [from, to) of what was delivered, and copies them only when asked', () => {
    const w = new DeliveredWindow(delivered, 10, 15);
    expect(w.length).toBe(5);
    expect(w.at(0)).toBe(delivered[10]);
    expect(w.values()).toEqual(delivered.slice(10, 15));
    expect(new DeliveredWindow(delivered, 7, 7).values()).toEqual([]);
  });

  it.each([
    [-1, 5],
    [5, 4],
    [0, 3 * DAY + 1],
    [0.5, 4],
  ])('refuses [%s, %s), naming the window and what was delivered', (from, to) => {
    expect(() => new DeliveredWindow(delivered, from, to)).toThrow(
      `delivered window [${from}, ${to}) is outside the ${3 * DAY} minutes delivered`,
    );
  });

  it('a memo that holds the fit copies nothing; the first ask copies the window once', () => {
    const memo = lookaheadMemo();
    const options = { stepMinutes: 1 as const, origin: 2 * DAY, horizonMinutes: 60, dayStartMinute: 0 };
    const first = new DeliveredWindow(delivered, 0, 2 * DAY);
    const copies = vi.spyOn(first, 'values');
    const fitted = memo.forecast(first, options);
    expect(copies).toHaveBeenCalledTimes(1);
    const again = new DeliveredWindow(delivered, 0, 2 * DAY);
    const none = vi.spyOn(again, 'values');
    expect(memo.forecast(again, options)).toBe(fitted);
    expect(none).not.toHaveBeenCalled();
    expect(fitted).toEqual(DIRECT_FITS.forecast(first, options));

    const noise = new DeliveredWindow(delivered, DAY, 2 * DAY);
    const noiseCopies = vi.spyOn(noise, 'values');
    const model = memo.levelNoise(noise, 15);
    expect(memo.levelNoise(new DeliveredWindow(delivered, DAY, 2 * DAY), 15)).toBe(model);
    expect(noiseCopies).toHaveBeenCalledTimes(1);
    expect(model).toEqual(DIRECT_FITS.levelNoise(noise, 15));
  });
});
