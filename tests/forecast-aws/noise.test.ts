/**
 * The measured noise in the forecast function, over aws-sdk-client-mock (./fakes.ts: five-minute
 * sums of the daily demand, and one-minute Poisson-like counts around it): the one-minute query
 * in the same GetMetricData, the fit stored next to the floor in one UpdateItem, a floor with the
 * noise term, a level floor when history is under a day, a target with noise and no forecast,
 * and when the noise is due, fresh or set aside.
 */
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { describeOutcome } from '#functions/forecast/telemetry.ts';
import { ForecastFloorSchema, StoredNoiseSchema } from '#shared/floors/stored.ts';
import { fitLevelNoise, noiseSd } from '#shared/sizing/noise-model.ts';
import { minuteCount, NOW, POLICY, rig, sent, sentToState, stateUpdates, tickAt } from './fakes.ts';

const DAY = 86_400_000;
const MIN = 60_000;
const ORIGIN = Date.parse('2025-06-09T11:55:00Z');
/** Today's start: a forecast reads its history days from a day's start (forecastHistoryWindow). */
const TODAY = Date.parse('2025-06-09T00:00:00Z');

/** chat-llm with measured noise: 100 requests a minute per instance, planned and at the SLO. */
const NOISY = (noise = '{ floorSigmas: 2.33, bandSigmas: 1 }', forecast?: string) =>
  POLICY({
    ...(forecast ? { forecast } : {}),
    extra: `    instanceCapacity: { requestsPerMinuteAtSlo: 100 }\n    noise: ${noise}\n`,
  });
/** The same target without a forecast section. */
const NOISE_ONLY = `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: invocationsPerInstance, target: 100 }]
    noise: { floorSigmas: 0, historyMinutes: 1440 }
`;
const KEY = 'TARGET#chat-llm|STATE';

describe('the one-minute read', () => {
  it('rides in the forecast’s GetMetricData: one call, the five-minute and the one-minute query over one window', async () => {
    const r = rig(NOISY());
    await r.run(tickAt(NOW), NOW);
    const calls = r.mocks.cw!.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ StartTime: new Date(TODAY - 7 * DAY), EndTime: new Date(ORIGIN) });
    expect(calls[0]!.MetricDataQueries!.map((q) => [q.Id, q.MetricStat!.Period])).toEqual([
      ['d0', 300],
      ['m0', 60],
    ]);
    expect(calls[0]!.MetricDataQueries![1]!.MetricStat).toMatchObject({
      Metric: {
        Namespace: 'AWS/SageMaker',
        MetricName: 'Invocations',
        Dimensions: [
          { Name: 'EndpointName', Value: 'chat-llm-prod' },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
      },
      Stat: 'Sum',
    });
  });

  it('reads 28 days of history in one call and the noise’s 2,880 minutes in a second: CloudWatch keeps one-minute data 15 days', async () => {
    const r = rig(NOISY(undefined, '{ quantile: p90, requestsPerInstance: 100, historyDays: 28 }'));
    r.world.historySince.set('chat-llm-prod', NOW - 30 * DAY);
    await r.run(tickAt(NOW), NOW);
    const calls = r.mocks.cw!.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => [c.StartTime, c.MetricDataQueries!.map((q) => q.Id)])).toEqual([
      [new Date(TODAY - 28 * DAY), ['d0']],
      [new Date(ORIGIN - 2880 * MIN), ['m0']],
    ]);
  });
});

describe('the noise and the forecast floor', () => {
  it('stores the fit next to the floor in one UpdateItem, with when and over what it was fitted', async () => {
    const r = rig(NOISY());
    await r.run(tickAt(NOW), NOW);
    expect(sentToState(r)).toEqual(['Get', 'Update']);
    const update = stateUpdates(r)[0]!.args[0].input;
    expect(update).toMatchObject({
      UpdateExpression: 'SET #floor = :floor, #noise = :noise',
      ExpressionAttributeNames: { '#floor': 'forecastFloor', '#noise': 'noise' },
    });
    const noise = StoredNoiseSchema.parse(r.world.items.get(KEY)!.noise);
    // The fake's minutes are Poisson around the daily curve, as fitLevelNoise fits them directly.
    const minutes = Array.from({ length: 2880 }, (_, i) => minuteCount(ORIGIN - (2880 - i) * MIN));
    const direct = fitLevelNoise(minutes, 15)!;
    expect(noise).toEqual({ ...direct, computedAt: NOW, levelMinutes: 15, historyMinutes: 2880 });
    expect(noise.samples).toBe(2865);
    expect(noise.a).toBeGreaterThan(0.7);
    expect(noise.a).toBeLessThan(1.4);
  });

  it('raises the night’s floor by the noise term: 90 a minute needs (90 + 2.33 x 9.5) / 100 = 1.12, so 2 instead of 1', async () => {
    const plain = rig(POLICY());
    await plain.run(tickAt(NOW), NOW);
    const noisy = rig(NOISY());
    await noisy.run(tickAt(NOW), NOW);
    const at = (r: ReturnType<typeof rig>, iso: string) => {
      const floor = ForecastFloorSchema.parse(r.floor('chat-llm'));
      return floor.capacities[(Date.parse(iso) - floor.startsAt) / 300_000]!;
    };
    expect(at(plain, '2025-06-10T03:00:00Z')).toBe(1);
    expect(at(noisy, '2025-06-10T03:00:00Z')).toBe(2);
    // Never lower: each step needs the larger of the two (at the peak, 1,000 a minute plus 2.33 x 32
    // is 10.7 instances at 100 each, so the noise term can add one there too).
    const a = ForecastFloorSchema.parse(plain.floor('chat-llm')).capacities;
    const b = ForecastFloorSchema.parse(noisy.floor('chat-llm')).capacities;
    expect(b.every((c, i) => c >= a[i]!)).toBe(true);
    const noise = noisy.world.items.get(KEY)!.noise as { a: number; b: number; samples: number };
    expect(noisy.floor('chat-llm')).toMatchObject({
      kind: 'forecast',
      noise: { floorSigmas: 2.33, a: noise.a, b: noise.b, samples: 2865 },
    });
  });

  it('says the kind of floor and the noise it used in the log line', async () => {
    const r = rig(NOISY());
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'written',
      kind: 'forecast',
      floorSigmas: 2.33,
      noise: { status: 'measured', samples: 2865, levelMinutes: 15, historyMinutes: 2880 },
    });
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /^forecast chat-llm: forecast floor written, \d+ instances now, peak \d+ \(weekly model, 7 days, with 2.33 sigmas of noise\)(; fallback: [^;]+)?; noise a=[\d.]+ b=[\d.e-]+ from 2,865 minutes \(levels of 15 min, last 2880 min\); \d+ scheduled actions planned/,
    );
  });

  it('with floorSigmas 0 stores the noise (for the band) and plans the quantile floor alone', async () => {
    const plain = rig(POLICY());
    await plain.run(tickAt(NOW), NOW);
    const r = rig(NOISY('{ floorSigmas: 0 }'));
    await r.run(tickAt(NOW), NOW);
    expect(r.world.items.get(KEY)!.noise).toBeDefined();
    expect(r.floor('chat-llm')!.noise).toBeUndefined();
    expect(r.floor('chat-llm')!.capacities).toEqual(plain.floor('chat-llm')!.capacities);
  });
});

describe('the level floor, under a day of history', () => {
  const young = () => {
    const r = rig(NOISY());
    r.world.historySince.set('chat-llm-prod', ORIGIN - 6 * 60 * MIN);
    return r;
  };

  it('writes the last level plus its noise for the next hour, and the noise beside it', async () => {
    const r = young();
    await r.run(tickAt(NOW), NOW);
    const floor = ForecastFloorSchema.parse(r.floor('chat-llm'));
    const noise = StoredNoiseSchema.parse(r.world.items.get(KEY)!.noise);
    // The median of 11:40-11:54 plus 2.33 of its noise, at 100 a minute per instance.
    const last = Array.from({ length: 15 }, (_, i) => minuteCount(ORIGIN - (15 - i) * MIN)).sort(
      (x, y) => x - y,
    );
    const level = last[7]!;
    const expected = Math.ceil((level + 2.33 * noiseSd(noise, level)) / 100);
    expect(expected).toBeGreaterThanOrEqual(9);
    expect(floor).toMatchObject({
      kind: 'level',
      level,
      startsAt: ORIGIN,
      computedAt: NOW,
      leadTimeMinutes: 10,
    });
    expect(floor.noise).toEqual({ floorSigmas: 2.33, a: noise.a, b: noise.b, samples: noise.samples });
    // 11:55 to 13:05: the 13:00 run replaces it.
    expect(floor.capacities).toEqual(new Array(14).fill(expected));
    expect(noise.samples).toBe(6 * 60 - 15);
  });

  it('puts no scheduled action, emits the floor without a band, and says so', async () => {
    const r = young();
    const report = await r.run(tickAt(NOW), NOW);
    expect(sent(r.mocks.aas)).toEqual([]);
    const band = r.telemetry.bands.get('chat-llm')!;
    expect(band).toHaveLength(12);
    for (const p of band) expect(Object.keys(p).sort()).toEqual(['at', 'floor']);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'written',
      kind: 'level',
      model: null,
      actions: { status: 'skipped', reason: 'LevelFloor' },
      level: { until: Date.parse('2025-06-09T13:05:00Z') },
    });
    const said = describeOutcome(report.outcomes[0]!);
    expect(said.level).toBe('info');
    expect(said.message).toMatch(
      /^forecast chat-llm: level floor written, \d+ instances until 13:05 UTC: the last level \d+ req\/min, with 2.33 sigmas of noise, no forecast yet \(InsufficientHistory: .*\); noise a=.* from 345 minutes .*; no scheduled actions: a level floor holds for the next hour only, so the evaluator applies it and no MinCapacity is scheduled \(LevelFloor\)$/,
    );
  });

  it('is replaced at every hourly run, never kept as fresh', async () => {
    const r = young();
    await r.run(tickAt(NOW), NOW);
    r.mocks.cw!.resetHistory();
    const report = await r.run(tickAt(NOW + 60 * MIN), NOW + 60 * MIN);
    expect(report.outcomes[0]).toMatchObject({ outcome: 'written', kind: 'level' });
    expect(r.mocks.cw!.commandCalls(GetMetricDataCommand)).toHaveLength(1);
  });

  it('without a noise term (floorSigmas 0) writes no floor, as before, but stores the noise', async () => {
    const r = rig(NOISY('{ floorSigmas: 0 }'));
    r.world.historySince.set('chat-llm-prod', ORIGIN - 6 * 60 * MIN);
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({ outcome: 'no-floor', reason: 'InsufficientHistory' });
    expect(r.floor('chat-llm')).toBeUndefined();
    expect(stateUpdates(r)[0]!.args[0].input.UpdateExpression).toBe('SET #noise = :noise');
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /no floor written: InsufficientHistory: .*; noise a=.* from 345 minutes/,
    );
  });

  it('with too few minutes to fit writes nothing and says why', async () => {
    const r = young();
    r.world.historySince.set('chat-llm-prod', ORIGIN - 20 * MIN);
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({ outcome: 'no-floor', noise: { status: 'unmeasured' } });
    expect(stateUpdates(r)).toHaveLength(0);
    expect(describeOutcome(report.outcomes[0]!).message).toContain(
      '; noise not measured: 20 minutes read, fewer than 20 with a level above 0 after the first 15 (AWS/SageMaker Invocations (EndpointName=chat-llm-prod, VariantName=AllTraffic) at one minute, last 2880 minutes)',
    );
  });
});

describe('a target with noise and no forecast', () => {
  it('reads one-minute demand only, over its historyMinutes, and stores the noise alone', async () => {
    const r = rig(NOISE_ONLY);
    const report = await r.run(tickAt(NOW), NOW);
    const calls = r.mocks.cw!.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => [c.StartTime, c.MetricDataQueries!.map((q) => q.Id)])).toEqual([
      [new Date(ORIGIN - 1440 * MIN), ['m0']],
    ]);
    expect(stateUpdates(r)[0]!.args[0].input.UpdateExpression).toBe('SET #noise = :noise');
    expect(r.world.items.get(KEY)).toMatchObject({ noise: { historyMinutes: 1440, computedAt: NOW } });
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'noise',
      noise: { status: 'measured', samples: 1425 },
    });
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /^forecast chat-llm: no forecast, noise a=.* from 1,425 minutes .*\(stored: it widens the evaluator's band\)$/,
    );
  });

  it('refits hourly: 50 minutes later the noise is fresh and nothing is read', async () => {
    const r = rig(NOISE_ONLY);
    await r.run(tickAt(NOW), NOW);
    r.mocks.cw!.resetHistory();
    const report = await r.run(tickAt(NOW + 50 * MIN), NOW + 50 * MIN);
    expect(report.outcomes).toEqual([
      { targetId: 'chat-llm', outcome: 'fresh', computedAt: NOW, of: 'noise' },
    ]);
    expect(r.mocks.cw!.commandCalls(GetMetricDataCommand)).toHaveLength(0);
    expect((await r.run(tickAt(NOW + 60 * MIN), NOW + 60 * MIN)).outcomes[0]).toMatchObject({
      outcome: 'noise',
    });
  });
});

describe('when the noise is due', () => {
  const every3h = '{ quantile: p90, requestsPerInstance: 100, historyDays: 7, refreshMinutes: 180 }';

  it('keeps a floor and noise fitted 50 minutes ago (refreshMinutes 180): fresh, nothing read', async () => {
    const r = rig(NOISY(undefined, every3h));
    await r.run(tickAt(NOW - 50 * MIN), NOW - 50 * MIN);
    r.mocks.cw!.resetHistory();
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes).toEqual([{ targetId: 'chat-llm', outcome: 'fresh', computedAt: NOW - 50 * MIN }]);
    expect(r.mocks.cw!.commandCalls(GetMetricDataCommand)).toHaveLength(0);
  });

  it('refits the noise alone an hour later, under a floor still fresh for refreshMinutes 180 (as the backtest refits it)', async () => {
    const r = rig(NOISY(undefined, every3h));
    await r.run(tickAt(NOW - 60 * MIN), NOW - 60 * MIN);
    const floor = ForecastFloorSchema.parse(r.floor('chat-llm'));
    r.mocks.cw!.resetHistory();
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'noise',
      floorFrom: NOW - 60 * MIN,
      noise: { status: 'measured' },
    });
    // One-minute counts only: the five-minute history of the forecast is not read.
    const periods = r.mocks
      .cw!.commandCalls(GetMetricDataCommand)
      .flatMap((c) => c.args[0].input.MetricDataQueries!.map((q) => q.MetricStat!.Period));
    expect(new Set(periods)).toEqual(new Set([60]));
    expect(stateUpdates(r).at(-1)!.args[0].input.UpdateExpression).toBe('SET #noise = :noise');
    expect(ForecastFloorSchema.parse(r.floor('chat-llm'))).toEqual(floor);
    expect(StoredNoiseSchema.parse(r.world.items.get(KEY)!.noise).computedAt).toBe(NOW);
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /^forecast chat-llm: the floor from .* is still fresh \(refreshMinutes\), the noise is refitted hourly, noise a=.*\(stored: it widens the evaluator's band\)$/,
    );
  });

  it('a refused write of the noise alone fails the run, leaves floor and noise as they were, and the retry writes it', async () => {
    const r = rig(NOISY(undefined, every3h));
    await r.run(tickAt(NOW - 60 * MIN), NOW - 60 * MIN);
    const before = structuredClone(r.world.items.get(KEY));
    const real = r.ports.floors.write;
    r.ports.floors.write = () =>
      Promise.reject(
        Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        }),
      );
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow('forecast failed for 1 of 1 targets: chat-llm');
    expect(r.telemetry.outcomes.at(-1)).toMatchObject({
      outcome: 'failed',
      detail: /ProvisionedThroughputExceeded/,
    });
    expect(r.world.items.get(KEY)).toEqual(before);
    r.ports.floors.write = real;
    const retried = await r.run(tickAt(NOW, 'retry'), NOW + MIN);
    expect(retried.outcomes[0]).toMatchObject({ outcome: 'noise', floorFrom: NOW - 60 * MIN });
    expect(StoredNoiseSchema.parse(r.world.items.get(KEY)!.noise).computedAt).toBe(NOW + MIN);
  });

  it('a throttled read of the one-minute counts under a fresh floor fails the run and leaves the item as it was', async () => {
    const r = rig(NOISY(undefined, every3h));
    await r.run(tickAt(NOW - 60 * MIN), NOW - 60 * MIN);
    const before = structuredClone(r.world.items.get(KEY));
    const real = r.ports.history;
    r.ports.history = {
      demand: () =>
        Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
    };
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow('forecast failed for 1 of 1 targets: chat-llm');
    expect(r.telemetry.outcomes.at(-1)).toMatchObject({
      outcome: 'failed',
      detail: 'cannot read demand history: ThrottlingException: Rate exceeded',
    });
    expect(r.world.items.get(KEY)).toEqual(before);
    r.ports.history = real;
    expect((await r.run(tickAt(NOW, 'retry'), NOW + MIN)).outcomes[0]).toMatchObject({ outcome: 'noise' });
  });

  it('forecasts again when noise is turned on under a fresh floor without it', async () => {
    const r = rig(POLICY({ forecast: every3h }));
    await r.run(tickAt(NOW - 60 * MIN), NOW - 60 * MIN);
    r.world.parameters.set('/governor/policy', NOISY(undefined, every3h));
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({ outcome: 'written', floorSigmas: 2.33 });
  });

  it('sets a malformed stored noise aside with a warning, refits it and writes it over', async () => {
    const r = rig(NOISY(undefined, every3h));
    await r.run(tickAt(NOW - 60 * MIN), NOW - 60 * MIN);
    r.world.items.get(KEY)!.noise = { a: 'loud' };
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({ outcome: 'noise', noise: { status: 'measured' } });
    expect(r.telemetry.lines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(
        /^state of chat-llm: noise set aside \(refitted this run\): a Invalid input/,
      ),
    });
    expect(StoredNoiseSchema.parse(r.world.items.get(KEY)!.noise).computedAt).toBe(NOW);
  });
});
