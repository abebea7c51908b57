/**
 * The floor schedule: demand to instances, the lead-time maximum, the stored shape, the step the
 * evaluator picks (none when stale or outside the schedule), freshness and the dashboard band.
 */
import { describe, expect, it } from 'vitest';
import {
  bandPoints,
  floorSchedule,
  instancesFor,
  isFresh,
  leadSteps,
  maxAhead,
  pickFloor,
  staleAfterMinutes,
} from '#shared/floors/forecast.ts';
import type { ForecastFloor } from '#shared/floors/stored.ts';
import type { Forecast } from '#shared/forecast/types.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { policyOf, variantTarget } from '../control/policies.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const MIN = 60_000;
const scaling = { minCapacity: 1, maxCapacity: 20, scaleToZero: false };

const target = (forecast: Record<string, unknown> | undefined): TargetPolicy =>
  policyOf(variantTarget(forecast ? { forecast } : {})).targets[0]!;

/** A forecast whose quantiles are the given series (p10 = p50 / 2, p99 = p90 x 1.5). */
function forecastOf(p50: number[], p90: number[], originMs = T0): Forecast {
  return {
    ok: true,
    model: 'weekly',
    notes: [],
    origin: originMs / MIN,
    stepMinutes: 5,
    historyDays: 14,
    point: p50,
    quantiles: { p10: p50.map((v) => v / 2), p50, p90, p99: p90.map((v) => v * 1.5) },
    residualSamples: 1000,
  };
}

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

describe('the lead-time maximum', () => {
  it.each([
    { lead: 1, steps: 1 },
    { lead: 5, steps: 1 },
    { lead: 10, steps: 2 },
    { lead: 11, steps: 3 },
    { lead: 180, steps: 36 },
  ])('a lead of $lead minutes looks $steps steps ahead', ({ lead, steps }) => {
    expect(leadSteps(lead)).toBe(steps);
  });

  it('takes the most of each step and the steps ahead, truncated at the end', () => {
    expect(maxAhead([3, 4, 7, 9, 9, 4], 2)).toEqual([7, 9, 9, 9, 9, 4]);
    expect(maxAhead([5, 1, 1], 0)).toEqual([5, 1, 1]);
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
      capacities: [7, 9, 9, 9, 9, 4],
    });
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
