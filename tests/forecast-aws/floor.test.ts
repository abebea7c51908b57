/**
 * The floor schedule: demand to instances, the floor held in blocks as the backtest holds it, the stored shape, the step the
 * evaluator picks (none when stale or outside the schedule), freshness and the dashboard band.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bandPoints,
  floorSchedule,
  heldSchedule,
  instancesFor,
  isFresh,
  pickFloor,
  staleAfterMinutes,
} from '#shared/floors/forecast.ts';
import type { ForecastFloor } from '#shared/floors/stored.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { heldNeed } from '#shared/sizing/floor-needs.ts';
import { policyOf, variantTarget } from '../control/policies.ts';
import { forecastOf as forecastFrom } from '../support/forecasts.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const MIN = 60_000;
const scaling = { minCapacity: 1, maxCapacity: 20, scaleToZero: false };

const target = (forecast: Record<string, unknown> | undefined): TargetPolicy =>
  policyOf(variantTarget(forecast ? { forecast } : {})).targets[0]!;

const forecastOf = (p50: number[], p90: number[], originMs = T0) => forecastFrom(p50, p90, originMs);

describe('instancesFor', () => {
  it.each([
    { case: 'demand at a whole multiple needs exactly that many', demand: 300, expected: 3 },
    { case: 'rounding noise above a multiple does not add an instance', demand: 300.0000000001, expected: 3 },
    { case: 'any demand past a multiple needs one more', demand: 301, expected: 4 },
    { case: 'no demand is raised to the minimum', demand: 0, expected: 1 },
    { case: 'more than the maximum is held at the maximum', demand: 5000, expected: 20 },
  ])('$case', ({ demand, expected }) => {
    expect(instancesFor(demand, 100, scaling)).toBe(expected);
  });
});

describe('the floor held in 30-minute blocks (heldNeed, heldSchedule)', () => {
  const example = [2.5, 3.2, 6.1, 9, 8.8, 4];
  const ramp = [1, 1, 1, 1, 1, 1, 1, 5, 1, 1, 1, 1];
  // The 7 is in the step of minutes 45-49: 15 minutes past the first block's end.
  const late = [1, 1, 1, 1, 1, 1, 1, 1, 1, 7, 1, 1];
  it.each([
    {
      case: 'the worked example: the block start holds the 9 of minute 15',
      needs: example,
      minute: 0,
      lead: 10,
      held: 9,
    },
    { case: 'the worked example, inside the block', needs: example, minute: 14, lead: 10, held: 9 },
    {
      case: 'the worked example: the end plus the lead is past the forecast',
      needs: example,
      minute: 25,
      lead: 10,
      held: 4,
    },
    { case: 'a block covers its end plus the lead (minute 35)', needs: ramp, minute: 0, lead: 10, held: 5 },
    { case: 'the last minute of the block still asks for it', needs: ramp, minute: 29, lead: 10, held: 5 },
    { case: 'a lead that ends before it does not', needs: ramp, minute: 0, lead: 4, held: 1 },
    { case: 'the next block starts past it', needs: ramp, minute: 40, lead: 10, held: 1 },
    { case: '10 minutes past the block do not reach minute 45', needs: late, minute: 0, lead: 10, held: 1 },
    { case: '14 minutes end in the same step as 10', needs: late, minute: 0, lead: 14, held: 1 },
    { case: '15 minutes reach the next step', needs: late, minute: 0, lead: 15, held: 7 },
  ])('heldNeed: $case', ({ needs, minute, lead, held }) => {
    expect(heldNeed(Float64Array.from(needs), 0, 5, minute, lead)).toBe(held);
  });

  it('heldSchedule holds what a longer lead reaches from the start of the block', () => {
    expect(heldSchedule(Float64Array.from(late), 0, 15, scaling).slice(0, 6)).toEqual([7, 7, 7, 7, 7, 7]);
  });

  /**
   * Every minute of every step of heldSchedule's schedule of random needs: its step's capacity
   * and the minute's own held need, for `check`.
   */
  const eachMinute = (
    max: number,
    origins: fc.Arbitrary<number>,
    check: (scheduled: number, need: number) => void,
  ) =>
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max, noNaN: true }), { minLength: 1, maxLength: 40 }),
        origins,
        fc.integer({ min: 1, max: 90 }),
        (values, origin, lead) => {
          const n = Float64Array.from(values);
          const schedule = heldSchedule(n, origin, lead, scaling);
          for (let i = 0; i < n.length; i++)
            for (let m = 0; m < 5; m++) check(schedule[i]!, heldNeed(n, origin, 5, origin + 5 * i + m, lead));
        },
      ),
    );

  it('holds the most of any minute of a step, clamped: the same in every minute when steps start on five minutes', () => {
    eachMinute(
      50,
      fc.integer({ min: 0, max: 1000 }).map((start) => 5 * start),
      (scheduled, need) => expect(scheduled).toBe(Math.min(20, Math.max(1, Math.ceil(need - 1e-9)))),
    );
  });

  it('never holds less than a minute of the step asks for, wherever the steps start', () => {
    eachMinute(19, fc.integer({ min: 0, max: 5000 }), (scheduled, need) =>
      expect(scheduled).toBeGreaterThanOrEqual(Math.ceil(need - 1e-9)),
    );
  });
});

describe('floorSchedule', () => {
  it('turns the p90 forecast into the worked example of the module comment', () => {
    const fc = forecastOf([1, 1, 1, 1, 1, 1], [250, 320, 610, 900, 880, 400]);
    const floor = floorSchedule({
      forecast: fc,
      quantile: 'p90',
      leadTimeMinutes: 10,
      requestsPerInstance: 100,
      scaling,
      computedAt: T0 + 3 * MIN,
    });
    expect(floor).toEqual({
      kind: 'forecast',
      quantile: 'p90',
      computedAt: T0 + 3 * MIN,
      startsAt: T0,
      stepMinutes: 5,
      leadTimeMinutes: 10,
      leadSource: 'configured',
      configuredLeadTimeMinutes: 10,
      leadSamples: 0,
      capacities: [9, 9, 9, 9, 9, 4],
      bandRatios: [250, 320, 610, 900, 880, 400],
    });
  });

  it("stores each step's band, p90 / p50 rounded up to 0.001, null where the median is 0", () => {
    const inputs = {
      forecast: forecastOf([100, 300, 0, 7], [104, 301, 5, 7]),
      quantile: 'p50' as const,
      leadTimeMinutes: 10,
      requestsPerInstance: 100,
      scaling,
      computedAt: T0,
    };
    const floor = floorSchedule(inputs);
    // 1.04 stays 1.04 (float noise ignored), 301 / 300 = 1.00333 goes up to 1.004, 7 / 7 is 1.
    expect(floor.bandRatios).toEqual([1.04, 1.004, null, 1]);
    // Only the steps the evaluator can read while the floor is fresh, when the caller says so.
    expect(floorSchedule({ ...inputs, bandSteps: 2 }).bandRatios).toEqual([1.04, 1.004]);
    const t = target({ refreshMinutes: 60 });
    expect(pickFloor(t, floor, T0 + 5 * MIN + 1)).toMatchObject({ kind: 'floor', bandRatio: 1.004 });
    expect(pickFloor(t, floor, T0 + 10 * MIN)).toMatchObject({ kind: 'floor', bandRatio: null });
    // A floor stored before the band, and a level floor, read as no band: the room stays closed.
    const { bandRatios: _, ...older } = floor;
    expect(pickFloor(t, older, T0)).toMatchObject({ kind: 'floor', bandRatio: null });
    expect(pickFloor(t, { ...floor, kind: 'level' }, T0)).toMatchObject({ kind: 'floor', bandRatio: null });
  });

  it('stores which simpler forecaster a fallback forecast came from, for the ForecastFallback reason', () => {
    const fc = forecastOf([1, 1, 1, 1, 1, 1], [250, 320, 610, 900, 880, 400]);
    const fallback = {
      to: 'recent-level' as const,
      seasonalPinballP90: 31.2,
      fallbackPinballP90: 18.4,
      message: 'using the recent level',
    };
    const floor = floorSchedule({
      forecast: { ...fc, fallback },
      quantile: 'p90',
      leadTimeMinutes: 10,
      requestsPerInstance: 100,
      scaling,
      computedAt: T0 + 3 * MIN,
    });
    expect(floor.fallback).toBe('recent-level');
  });

  it('covers a measured lead: 14 minutes look 3 steps ahead, and the floor says where the lead came from', () => {
    const fc = forecastOf([1, 1, 1, 1, 1, 1], [250, 320, 610, 900, 880, 400]);
    const floor = floorSchedule({
      forecast: fc,
      quantile: 'p90',
      leadTimeMinutes: 14,
      lead: { source: 'measured', configuredMinutes: 10, samples: 3 },
      requestsPerInstance: 100,
      scaling,
      computedAt: T0 + 3 * MIN,
    });
    // The 12:00 step now covers 12:15 (900): 9 instances, 15 minutes before they are needed.
    expect(floor).toMatchObject({
      leadTimeMinutes: 14,
      leadSource: 'measured',
      configuredLeadTimeMinutes: 10,
      leadSamples: 3,
      capacities: [9, 9, 9, 9, 9, 4],
    });
  });

  it('uses the quantile the policy names', () => {
    const fc = forecastOf([100, 100], [900, 900]);
    const at = (quantile: 'p50' | 'p90' | 'p99') =>
      floorSchedule({
        forecast: fc,
        quantile,
        leadTimeMinutes: 5,
        requestsPerInstance: 100,
        scaling,
        computedAt: T0,
      }).capacities[0];
    expect([at('p50'), at('p90'), at('p99')]).toEqual([1, 9, 14]);
  });
});

describe('pickFloor: the capacity the evaluator applies now', () => {
  const floor: ForecastFloor = {
    quantile: 'p90',
    computedAt: T0,
    startsAt: T0 - 5 * MIN,
    stepMinutes: 5,
    leadTimeMinutes: 10,
    capacities: [2, 5, 9],
  };
  const enabled = target({ refreshMinutes: 60 });
  it.each([
    {
      case: 'the step that holds now',
      t: enabled,
      now: T0 + 30_000,
      expected: { kind: 'floor', capacity: 5, step: 1 },
    },
    {
      case: 'a step boundary belongs to the later step',
      t: enabled,
      now: T0 + 5 * MIN,
      expected: { capacity: 9 },
    },
    {
      case: 'the first step from startsAt',
      t: enabled,
      now: T0 - 5 * MIN,
      expected: { capacity: 2, step: 0 },
    },
    {
      case: 'before startsAt there is none',
      t: enabled,
      now: T0 - 5 * MIN - 1,
      expected: { reason: 'NotStarted' },
    },
    {
      case: 'after the last step there is none',
      t: enabled,
      now: T0 + 10 * MIN,
      expected: { reason: 'PastEnd' },
    },
    {
      case: 'at twice refreshMinutes it still applies',
      t: target({ refreshMinutes: 60 }),
      now: T0 + 120 * MIN,
      floor: { ...floor, capacities: new Array(40).fill(3) },
      expected: { capacity: 3 },
    },
    {
      case: 'older than twice refreshMinutes it is stale',
      t: target({ refreshMinutes: 60 }),
      now: T0 + 120 * MIN + 1,
      floor: { ...floor, capacities: new Array(40).fill(3) },
      expected: { reason: 'Stale' },
    },
    {
      case: 'a target without forecast ignores a stored floor',
      t: target(undefined),
      now: T0,
      expected: { reason: 'ForecastDisabled' },
    },
    {
      case: 'a target with forecast disabled ignores a stored floor',
      t: target({ enabled: false }),
      now: T0,
      expected: { reason: 'ForecastDisabled' },
    },
    { case: 'no stored floor is none', t: enabled, now: T0, floor: null, expected: { reason: 'NoFloor' } },
  ])('$case', ({ t, now, expected, ...over }) => {
    const stored = 'floor' in over ? (over.floor ?? undefined) : floor;
    expect(pickFloor(t, stored, now)).toMatchObject(expected);
  });

  it.each([
    { refresh: 5, stale: 120 },
    { refresh: 60, stale: 120 },
    { refresh: 180, stale: 360 },
    { refresh: 1440, stale: 2880 },
  ])(
    'refreshMinutes $refresh goes stale after $stale minutes (never under two hourly runs)',
    ({ refresh, stale }) => {
      expect(staleAfterMinutes(refresh)).toBe(stale);
    },
  );
});

describe('isFresh: whether the hourly run may keep a stored floor', () => {
  const stored = {
    quantile: 'p90',
    computedAt: T0,
    startsAt: T0,
    stepMinutes: 5,
    leadTimeMinutes: 10,
    capacities: [1],
  };
  const t = target({ refreshMinutes: 180, quantile: 'p90', leadTimeMinutes: 10 });
  it.each([
    { case: 'an hour-old floor with refresh 180 is kept', t, stored, age: 60, fresh: true },
    { case: 'two hours old is kept', t, stored, age: 120, fresh: true },
    { case: 'at refresh less 5 minutes it is due', t, stored, age: 175, fresh: false },
    {
      case: 'a run a few seconds early still recomputes refresh 60',
      t: target({ refreshMinutes: 60 }),
      stored,
      age: 59.9,
      fresh: false,
    },
    {
      case: 'a retry a minute after a run keeps refresh 60',
      t: target({ refreshMinutes: 60 }),
      stored,
      age: 1,
      fresh: true,
    },
    {
      case: 'another quantile in the policy is due',
      t: target({ quantile: 'p99' }),
      stored,
      age: 1,
      fresh: false,
    },
    { case: 'another lead time is due', t: target({ leadTimeMinutes: 20 }), stored, age: 1, fresh: false },
    { case: 'a malformed stored floor is due', t, stored: { capacity: 3 }, age: 1, fresh: false },
    {
      case: 'a floor over a measured 14 min is kept while the samples still say 14',
      t,
      stored: { ...stored, leadTimeMinutes: 14, configuredLeadTimeMinutes: 10, leadSource: 'measured' },
      age: 60,
      lead: 14,
      fresh: true,
    },
    {
      case: 'a floor over a measured 14 min is due when the samples say 16',
      t,
      stored: { ...stored, leadTimeMinutes: 14, configuredLeadTimeMinutes: 10, leadSource: 'measured' },
      age: 60,
      lead: 16,
      fresh: false,
    },
    {
      case: 'a floor over a measured 14 min is due when the samples fall back to the configured 10',
      t,
      stored: { ...stored, leadTimeMinutes: 14, configuredLeadTimeMinutes: 10, leadSource: 'measured' },
      age: 60,
      lead: 10,
      fresh: false,
    },
    {
      case: 'a floor over a measured lead is due when the configured lead changes',
      t: target({ refreshMinutes: 180, leadTimeMinutes: 12 }),
      stored: { ...stored, leadTimeMinutes: 14, configuredLeadTimeMinutes: 10, leadSource: 'measured' },
      age: 60,
      lead: 14,
      fresh: false,
    },
    { case: 'no stored floor is due', t, stored: undefined, age: 1, fresh: false },
  ])(
    '$case',
    ({
      t,
      stored,
      age,
      fresh,
      lead,
    }: {
      t: TargetPolicy;
      stored: unknown;
      age: number;
      fresh: boolean;
      lead?: number;
    }) => {
      expect(isFresh(t, stored, T0 + age * MIN, lead)).toBe(fresh);
    },
  );
});

describe('bandPoints', () => {
  it('emits the next hour of steps from the step that holds now, with floor, p50 and p90', () => {
    const steps = 30;
    const fc = forecastOf(
      Array.from({ length: steps }, (_, i) => 100 + i),
      Array.from({ length: steps }, (_, i) => 200 + i),
    );
    const floor = floorSchedule({
      forecast: fc,
      quantile: 'p90',
      leadTimeMinutes: 10,
      requestsPerInstance: 50,
      scaling,
      computedAt: T0 + 7 * MIN,
    });
    const points = bandPoints(fc, floor, T0 + 7 * MIN);
    expect(points).toHaveLength(12);
    expect(points[0]).toEqual({ at: T0 + 5 * MIN, floor: 5, p50: 101, p90: 201 });
    expect(points.at(-1)!.at).toBe(T0 + 60 * MIN);
  });

  it('stops at the end of the schedule', () => {
    const fc = forecastOf([1, 2, 3], [1, 2, 3]);
    const floor = floorSchedule({
      forecast: fc,
      quantile: 'p90',
      leadTimeMinutes: 5,
      requestsPerInstance: 1,
      scaling,
      computedAt: T0,
    });
    expect(bandPoints(fc, floor, T0).map((p) => p.p90)).toEqual([1, 2, 3]);
  });
});
