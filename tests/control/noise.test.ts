/**
 * The measured noise in AWS, pure parts: when it is stale for the evaluator and due for the
 * forecast function, the one-minute retention clamp, the fit as stored, its attribute in the
 * state item (decoded, or set aside), what the decision record says, the level floor schedule
 * and the noise term of the forecast floor.
 */
import { describe, expect, it } from 'vitest';
import { noiseInput } from '#shared/apply/records.ts';
import type { SignalAssessment } from '#shared/engine/types.ts';
import { floorSchedule, isFresh, levelHoldMinutes } from '#shared/floors/forecast.ts';
import { levelFloorSchedule } from '#shared/floors/level.ts';
import {
  fitStoredNoise,
  isNoiseFresh,
  NOISE_STALE_AFTER_MINUTES,
  noiseHistoryMinutes,
  perMinute,
  pickNoise,
} from '#shared/floors/noise.ts';
import type { StoredNoise } from '#shared/floors/stored.ts';
import type { Forecast } from '#shared/forecast/types.ts';
import type { NoisePolicy } from '#shared/policy/schema.ts';
import { levelFloor } from '#shared/sizing/floor-needs.ts';
import { decodeState } from '#shared/state/item.ts';
import { policyOf, variantTarget } from './policies.ts';

const T0 = Date.parse('2025-06-02T12:00:00Z');
const MIN = 60_000;
const FORECAST = { quantile: 'p90', requestsPerInstance: 100, leadTimeMinutes: 10 };
const target = (over: Record<string, unknown> = {}) =>
  policyOf(
    variantTarget({
      instanceCapacity: { requestsPerMinuteAtSlo: 100 },
      noise: { floorSigmas: 2.33, bandSigmas: 1 },
      ...over,
    }),
  ).targets[0]!;
const stored = (over: Partial<StoredNoise> = {}): StoredNoise => ({
  a: 1.2,
  b: 0.002,
  samples: 2865,
  computedAt: T0,
  levelMinutes: 15,
  historyMinutes: 2880,
  ...over,
});

describe('how long a stored noise model stands', () => {
  it('stands 3 hours (three hourly refits) whatever the refreshMinutes of the forecast, as the backtest refits it hourly', () => {
    expect(NOISE_STALE_AFTER_MINUTES).toBe(180);
  });

  it.each([
    {
      case: 'noise off: none',
      over: { noise: { enabled: false } },
      noise: stored(),
      age: 10,
      pick: { kind: 'none', reason: 'NoiseDisabled' },
    },
    {
      case: 'nothing stored: none',
      over: {},
      noise: undefined,
      age: 10,
      pick: { kind: 'none', reason: 'NoNoise' },
    },
    {
      case: 'an hour old: used, its age in minutes',
      over: {},
      noise: stored(),
      age: 60.5,
      pick: { kind: 'noise', model: { a: 1.2, b: 0.002, samples: 2865 }, computedAt: T0, ageMinutes: 60.5 },
    },
    {
      case: '180 minutes without a forecast: still used',
      over: {},
      noise: stored(),
      age: 180,
      pick: { kind: 'noise' },
    },
    {
      case: '181 minutes without a forecast: stale',
      over: {},
      noise: stored(),
      age: 181,
      pick: { kind: 'none', reason: 'Stale', ageMinutes: 181 },
    },
    {
      case: '180 minutes with refreshMinutes 180: still used',
      over: { forecast: { ...FORECAST, refreshMinutes: 180 } },
      noise: stored(),
      age: 180,
      pick: { kind: 'noise' },
    },
    {
      case: '181 minutes with refreshMinutes 180: stale (refitted hourly, not with the floor), the model kept for the record',
      over: { forecast: { ...FORECAST, refreshMinutes: 180 } },
      noise: stored(),
      age: 181,
      pick: { kind: 'none', reason: 'Stale', model: { a: 1.2, b: 0.002, samples: 2865 } },
    },
  ])('pickNoise: $case', ({ over, noise, age, pick }) => {
    expect(pickNoise(target(over), noise, T0 + age * MIN)).toMatchObject(pick);
  });

  it.each([
    { case: 'fitted 50 minutes ago, hourly: fresh', noise: stored(), age: 50, fresh: true },
    {
      case: 'fitted 56 minutes ago, hourly: due (the run drifts by seconds)',
      noise: stored(),
      age: 56,
      fresh: false,
    },
    {
      case: 'fitted over other levelMinutes: due',
      noise: stored({ levelMinutes: 10 }),
      age: 5,
      fresh: false,
    },
    {
      case: 'fitted over other historyMinutes: due',
      noise: stored({ historyMinutes: 1440 }),
      age: 5,
      fresh: false,
    },
    { case: 'none stored: due', noise: undefined, age: 0, fresh: false },
    {
      case: 'fitted 56 minutes ago with refreshMinutes 180: due all the same',
      noise: stored(),
      age: 56,
      fresh: false,
      over: { forecast: { ...FORECAST, refreshMinutes: 180 } },
    },
  ])('isNoiseFresh: $case', ({ noise, age, fresh, over }) => {
    expect(isNoiseFresh(target(over ?? {}), noise, T0 + age * MIN)).toBe(fresh);
  });
});

describe('noiseHistoryMinutes', () => {
  const policy = (historyMinutes: number) => ({ ...target().noise!, historyMinutes }) as NoisePolicy;
  it('reads noise.historyMinutes within the 15 days CloudWatch keeps at one minute', () => {
    expect(noiseHistoryMinutes(policy(2880))).toEqual({ minutes: 2880, clamped: null });
    expect(noiseHistoryMinutes(policy(21_600))).toEqual({ minutes: 21_600, clamped: null });
  });

  it('clamps more than that, and says so (the schema allows at most 20,160, so only a policy that bypassed it)', () => {
    expect(noiseHistoryMinutes(policy(30_000))).toEqual({
      minutes: 21_600,
      clamped:
        'noise.historyMinutes 30000 is more than CloudWatch keeps at one minute (21600, 15 days): read 21600',
    });
  });
});

describe('fitStoredNoise', () => {
  // Counts around levels from 20 to 400 a minute with count noise: a ~ 1, b ~ 0 (noise-model.ts).
  let seed = 7;
  const uniform = () => {
    seed = (seed * 16_807) % 2_147_483_647;
    return seed / 2_147_483_647;
  };
  const poisson = (mean: number) => {
    const z = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    return Math.max(0, Math.round(mean + Math.sqrt(mean) * z));
  };
  const demand = Array.from({ length: 600 }, (_, i) => poisson(20 + (380 * i) / 600));

  it('fits count noise from Poisson minutes and stamps it with the policy it was fitted under', () => {
    const fit = fitStoredNoise(demand, target().noise!, 2880, T0)!;
    expect(fit).toMatchObject({ computedAt: T0, levelMinutes: 15, historyMinutes: 2880, samples: 585 });
    expect(fit.a).toBeGreaterThan(0.6);
    expect(fit.a).toBeLessThan(1.6);
    expect(fit.b).toBeLessThan(0.002);
  });

  it('fits the last historyMinutes only', () => {
    expect(fitStoredNoise(demand, target().noise!, 100, T0)?.samples).toBe(85);
  });

  it.each([
    { case: 'fewer than 20 minutes after the first level', minutes: demand.slice(0, 30) },
    { case: 'no minute above a level of 0', minutes: new Array(200).fill(0) },
  ])('is null with $case', ({ minutes }) => {
    expect(fitStoredNoise(minutes, target().noise!, 2880, T0)).toBeNull();
  });

  it('reads a gap (null) as NaN, which restarts the level', () => {
    expect(perMinute([3, null, 4])).toEqual([3, Number.NaN, 4]);
  });
});

describe('the noise attribute of the state item', () => {
  it('decodes as stored', () => {
    expect(decodeState({ pk: 'TARGET#chat-llm', sk: 'STATE', noise: stored() }).noise).toEqual(stored());
  });

  it.each([
    { case: 'a negative a', noise: { ...stored(), a: -1 }, problem: /^noise set aside .*: a Too small/ },
    {
      case: 'a missing computedAt',
      noise: { a: 1, b: 0, samples: 3, levelMinutes: 15, historyMinutes: 60 },
      problem: /computedAt/,
    },
    {
      case: 'a string',
      noise: 'loud',
      problem: /^noise set aside \(the band keeps its tolerance until the next forecast run\): \(value\)/,
    },
  ])('with $case is set aside with a problem line, never fatal', ({ noise, problem }) => {
    const state = decodeState({ pk: 'TARGET#chat-llm', sk: 'STATE', version: 3, noise });
    expect(state.noise).toBeUndefined();
    expect(state.version).toBe(3);
    expect(state.problems).toHaveLength(1);
    expect(state.problems[0]).toMatch(problem);
  });
});

describe('the decision record’s noise', () => {
  const widened: SignalAssessment = {
    metric: 'invocationsPerInstance',
    kind: 'load',
    status: 'within',
    value: 23,
    target: 20,
    ratio: 1.15,
    proposal: 2,
    ageSeconds: 30,
    noiseBand: 0.233,
  };
  const t = target({ signals: [{ metric: 'invocationsPerInstance', target: 20, tolerance: 0.1 }] });

  it('names the model, its age and each widened band beside its tolerance', () => {
    const pick = pickNoise(t, stored(), T0 + 61 * MIN);
    expect(noiseInput(t, pick, { signals: [widened] })).toEqual({
      status: 'used',
      a: 1.2,
      b: 0.002,
      samples: 2865,
      computedAt: T0,
      ageMinutes: 61,
      bands: { invocationsPerInstance: { tolerance: 0.1, band: 0.233 } },
    });
  });

  it('keeps a stale model for the record, with no band', () => {
    const pick = pickNoise(t, stored(), T0 + 200 * MIN);
    expect(noiseInput(t, pick, { signals: [widened] })).toMatchObject({
      status: 'stale',
      ageMinutes: 200,
      bands: {},
    });
  });

  it('is null with noise off or none stored', () => {
    expect(noiseInput(t, pickNoise(t, undefined, T0), { signals: [] })).toBeNull();
  });
});

/** A forecast of constant steps (requests a minute), p50 and p90 given. */
const forecastOf = (p50: number[], p90: number[]): Forecast =>
  ({
    ok: true,
    model: 'daily',
    notes: [],
    origin: T0 / MIN,
    stepMinutes: 5,
    historyDays: 7,
    point: p50,
    quantiles: { p10: p50, p50, p90, p99: p90 },
    residualSamples: 100,
  }) as unknown as Forecast;

describe('the noise term of the forecast floor', () => {
  const scaling = { minCapacity: 1, maxCapacity: 20 } as never;
  const base = {
    quantile: 'p90' as const,
    leadTimeMinutes: 0,
    requestsPerInstance: 100,
    scaling,
    computedAt: T0,
  };
  const noise = { model: { a: 1, b: 0, samples: 2865 }, floorSigmas: 2.33, instanceCapacity: 100 };

  it('pins the worked example of floorSchedule: 100 a minute, Poisson noise at 2.33 sigmas needs 2, not 1', () => {
    const fc = forecastOf([100], [100]);
    expect(floorSchedule({ ...base, forecast: fc }).capacities).toEqual([1]);
    const floor = floorSchedule({ ...base, forecast: fc, noise });
    expect(floor.capacities).toEqual([2]);
    expect(floor).toMatchObject({
      kind: 'forecast',
      noise: { floorSigmas: 2.33, a: 1, b: 0, samples: 2865 },
    });
  });

  it('leaves a busy step to the quantile: at 2,000 a minute the noise is 5 % (2,104 -> 21.04, p90 2,300 -> 23)', () => {
    expect(
      floorSchedule({
        ...base,
        forecast: forecastOf([2000], [2300]),
        scaling: { minCapacity: 1, maxCapacity: 40 } as never,
        noise,
      }).capacities,
    ).toEqual([23]);
  });

  it('says nothing of noise when floorSigmas is 0', () => {
    const floor = floorSchedule({
      ...base,
      forecast: forecastOf([100], [100]),
      noise: { ...noise, floorSigmas: 0 },
    });
    expect(floor.capacities).toEqual([1]);
    expect(floor.noise).toBeUndefined();
  });
});

describe('the level floor', () => {
  const noise = { model: { a: 1, b: 0, samples: 165 }, floorSigmas: 2.33, instanceCapacity: 100 };
  const inputs = {
    need: 4.47,
    level: 400,
    noise,
    quantile: 'p90' as const,
    leadTimeMinutes: 10,
    lead: { source: 'configured' as const, configuredMinutes: 10, samples: 0 },
    startsAt: Date.parse('2025-06-09T11:55:00Z'),
    holdMinutes: 60,
    scaling: { minCapacity: 1, maxCapacity: 20 } as never,
    computedAt: Date.parse('2025-06-09T12:00:10Z'),
  };

  it('is ceil(need) every five minutes from the history’s end until an hour after the run: 11:55 to 13:05', () => {
    const floor = levelFloorSchedule(inputs);
    expect(floor).toMatchObject({
      kind: 'level',
      level: 400,
      startsAt: inputs.startsAt,
      stepMinutes: 5,
      noise: { floorSigmas: 2.33, a: 1, b: 0, samples: 165 },
    });
    expect(floor.capacities).toEqual(new Array(14).fill(5));
  });

  it.each([
    {
      case: 'refreshMinutes 30 holds 30 minutes: 11:55 to 12:35',
      hold: 30,
      steps: 8,
      need: 4.47,
      capacity: 5,
    },
    { case: 'a need above maxCapacity is clamped to it', hold: 60, steps: 14, need: 31, capacity: 20 },
    { case: 'a need under minCapacity is raised to it', hold: 60, steps: 14, need: 0.2, capacity: 1 },
  ])('$case', ({ hold, steps, need, capacity }) => {
    expect(levelFloorSchedule({ ...inputs, holdMinutes: hold, need }).capacities).toEqual(
      new Array(steps).fill(capacity),
    );
  });

  it('holds min(refreshMinutes, 60) minutes', () => {
    expect(levelHoldMinutes(target({ forecast: { ...FORECAST, refreshMinutes: 180 } }))).toBe(60);
    expect(levelHoldMinutes(target({ forecast: { ...FORECAST, refreshMinutes: 30 } }))).toBe(30);
  });

  it('is the last level plus its noise (floor-needs.ts): a 15-minute median of 400 at a = 1 needs (400 + 2.33 x 20) / 100 = 4.47', () => {
    const sizing = { requestsPerInstance: 100, instanceCapacity: 100, floorSigmas: 2.33, noise: noise.model };
    expect(levelFloor(new Array(15).fill(400), 15, sizing)).toBeCloseTo(4.466, 3);
  });

  it('is never fresh at the next hourly run, and a floor without the noise the policy asks for is due', () => {
    const t = target({ forecast: { ...FORECAST, refreshMinutes: 180 } });
    const level = levelFloorSchedule({ ...inputs, computedAt: T0, startsAt: T0 });
    expect(isFresh(t, level, T0 + 50 * MIN)).toBe(true);
    expect(isFresh(t, level, T0 + 60 * MIN)).toBe(false);
    const plain = floorSchedule({
      forecast: forecastOf([100], [100]),
      quantile: 'p90',
      leadTimeMinutes: 10,
      requestsPerInstance: 100,
      scaling: t.scaling,
      computedAt: T0,
    });
    expect(isFresh(t, plain, T0 + 60 * MIN)).toBe(false);
    expect(
      isFresh(
        target({ forecast: { ...FORECAST, refreshMinutes: 180 }, noise: undefined }),
        plain,
        T0 + 60 * MIN,
      ),
    ).toBe(true);
  });
});
