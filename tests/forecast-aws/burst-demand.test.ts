/**
 * The burst floor's demand in the forecast function, over aws-sdk-client-mock (./fakes.ts: one-minute
 * Poisson-like counts around the daily demand): measured hourly from the one-minute demand beside
 * the noise, for the targets whose burst floor can stand (an SLO control, burstFloor.enabled and
 * instanceCapacity.requestsPerMinuteAtSlo), stored as `burstDemand` in the same UpdateItem as the
 * floor and the noise; the read, the freshness, and what is not measured and why.
 */
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { describeOutcome } from '#functions/forecast/telemetry.ts';
import { StoredNoiseSchema } from '#shared/floors/stored.ts';
import { parsePolicyText } from '#shared/policy/load.ts';
import { BurstDemandSchema, measureBurstDemand } from '#shared/slo/burst-floor.ts';
import { sloOf } from '#shared/slo/objective.ts';
import { minuteCount, NOW, rig, stateUpdates, tickAt } from './fakes.ts';

const MIN = 60_000;
const DAY = 86_400_000;
/** The windows end at the five-minute boundary before the run (historyWindow). */
const ORIGIN = Date.parse('2025-06-09T11:55:00Z');
const TODAY = Date.parse('2025-06-09T00:00:00Z');
const KEY = 'TARGET#chat-llm|STATE';

/**
 * chat-llm with a p95 SLO (so an error-budget control), 100 requests a minute per instance at the
 * SLO, and the sections given: `forecast`, `noise`, `slo` (YAML flow maps), each left out when absent.
 */
const POLICY = (
  s: { forecast?: string; noise?: string; slo?: string; capacity?: boolean } = {},
) => `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals:
      - { metric: invocationsPerInstance, target: 100 }
      - { metric: p95LatencyMs, sloMs: 2000 }
${s.capacity === false ? '' : '    instanceCapacity: { requestsPerMinuteAtSlo: 100 }\n'}${s.forecast ? `    forecast: ${s.forecast}\n` : ''}${s.noise ? `    noise: ${s.noise}\n` : ''}${s.slo ? `    slo: ${s.slo}\n` : ''}`;
const FORECAST = '{ quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 7 }';
const EVERY_3H =
  '{ quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 7, refreshMinutes: 180 }';

/** The fake's one-minute counts of the `minutes` before ORIGIN, oldest first, as CloudWatch would return them. */
const countsBefore = (minutes: number) =>
  Array.from({ length: minutes }, (_, i) => minuteCount(ORIGIN - (minutes - i) * MIN));

/** What the pure measurement makes of the same minutes at `now`, under the policy's resolved control. */
function expected(policy: string, minutes: number, now = NOW) {
  const parsed = parsePolicyText(policy);
  if (!parsed.ok) throw new Error(parsed.problems.map((p) => `${p.path} ${p.message}`).join('; '));
  const slo = sloOf(parsed.policy.targets[0]!);
  return measureBurstDemand(countsBefore(minutes), slo.minutes, slo.control!, now)!;
}

const oneMinuteReads = (r: ReturnType<typeof rig>) =>
  r.mocks
    .cw!.commandCalls(GetMetricDataCommand)
    .map((c) => c.args[0].input)
    .map((c) => [c.StartTime, c.MetricDataQueries!.map((q) => `${q.Id}@${q.MetricStat!.Period}`)]);

describe('the burst demand beside the floor and the noise', () => {
  it('rides in the forecast’s call as the one one-minute query, and goes in the same UpdateItem as floor and noise', async () => {
    const policy = POLICY({ forecast: FORECAST, noise: '{ floorSigmas: 0 }' });
    const r = rig(policy);
    const report = await r.run(tickAt(NOW), NOW);
    // One one-minute query serves both: the noise's 2,880 minutes cover the floor's 1,440.
    expect(oneMinuteReads(r)).toEqual([[new Date(TODAY - 7 * DAY), ['d0@300', 'm0@60']]]);
    expect(stateUpdates(r).map((u) => u.args[0].input.UpdateExpression)).toEqual([
      'SET #floor = :floor, #noise = :noise, #burst = :burst',
    ]);
    const stored = BurstDemandSchema.parse(r.world.items.get(KEY)!.burstDemand);
    // The 99.6th percentile (1 - 0.005 x 0.8) of the last 1,440 minutes, measured now.
    expect(stored).toEqual(expected(policy, 1440));
    expect(stored).toMatchObject({ quantile: expect.closeTo(0.996, 12), minutes: 1440, measuredAt: NOW });
    const sorted = countsBefore(1440).sort((a, b) => a - b);
    expect(stored.demand).toBeGreaterThan(sorted[720]!);
    expect(stored.demand).toBeLessThanOrEqual(sorted.at(-1)!);
    // The noise is fitted over its own 2,880 minutes, as before.
    expect(StoredNoiseSchema.parse(r.world.items.get(KEY)!.noise)).toMatchObject({
      historyMinutes: 2880,
      samples: 2865,
    });
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'written',
      burst: { status: 'measured', demand: stored.demand, minutes: 1440 },
    });
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /; noise a=.*; burst demand \d+(\.\d+)? req\/min \(the 99\.6th percentile of 1,440 minutes, stored for the burst floor\); \d+ scheduled actions planned/,
    );
  });

  it('reads the longer of the two windows and cuts each its own: windowMinutes 2,880 over noise of 1,440', async () => {
    const policy = POLICY({
      noise: '{ floorSigmas: 0, historyMinutes: 1440 }',
      slo: '{ control: { burstFloor: { windowMinutes: 2880 } } }',
    });
    const r = rig(policy);
    await r.run(tickAt(NOW), NOW);
    expect(oneMinuteReads(r)).toEqual([[new Date(ORIGIN - 2880 * MIN), ['m0@60']]]);
    expect(r.world.items.get(KEY)!.burstDemand).toEqual(expected(policy, 2880));
    expect(StoredNoiseSchema.parse(r.world.items.get(KEY)!.noise)).toMatchObject({
      historyMinutes: 1440,
      samples: 1425,
    });
  });
});

describe('a target with a burst floor and neither forecast nor noise', () => {
  it('is visited for it alone: one-minute demand over windowMinutes, burstDemand stored alone', async () => {
    const policy = POLICY();
    const r = rig(policy);
    const report = await r.run(tickAt(NOW), NOW);
    expect(oneMinuteReads(r)).toEqual([[new Date(ORIGIN - 1440 * MIN), ['m0@60']]]);
    expect(stateUpdates(r).map((u) => u.args[0].input.UpdateExpression)).toEqual(['SET #burst = :burst']);
    expect(r.world.items.get(KEY)).toEqual({
      pk: 'TARGET#chat-llm',
      sk: 'STATE',
      burstDemand: expected(policy, 1440),
    });
    expect(report.outcomes).toEqual([
      {
        targetId: 'chat-llm',
        outcome: 'noise',
        burst: { status: 'measured', ...pick(expected(policy, 1440)) },
      },
    ]);
    const said = describeOutcome(report.outcomes[0]!);
    expect(said.level).toBe('info');
    expect(said.message).toMatch(
      /^forecast chat-llm: no forecast; burst demand \d+(\.\d+)? req\/min \(the 99\.6th percentile of 1,440 minutes, stored for the burst floor\)$/,
    );
  });

  it('measures hourly: 50 minutes later it is fresh and nothing is read; an hour later it is measured again', async () => {
    const r = rig(POLICY());
    await r.run(tickAt(NOW), NOW);
    r.mocks.cw!.resetHistory();
    const fresh = await r.run(tickAt(NOW + 50 * MIN), NOW + 50 * MIN);
    expect(fresh.outcomes).toEqual([
      { targetId: 'chat-llm', outcome: 'fresh', computedAt: NOW, of: 'burst demand' },
    ]);
    expect(describeOutcome(fresh.outcomes[0]!).message).toBe(
      'forecast chat-llm: the burst demand from 2025-06-09T12:00:10.000Z is still fresh (measured hourly)',
    );
    expect(r.mocks.cw!.commandCalls(GetMetricDataCommand)).toHaveLength(0);
    await r.run(tickAt(NOW + 60 * MIN), NOW + 60 * MIN);
    expect(BurstDemandSchema.parse(r.world.items.get(KEY)!.burstDemand).measuredAt).toBe(NOW + 60 * MIN);
  });

  it('a refused write (throttled) fails the run and leaves the stored measurement; the retry measures and writes it', async () => {
    const r = rig(POLICY());
    await r.run(tickAt(NOW), NOW);
    const before = structuredClone(r.world.items.get(KEY));
    const real = r.ports.floors.write;
    r.ports.floors.write = () =>
      Promise.reject(
        Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        }),
      );
    const later = NOW + 60 * MIN;
    await expect(r.run(tickAt(later), later)).rejects.toThrow('forecast failed for 1 of 1 targets: chat-llm');
    expect(r.telemetry.outcomes.at(-1)).toMatchObject({
      outcome: 'failed',
      detail: /ProvisionedThroughputExceeded/,
    });
    expect(r.world.items.get(KEY)).toEqual(before);
    r.ports.floors.write = real;
    // Still due (the stored one is an hour old): the retry measures it again.
    await r.run(tickAt(later, 'retry'), later + MIN);
    expect(BurstDemandSchema.parse(r.world.items.get(KEY)!.burstDemand).measuredAt).toBe(later + MIN);
  });

  it('a throttled read of the one-minute counts fails the run and leaves the item; the retry measures it', async () => {
    const r = rig(POLICY());
    await r.run(tickAt(NOW), NOW);
    const before = structuredClone(r.world.items.get(KEY));
    const real = r.ports.history;
    r.ports.history = {
      demand: () =>
        Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' })),
    };
    const later = NOW + 60 * MIN;
    await expect(r.run(tickAt(later), later)).rejects.toThrow('forecast failed for 1 of 1 targets: chat-llm');
    expect(r.telemetry.outcomes.at(-1)).toMatchObject({
      outcome: 'failed',
      detail: 'cannot read demand history: ThrottlingException: Rate exceeded',
    });
    expect(r.world.items.get(KEY)).toEqual(before);
    r.ports.history = real;
    await r.run(tickAt(later, 'retry'), later + MIN);
    expect(BurstDemandSchema.parse(r.world.items.get(KEY)!.burstDemand).measuredAt).toBe(later + MIN);
  });

  it('with no request counts at all (a metric not there yet) measures nothing and fails nothing: said, not stored', async () => {
    const r = rig(POLICY());
    r.world.historySince.delete('chat-llm-prod');
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes).toEqual([
      {
        targetId: 'chat-llm',
        outcome: 'noise',
        burst: {
          status: 'unmeasured',
          why: 'NoData: no datapoint in the window (AWS/SageMaker Invocations (EndpointName=chat-llm-prod, VariantName=AllTraffic) at one minute, last 1440 minutes)',
        },
      },
    ]);
    expect(stateUpdates(r)).toHaveLength(0);
    expect(describeOutcome(report.outcomes[0]!)).toMatchObject({
      level: 'warn',
      message: expect.stringMatching(/^forecast chat-llm: no forecast; burst demand not measured: NoData: /),
    });
  });

  it('with under an hour of minutes measures nothing (the quantile would be a guess), and says how many it read', async () => {
    const r = rig(POLICY());
    r.world.historySince.set('chat-llm-prod', ORIGIN - 40 * MIN);
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({
      burst: {
        status: 'unmeasured',
        why: expect.stringMatching(/^40 minutes read, fewer than 60 \(AWS\/SageMaker/),
      },
    });
    expect(stateUpdates(r)).toHaveLength(0);
  });

  it('sets a malformed stored one aside with a warning, measures it again and writes it over', async () => {
    const r = rig(POLICY());
    r.world.items.set(KEY, { pk: 'TARGET#chat-llm', sk: 'STATE', burstDemand: { demand: -1 } });
    await r.run(tickAt(NOW), NOW);
    expect(r.telemetry.lines).toContainEqual({
      level: 'warn',
      message: expect.stringMatching(
        /^state of chat-llm: burstDemand set aside \(measured this run\): demand /,
      ),
    });
    expect(BurstDemandSchema.parse(r.world.items.get(KEY)!.burstDemand).measuredAt).toBe(NOW);
  });
});

describe('when the burst demand is due', () => {
  it('under a floor still fresh (refreshMinutes 180), an hour later it is measured alone, the floor kept', async () => {
    const r = rig(POLICY({ forecast: EVERY_3H }));
    await r.run(tickAt(NOW - 60 * MIN), NOW - 60 * MIN);
    const floor = structuredClone(r.floor('chat-llm'));
    r.mocks.cw!.resetHistory();
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'noise',
      floorFrom: NOW - 60 * MIN,
      burst: { status: 'measured' },
    });
    expect(report.outcomes[0]).not.toHaveProperty('noise');
    expect(oneMinuteReads(r)).toEqual([[new Date(ORIGIN - 1440 * MIN), ['m0@60']]]);
    expect(stateUpdates(r).at(-1)!.args[0].input.UpdateExpression).toBe('SET #burst = :burst');
    expect(r.floor('chat-llm')).toEqual(floor);
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /^forecast chat-llm: the floor from .* is still fresh \(refreshMinutes\), the burst demand is measured hourly; burst demand /,
    );
  });

  it.each([
    {
      case: 'burstFloor.enabled false',
      policy: POLICY({ forecast: FORECAST, slo: '{ control: { burstFloor: { enabled: false } } }' }),
    },
    {
      case: 'the control off',
      policy: POLICY({ forecast: FORECAST, slo: '{ control: { enabled: false } }' }),
    },
    {
      case: 'no requestsPerMinuteAtSlo (the floor is the demand over it)',
      policy: POLICY({ forecast: FORECAST, capacity: false }),
    },
  ])(
    'with $case, a forecast target reads and writes as before: no one-minute query, no burstDemand',
    async ({ policy }) => {
      const r = rig(policy);
      const report = await r.run(tickAt(NOW), NOW);
      expect(oneMinuteReads(r)).toEqual([[new Date(TODAY - 7 * DAY), ['d0@300']]]);
      expect(stateUpdates(r).map((u) => u.args[0].input.UpdateExpression)).toEqual(['SET #floor = :floor']);
      expect(report.outcomes[0]).not.toHaveProperty('burst');
    },
  );

  it('with burstFloor.enabled false and nothing else to do, the target is not visited', async () => {
    const r = rig(POLICY({ slo: '{ control: { burstFloor: { enabled: false } } }' }));
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes).toEqual([]);
    expect(r.mocks.cw!.commandCalls(GetMetricDataCommand)).toHaveLength(0);
    expect(r.telemetry.lines).toContainEqual({
      level: 'info',
      message: 'no target has forecast.enabled, noise.enabled or a burst floor: nothing to forecast',
    });
  });
});

/** The outcome's fields of a measurement. */
const pick = ({ demand, quantile, minutes }: { demand: number; quantile: number; minutes: number }) => ({
  demand,
  quantile,
  minutes,
});
