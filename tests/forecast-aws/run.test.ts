/**
 * One run of the forecast function over aws-sdk-client-mock (tests/forecast-aws/fakes.ts): the
 * floor written with one UpdateItem of forecastFloor only, paged history, no history and too
 * little history writing nothing, fresh floors kept, scheduled actions put and only Governor's
 * stale ones removed, and failures that fail the run only after the other targets are done.
 */
import {
  DeleteScheduledActionCommand,
  PutScheduledActionCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { describeOutcome } from '#functions/forecast/telemetry.ts';
import { ForecastFloorSchema } from '#shared/floors/stored.ts';
import { eventFile, NOW, POLICY, rig, sent, sentToState, stateUpdates, tickAt } from './fakes.ts';

const DAY = 86_400_000;
const ORIGIN = Date.parse('2025-06-09T11:55:00Z');
/** Today's start: a forecast reads its history days from a day's start (forecastHistoryWindow). */
const TODAY = Date.parse('2025-06-09T00:00:00Z');

describe('a run writes the floor schedule', () => {
  it('stores 48 h of five-minute floors from the window end with one UpdateItem of forecastFloor', async () => {
    const r = rig();
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes).toEqual([
      expect.objectContaining({ targetId: 'chat-llm', outcome: 'written', model: 'weekly' }),
    ]);
    const floor = ForecastFloorSchema.parse(r.floor('chat-llm'));
    expect(floor).toMatchObject({
      quantile: 'p90',
      computedAt: NOW,
      startsAt: ORIGIN,
      stepMinutes: 5,
      leadTimeMinutes: 10,
    });
    expect(floor.capacities).toHaveLength(576);
    const update = stateUpdates(r)[0]!.args[0].input;
    expect(update).toMatchObject({
      Key: { pk: 'TARGET#chat-llm', sk: 'STATE' },
      UpdateExpression: 'SET #floor = :floor',
      ExpressionAttributeNames: { '#floor': 'forecastFloor' },
    });
    expect(update.ConditionExpression).toBeUndefined();
  });

  it('follows demand: 1 instance at night, 10 or 11 at the 14:00 peak, raised ahead of the morning ramp', async () => {
    const r = rig();
    await r.run(tickAt(NOW), NOW);
    const floor = ForecastFloorSchema.parse(r.floor('chat-llm'));
    const at = (iso: string) => floor.capacities[(Date.parse(iso) - floor.startsAt) / 300_000]!;
    expect(at('2025-06-10T03:00:00Z')).toBe(1);
    expect([10, 11]).toContain(at('2025-06-09T14:00:00Z'));
    // 08:20 demand is 90 + 910 sin(pi 20/720) = 169 requests a minute (2 instances); the floor at
    // 08:20 already covers 08:30 (209: 3 instances).
    expect(at('2025-06-10T08:20:00Z')).toBeGreaterThanOrEqual(3);
  });

  it('keeps what the evaluator owns: version, engine and pending are untouched', async () => {
    const r = rig();
    r.world.items.set('TARGET#chat-llm|STATE', {
      pk: 'TARGET#chat-llm',
      sk: 'STATE',
      version: 7,
      engine: { x: 1 },
      pending: { y: 2 },
    });
    await r.run(tickAt(NOW), NOW);
    expect(r.world.items.get('TARGET#chat-llm|STATE')).toMatchObject({
      version: 7,
      engine: { x: 1 },
      pending: { y: 2 },
    });
  });

  it('emits the band for the next hour: twelve steps of floor, p50 and p90', async () => {
    const r = rig();
    await r.run(tickAt(NOW), NOW);
    const band = r.telemetry.bands.get('chat-llm')!;
    expect(band.map((p) => p.at)).toEqual(Array.from({ length: 12 }, (_, i) => ORIGIN + (i + 1) * 300_000));
    for (const p of band) expect(p.p90!).toBeGreaterThanOrEqual(p.p50!);
  });
});

describe('demand history', () => {
  it('is read with paged GetMetricData at five minutes and gives the same floor as one page', async () => {
    const one = rig();
    await one.run(tickAt(NOW), NOW);
    const paged = rig();
    paged.world.pageSize = 500;
    await paged.run(tickAt(NOW), NOW);
    const calls = paged.mocks.cw!.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.NextToken)).toEqual([undefined, 'p1', 'p2', 'p3', 'p4']);
    expect(calls[0]).toMatchObject({
      StartTime: new Date(TODAY - 7 * DAY),
      EndTime: new Date(ORIGIN),
      ScanBy: 'TimestampAscending',
      MetricDataQueries: [
        {
          Id: 'd0',
          MetricStat: {
            Metric: {
              Namespace: 'AWS/SageMaker',
              MetricName: 'Invocations',
              Dimensions: [
                { Name: 'EndpointName', Value: 'chat-llm-prod' },
                { Name: 'VariantName', Value: 'AllTraffic' },
              ],
            },
            Period: 300,
            Stat: 'Sum',
          },
        },
      ],
    });
    expect(paged.floor('chat-llm')!.capacities).toEqual(one.floor('chat-llm')!.capacities);
  });

  it.each([
    {
      case: 'no datapoint at all',
      since: undefined,
      reason: 'NoData',
      log: 'forecast chat-llm: no floor written: NoData: no datapoint in the window (AWS/SageMaker Invocations (EndpointName=chat-llm-prod, VariantName=AllTraffic), 7 days and today)',
    },
    {
      case: 'half a day of history',
      since: NOW - DAY / 2,
      reason: 'InsufficientHistory',
      log: /^forecast chat-llm: no floor written: InsufficientHistory: .*\(AWS\/SageMaker Invocations/,
    },
  ])('with $case writes no floor, says so, and does not fail the run', async ({ since, reason, log }) => {
    const r = rig();
    if (since === undefined) r.world.historySince.clear();
    else r.world.historySince.set('chat-llm-prod', since);
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes).toEqual([expect.objectContaining({ outcome: 'no-floor', reason })]);
    expect(stateUpdates(r)).toHaveLength(0);
    expect(sent(r.mocks.aas)).toEqual([]);
    const [outcome] = r.telemetry.outcomes;
    const said = describeOutcome(outcome!);
    expect(said.level).toBe('warn');
    if (typeof log === 'string') expect(said.message).toBe(log);
    else expect(said.message).toMatch(log);
  });
});

describe('refresh', () => {
  it('keeps a floor younger than refreshMinutes and reads no history for it', async () => {
    const r = rig(POLICY({ forecast: '{ requestsPerInstance: 100, refreshMinutes: 180, historyDays: 7 }' }));
    await r.run(tickAt(NOW - 60 * 60_000), NOW - 60 * 60_000);
    const first = r.floor('chat-llm');
    r.mocks.cw!.resetHistory();
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes).toEqual([
      { targetId: 'chat-llm', outcome: 'fresh', computedAt: NOW - 60 * 60_000 },
    ]);
    expect(r.mocks.cw!.commandCalls(GetMetricDataCommand)).toHaveLength(0);
    expect(r.floor('chat-llm')).toEqual(first);
  });
});

describe('scheduled actions', () => {
  const NAME = /^governor-chat-llm-\d{8}T\d{4}$/;

  it('puts one-time actions raising MinCapacity ahead of ramps within the next 24 h', async () => {
    const r = rig();
    const report = await r.run(tickAt(NOW), NOW);
    const actions = [...r.world.actions.values()];
    expect(actions.length).toBeGreaterThan(4);
    for (const a of actions) {
      expect(a.ScheduledActionName).toMatch(NAME);
      expect(a).toMatchObject({
        ServiceNamespace: 'sagemaker',
        ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
      });
      expect(a.ScalableDimension).toBe('sagemaker:variant:DesiredInstanceCount');
      const at = Date.parse(`${a.Schedule!.slice(3, -1)}Z`);
      expect(at).toBeGreaterThan(NOW);
      expect(at).toBeLessThanOrEqual(NOW + DAY);
      expect(a.ScalableTargetAction).toEqual({ MinCapacity: expect.any(Number) });
    }
    const levels = actions.map((a) => a.ScalableTargetAction!.MinCapacity!);
    expect(Math.max(...levels)).toBeGreaterThanOrEqual(10);
    expect(levels.at(-1)).toBeGreaterThan(1); // the next morning's ramp is under way 24 h from now
    expect(levels).toContain(1); // back to the baseline for the night
    expect(report.outcomes[0]).toMatchObject({
      actions: { status: 'written', planned: actions.length, put: actions.length },
    });
  });

  it('removes only Governor’s stale actions for the target, never an operator’s or another name', async () => {
    const r = rig();
    const base = {
      ServiceNamespace: 'sagemaker' as const,
      ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
    };
    const keep = [
      'nightly-floor',
      'governor-chat-llm-launch-day',
      'governor-chat-20250609T1300',
      'Governor-chat-llm-20250609T1300',
    ];
    for (const name of [...keep, 'governor-chat-llm-20250601T0900', 'governor-chat-llm-20250612T0900'])
      r.world.actions.set(name, {
        ...base,
        ScheduledActionName: name,
        Schedule: 'at(2025-06-01T09:00:00)',
        ScheduledActionARN: `arn:${name}`,
        CreationTime: new Date(),
      });
    await r.run(tickAt(NOW), NOW);
    const deleted = r.mocks.aas
      .commandCalls(DeleteScheduledActionCommand)
      .map((c) => c.args[0].input.ScheduledActionName);
    expect(deleted.sort()).toEqual(['governor-chat-llm-20250601T0900', 'governor-chat-llm-20250612T0900']);
    for (const name of keep) expect(r.world.actions.has(name)).toBe(true);
  });

  it('a second run with the same forecast puts and removes nothing', async () => {
    const r = rig();
    await r.run(tickAt(NOW), NOW);
    r.mocks.aas.resetHistory();
    await r.run(tickAt(NOW + 60_000 * 60), NOW + 60_000 * 60);
    const again = sent(r.mocks.aas);
    expect(again.filter((c) => c === 'PutScheduledAction').length).toBeLessThanOrEqual(2);
    expect(again).toContain('DescribeScheduledActions');
  });

  it('turned off, removes Governor’s earlier actions for the target and leaves the others', async () => {
    const r = rig(
      POLICY({ forecast: '{ requestsPerInstance: 100, historyDays: 7, scheduledActions: false }' }),
    );
    const base = {
      ServiceNamespace: 'sagemaker' as const,
      ResourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
      Schedule: 'at(2025-06-09T15:00:00)',
      CreationTime: new Date(),
    };
    for (const name of [
      'nightly-floor',
      'governor-chat-llm-20250609T1500',
      'governor-chat-llm-20250609T1700',
    ])
      r.world.actions.set(name, { ...base, ScheduledActionName: name, ScheduledActionARN: `arn:${name}` });
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'written',
      actions: { status: 'removed', removed: 2 },
    });
    expect([...r.world.actions.keys()]).toEqual(['nightly-floor']);
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /forecast.scheduledActions is false: 2 scheduled actions of Governor's removed$/,
    );
  });

  it.each([
    {
      case: 'a target that is not a registered scalable target',
      setup: (r: ReturnType<typeof rig>) => r.world.registered.clear(),
      policy: POLICY(),
      actions: { status: 'skipped', reason: 'NotRegistered' },
      said: {
        level: 'warn',
        message: /no scheduled actions: the target is not a registered scalable target: register it/,
      },
    },
    {
      case: 'scheduledActions: false',
      setup: () => {},
      policy: POLICY({ forecast: '{ requestsPerInstance: 100, historyDays: 7, scheduledActions: false }' }),
      actions: { status: 'skipped', reason: 'Disabled' },
      said: { level: 'info', message: /no scheduled actions: forecast.scheduledActions is false/ },
    },
  ])('writes the floor but no action for $case, and says why', async ({ setup, policy, actions, said }) => {
    const r = rig(policy);
    setup(r);
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({ outcome: 'written', actions });
    expect(r.mocks.aas.commandCalls(PutScheduledActionCommand)).toHaveLength(0);
    expect(r.floor('chat-llm')).toBeDefined();
    const line = describeOutcome(r.telemetry.outcomes[0]!);
    expect(line.level).toBe(said.level);
    expect(line.message).toMatch(said.message);
  });
});

describe('the measured lead time', () => {
  // events/state/lead-times.json: 2 scale-outs in leadTimes (13 min each), 2 in leadTimesSfn, one
  // of them the same scale-out measured half a minute sooner: 3 scale-outs of 12.5, 13 and 13 min.
  const seeded = (item: Record<string, unknown> = eventFile('state/lead-times'), policy = POLICY()) => {
    const r = rig(policy);
    r.world.items.set('TARGET#chat-llm|STATE', structuredClone(item));
    return r;
  };

  it('plans the floor over 14 minutes when 3 scale-outs took 13 (p90 13 + 1), read with the floor in one GetItem', async () => {
    const r = seeded();
    const report = await r.run(tickAt(NOW), NOW);
    expect(sentToState(r)).toEqual(['Get', 'Update']);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'written',
      lead: { minutes: 14, configuredMinutes: 10, samples: 3, source: 'measured', previousMinutes: null },
    });
    expect(r.floor('chat-llm')).toMatchObject({
      leadTimeMinutes: 14,
      leadSource: 'measured',
      configuredLeadTimeMinutes: 10,
      leadSamples: 3,
    });
    // (The fixture's clean synthetic week can make yesterday score better: a fallback clause may sit between.)
    expect(describeOutcome(report.outcomes[0]!).message).toMatch(
      /\(weekly model, 7 days\)(; fallback: [^;]+)?; lead time 14 min: p90 of 3 measured scale-outs is 13\.0 min \+ 1 min metric delay, above the configured 10; /,
    );
  });

  it('plans a higher floor over the measured lead than over the configured one, never a lower one', async () => {
    const configured = rig();
    await configured.run(tickAt(NOW), NOW);
    const measured = seeded();
    await measured.run(tickAt(NOW), NOW);
    const a = configured.floor('chat-llm')!.capacities;
    const b = measured.floor('chat-llm')!.capacities;
    expect(b.every((c, i) => c >= a[i]!)).toBe(true);
    // Held in 30-minute blocks, 10 and 14 minutes past a block's end fall in the same five-minute
    // step (minutes 40-44), so here the floors are equal; a lead reaching one more step asks for
    // more (tests/forecast-aws/floor.test.ts, "a longer lead").
    expect(b).toEqual(a);
  });

  it('says when the lead moved since the stored floor, and why', async () => {
    const { leadTimesSfn, ...twoSamples } = eventFile('state/lead-times');
    const r = seeded(twoSamples);
    await r.run(tickAt(NOW - 2 * 60 * 60_000), NOW - 2 * 60 * 60_000); // two hours ago: 2 scale-outs measured, too few
    expect(r.telemetry.outcomes[0]).toMatchObject({
      lead: { minutes: 10, samples: 2, source: 'configured' },
    });
    expect(describeOutcome(r.telemetry.outcomes[0]!).message).toContain(
      '; lead time 10 min (configured): 2 measured scale-outs, fewer than the 3 needed; ',
    );
    r.world.items.get('TARGET#chat-llm|STATE')!.leadTimesSfn = leadTimesSfn; // the state machine measured a third
    const report = await r.run(tickAt(NOW), NOW);
    expect(describeOutcome(report.outcomes[0]!).message).toContain(
      '; lead time 14 min: p90 of 3 measured scale-outs is 13.0 min + 1 min metric delay, above the configured 10 (moved from 10 min); ',
    );
  });

  it('keeps a floor over a measured lead fresh while the samples agree', async () => {
    const r = seeded(
      undefined,
      POLICY({ forecast: '{ requestsPerInstance: 100, refreshMinutes: 180, historyDays: 7 }' }),
    );
    await r.run(tickAt(NOW - 60 * 60_000), NOW - 60 * 60_000);
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes).toEqual([
      { targetId: 'chat-llm', outcome: 'fresh', computedAt: NOW - 60 * 60_000 },
    ]);
  });

  it('sets a malformed leadTimes aside with a warning and measures with what is left', async () => {
    const r = seeded({ ...eventFile('state/lead-times'), leadTimes: 'garbage' });
    const report = await r.run(tickAt(NOW), NOW);
    expect(report.outcomes[0]).toMatchObject({
      outcome: 'written',
      lead: { minutes: 10, samples: 2, source: 'configured' },
    });
    expect(r.telemetry.lines).toContainEqual({
      level: 'warn',
      message:
        'state of chat-llm: leadTimes set aside (measuring starts again): (value) Invalid input: expected array, received string',
    });
  });
});

describe('failures', () => {
  const twoRegions = POLICY({
    extra: `  - id: chat-eu
    kind: sagemaker-variant
    region: eu-west-1
    endpointName: chat-eu-prod
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: invocationsPerInstance, target: 100 }]
    forecast: { historyDays: 7 }
`,
  });

  it('a region whose history cannot be read fails the run after the other targets are written', async () => {
    const r = rig(twoRegions);
    r.world.historySince.set('chat-eu-prod', NOW - 8 * DAY);
    const real = r.ports.history;
    r.ports.history = {
      demand: (region, queries, window) =>
        region === 'eu-west-1'
          ? Promise.reject(Object.assign(new Error('User is not authorized'), { name: 'AccessDenied' }))
          : real.demand(region, queries, window),
    };
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow(
      'forecast failed for 1 of 2 targets: chat-eu (see the log)',
    );
    expect(r.floor('chat-llm')).toBeDefined();
    expect(r.floor('chat-eu')).toBeUndefined();
    expect(r.telemetry.outcomes.find((o) => o.targetId === 'chat-eu')).toEqual({
      targetId: 'chat-eu',
      outcome: 'failed',
      detail: 'cannot read demand history: AccessDenied: User is not authorized',
    });
  });

  it('an invalid policy fails before any metric is read, one line per problem', async () => {
    const r = rig('version: 1\ntargets: []\n');
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow(
      'no valid policy: /governor/policy: targets needs at least one target',
    );
    expect(r.telemetry.lines).toEqual([
      { level: 'error', message: 'policy problem: /governor/policy: targets needs at least one target' },
    ]);
    expect(sent(r.mocks.cw!)).toEqual([]);
  });

  it('a missing policy parameter says to create it', async () => {
    const r = rig();
    r.world.parameters.clear();
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow(
      'no valid policy: /governor/policy: does not exist: create it with the policy YAML',
    );
  });

  it.each([
    {
      case: 'a malformed tick',
      event: eventFile('forecast-malformed-tick'),
      message: /^event field time must be an ISO 8601 time/,
    },
    {
      case: 'an alarm event',
      event: eventFile('alarm-chat-llm-latency'),
      message: /forecast function runs on its hourly "Scheduled Event"/,
    },
    { case: 'not an object', event: 'tick', message: /event is not a JSON object/ },
  ])('$case is refused with one line and no AWS call', async ({ event, message }) => {
    const r = rig();
    await expect(r.run(event, NOW)).rejects.toThrow(message);
    for (const m of Object.values(r.mocks)) expect(m.calls()).toHaveLength(0);
  });
});

describe('faults on the history read and the floor write: the next run reconciles', () => {
  const fault = (name: string, message: string, status?: number) =>
    Object.assign(new Error(message), { name, ...(status ? { $metadata: { httpStatusCode: status } } : {}) });
  // A run without the fault, first: rig() resets the shared SDK mocks, so no other rig may be built mid-test.
  const clean = async () => {
    const r = rig();
    await r.run(tickAt(NOW), NOW);
    return r.floor('chat-llm');
  };

  it.each([
    { case: 'throttled', error: fault('ThrottlingException', 'Rate exceeded', 400) },
    { case: 'a 5xx', error: fault('InternalServiceError', 'Internal failure', 500) },
    { case: 'a timeout', error: fault('TimeoutError', 'socket hang up') },
  ])(
    'history read $case: the run fails and writes nothing; the retry reads the same day-start window and writes the floor a run without the fault writes',
    async ({ error }) => {
      const r = rig();
      const real = r.ports.history;
      const windows: number[] = [];
      r.ports.history = { demand: () => Promise.reject(error) };
      await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow('forecast failed for 1 of 1 targets: chat-llm');
      expect(r.floor('chat-llm')).toBeUndefined();
      expect(r.telemetry.outcomes.at(-1)).toMatchObject({
        outcome: 'failed',
        detail: new RegExp(error.name),
      });
      r.ports.history = {
        demand: (region, queries, window) => {
          windows.push(window.start);
          return real.demand(region, queries, window);
        },
      };
      await r.run(tickAt(NOW, 'retry'), NOW);
      expect(windows).toEqual([TODAY - 7 * DAY]);
      expect(r.floor('chat-llm')).toEqual(await clean());
    },
  );

  it('a floor write that reached the table but answered with an error: the next run finds it stored and fresh, and keeps it', async () => {
    const expected = await clean();
    const r = rig();
    const real = r.ports.floors.write;
    r.ports.floors.write = (...args: Parameters<typeof real>) =>
      real(...args).then(() => Promise.reject(fault('TimeoutError', 'the response was lost')));
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow('forecast failed for 1 of 1 targets: chat-llm');
    r.ports.floors.write = real;
    const stored = r.floor('chat-llm');
    expect(stored).toEqual(expected);
    const next = await r.run(tickAt(NOW + 60_000, 'retry'), NOW + 60_000);
    expect(next.outcomes).toEqual([
      expect.objectContaining({ targetId: 'chat-llm', outcome: 'fresh', computedAt: NOW }),
    ]);
    expect(r.floor('chat-llm')).toEqual(stored);
  });
});
