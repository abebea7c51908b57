/**
 * The forecast's adapters: the client's standard retry takes a throttled GetMetricData (the real
 * retry middleware, over a scripted HTTP layer), the scheduled-action calls carry the exact
 * resource, dimension and name, the floor store reads the floor, the lead times and the noise
 * and writes the floor and the noise in one UpdateItem, and a noise query is one-minute.
 */
import {
  ApplicationAutoScalingClient,
  DeleteScheduledActionCommand,
  DescribeScalableTargetsCommand,
  DescribeScheduledActionsCommand,
  PutScheduledActionCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { clientConfig } from '#shared/aws/clients.ts';
import { cloudWatchHistory, toHistoryQuery } from '#shared/aws/demand-history.ts';
import { dynamoFloorStore } from '#shared/aws/forecast-store.ts';
import { scheduledActionsAdapter } from '#shared/aws/scheduled-actions.ts';
import { FAKE_CREDENTIALS, type FakeResponse, scriptedHandler } from '../aws/fakes.ts';
import { dailyDemand, mockOf, NOW, rig, tickAt } from './fakes.ts';

const DAY = 86_400_000;
const ORIGIN = Date.parse('2025-06-09T11:55:00Z');

/** A GetMetricData answer in CloudWatch's JSON protocol: 8 days of the synthetic demand. */
function historyBody() {
  const times: number[] = [];
  for (let t = ORIGIN - 8 * DAY; t < ORIGIN; t += 300_000) times.push(t);
  return {
    MetricDataResults: [
      {
        Id: 'd0',
        Timestamps: times.map((t) => t / 1000),
        Values: times.map((t) => 5 * dailyDemand(t)),
        StatusCode: 'Complete',
      },
    ],
  };
}
const throttled: FakeResponse = {
  status: 400,
  errorType: 'ThrottlingException',
  body: { __type: 'ThrottlingException', message: 'Rate exceeded' },
};

describe('demand history under throttling', () => {
  // This file never mocks CloudWatchClient, so the scripted HTTP layer and the real retry run.
  it.each([
    {
      case: 'a throttled GetMetricData is retried and the floor written',
      script: [throttled, { status: 200, body: historyBody() }],
      attempts: 2,
    },
    {
      case: 'two throttles in a row are retried too',
      script: [throttled, throttled, { status: 200, body: historyBody() }],
      attempts: 3,
    },
  ])('$case', async ({ script, attempts }) => {
    const handler = scriptedHandler(script, 'application/x-amz-json-1.0');
    const client = new CloudWatchClient({
      ...clientConfig({ region: 'us-east-1', credentials: FAKE_CREDENTIALS }),
      requestHandler: handler as never,
    });
    const r = rig(undefined, { history: cloudWatchHistory(() => client) });
    const report = await r.run(tickAt(NOW), NOW);
    expect(handler.attempts).toBe(attempts);
    expect(report.outcomes[0]).toMatchObject({ outcome: 'written' });
    expect(r.floor('chat-llm')!.capacities).toHaveLength(576);
  });

  it('gives up after the client’s attempts and fails the target, not the others', async () => {
    const handler = scriptedHandler([throttled], 'application/x-amz-json-1.0');
    const client = new CloudWatchClient({
      ...clientConfig({ region: 'us-east-1', credentials: FAKE_CREDENTIALS, maxAttempts: 2 }),
      requestHandler: handler as never,
    });
    const r = rig(undefined, { history: cloudWatchHistory(() => client) });
    await expect(r.run(tickAt(NOW), NOW)).rejects.toThrow('forecast failed for 1 of 1 targets: chat-llm');
    expect(handler.attempts).toBe(2);
    expect(r.telemetry.outcomes[0]).toMatchObject({
      outcome: 'failed',
      detail: /^cannot read demand history: ThrottlingException/,
    });
  });
});

describe('scheduled actions adapter', () => {
  const aas = mockOf('aas');
  const actions = scheduledActionsAdapter(() => new ApplicationAutoScalingClient({ region: 'us-east-1' }));
  const ref = {
    resourceId: 'inference-component/embedder-ic',
    dimension: 'sagemaker:inference-component:DesiredCopyCount' as const,
  };
  const target = {
    ServiceNamespace: 'sagemaker',
    ResourceId: ref.resourceId,
    ScalableDimension: ref.dimension,
  };
  beforeEach(() => aas.reset());

  it.each([
    {
      case: 'a registered target gives its MinCapacity',
      targets: [{ ...target, MinCapacity: 2, MaxCapacity: 8 }],
      expected: 2,
    },
    { case: 'no registered target gives null', targets: [], expected: null },
    {
      case: 'another dimension of the same resource is not this target',
      targets: [{ ...target, ScalableDimension: 'sagemaker:variant:DesiredInstanceCount', MinCapacity: 3 }],
      expected: null,
    },
  ])('$case', async ({ targets, expected }) => {
    aas.on(DescribeScalableTargetsCommand).resolves({ ScalableTargets: targets as never });
    expect(await actions.minCapacity('us-east-1', ref)).toBe(expected);
    expect(aas.commandCalls(DescribeScalableTargetsCommand)[0]!.args[0].input).toEqual({
      ServiceNamespace: 'sagemaker',
      ResourceIds: ['inference-component/embedder-ic'],
      ScalableDimension: 'sagemaker:inference-component:DesiredCopyCount',
    });
  });

  it('refuses a registered target without a MinCapacity rather than reading it as 0', async () => {
    aas
      .on(DescribeScalableTargetsCommand)
      .resolves({ ScalableTargets: [{ ...target, MinCapacity: undefined }] as never });
    await expect(actions.minCapacity('us-east-1', ref)).rejects.toThrow(
      'ScalableTargets[].MinCapacity is missing',
    );
  });

  it('lists every page of the target’s actions', async () => {
    const action = (name: string, min?: number) => ({
      ...target,
      ScheduledActionName: name,
      ScheduledActionARN: `arn:${name}`,
      Schedule: 'at(2025-06-09T13:00:00)',
      CreationTime: new Date(),
      ...(min === undefined ? {} : { ScalableTargetAction: { MinCapacity: min } }),
    });
    aas
      .on(DescribeScheduledActionsCommand)
      .resolvesOnce({ ScheduledActions: [action('a', 2)] as never, NextToken: 't1' })
      .resolvesOnce({ ScheduledActions: [action('b')] as never });
    expect(await actions.list('us-east-1', ref)).toEqual([
      { name: 'a', schedule: 'at(2025-06-09T13:00:00)', minCapacity: 2 },
      { name: 'b', schedule: 'at(2025-06-09T13:00:00)', minCapacity: undefined },
    ]);
    expect(aas.commandCalls(DescribeScheduledActionsCommand).map((c) => c.args[0].input)).toEqual([
      { ...target, NextToken: undefined },
      { ...target, NextToken: 't1' },
    ]);
  });

  it('puts a one-time action that sets MinCapacity only, and deletes by exact name', async () => {
    aas.on(PutScheduledActionCommand).resolves({});
    aas.on(DeleteScheduledActionCommand).resolves({});
    const at = Date.parse('2025-06-09T13:05:00Z');
    await actions.put('us-east-1', ref, { name: 'governor-embedder-20250609T1305', at, minCapacity: 4 });
    await actions.remove('us-east-1', ref, 'governor-embedder-20250601T0900');
    expect(aas.commandCalls(PutScheduledActionCommand)[0]!.args[0].input).toEqual({
      ...target,
      ScheduledActionName: 'governor-embedder-20250609T1305',
      Schedule: 'at(2025-06-09T13:05:00)',
      ScalableTargetAction: { MinCapacity: 4 },
    });
    expect(aas.commandCalls(DeleteScheduledActionCommand)[0]!.args[0].input).toEqual({
      ...target,
      ScheduledActionName: 'governor-embedder-20250601T0900',
    });
  });
});

describe('floor store', () => {
  const ddb = mockOf('ddb');
  const store = dynamoFloorStore(
    DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: FAKE_CREDENTIALS })),
    'governor-state',
  );
  beforeEach(() => ddb.reset());

  const none = {
    floor: undefined,
    leadTimes: undefined,
    leadTimesSfn: undefined,
    noise: undefined,
    burstDemand: undefined,
  };
  it.each([
    {
      case: 'an item with a floor gives the floor',
      item: { forecastFloor: { quantile: 'p90' } },
      expected: { ...none, floor: { quantile: 'p90' } },
    },
    {
      case: 'an item with measured lead times gives them as stored, for the caller to decode',
      item: { leadTimes: [{ requestedAt: 1, servingAt: 2 }], leadTimesSfn: 'x' },
      expected: { ...none, leadTimes: [{ requestedAt: 1, servingAt: 2 }], leadTimesSfn: 'x' },
    },
    {
      case: 'an item with measured noise gives it as stored, for the caller to decode',
      item: { noise: { a: 1, b: 0 } },
      expected: { ...none, noise: { a: 1, b: 0 } },
    },
    {
      case: 'an item with a burst demand gives it as stored, for the caller to decode',
      item: { burstDemand: { demand: 412 } },
      expected: { ...none, burstDemand: { demand: 412 } },
    },
    { case: 'an item without one gives undefined', item: { version: 3 }, expected: none },
    { case: 'no item gives undefined', item: undefined, expected: none },
  ])(
    '$case, reading the floor, the lead times, the noise and the burst demand in one GetItem',
    async ({ item, expected }) => {
      ddb.on(GetCommand).resolves({ Item: item });
      expect(await store.read('chat-llm')).toStrictEqual(expected);
      expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
      expect(ddb.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
        TableName: 'governor-state',
        Key: { pk: 'TARGET#chat-llm', sk: 'STATE' },
        ProjectionExpression: '#floor, #lead, #leadSfn, #noise, #burst',
        ExpressionAttributeNames: {
          '#floor': 'forecastFloor',
          '#lead': 'leadTimes',
          '#leadSfn': 'leadTimesSfn',
          '#noise': 'noise',
          '#burst': 'burstDemand',
        },
      });
    },
  );
});

describe('floor store writes', () => {
  const ddb = mockOf('ddb');
  const store = dynamoFloorStore(
    DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', credentials: FAKE_CREDENTIALS })),
    'governor-state',
  );
  beforeEach(() => ddb.reset());
  const floor = {
    quantile: 'p90',
    computedAt: NOW,
    startsAt: ORIGIN,
    stepMinutes: 5 as const,
    leadTimeMinutes: 10,
    capacities: [2, 2],
  };
  const noise = { a: 1, b: 0, samples: 2865, computedAt: NOW, levelMinutes: 15, historyMinutes: 2880 };
  const burstDemand = { demand: 412, quantile: 0.996, minutes: 1440, measuredAt: NOW };

  it.each([
    {
      case: 'the floor and the noise go in one UpdateItem of those two attributes',
      write: { forecastFloor: floor, noise },
      expected: {
        UpdateExpression: 'SET #floor = :floor, #noise = :noise',
        ExpressionAttributeNames: { '#floor': 'forecastFloor', '#noise': 'noise' },
        ExpressionAttributeValues: { ':floor': floor, ':noise': noise },
      },
    },
    {
      case: 'the floor alone sets forecastFloor only, as before noise was measured',
      write: { forecastFloor: floor },
      expected: {
        UpdateExpression: 'SET #floor = :floor',
        ExpressionAttributeNames: { '#floor': 'forecastFloor' },
        ExpressionAttributeValues: { ':floor': floor },
      },
    },
    {
      case: 'the noise alone (no forecast, or no floor) sets noise only',
      write: { noise },
      expected: {
        UpdateExpression: 'SET #noise = :noise',
        ExpressionAttributeNames: { '#noise': 'noise' },
        ExpressionAttributeValues: { ':noise': noise },
      },
    },
    {
      case: 'the burst demand goes beside the floor and the noise, in the same UpdateItem',
      write: { forecastFloor: floor, noise, burstDemand },
      expected: {
        UpdateExpression: 'SET #floor = :floor, #noise = :noise, #burst = :burst',
        ExpressionAttributeNames: { '#floor': 'forecastFloor', '#noise': 'noise', '#burst': 'burstDemand' },
        ExpressionAttributeValues: { ':floor': floor, ':noise': noise, ':burst': burstDemand },
      },
    },
    {
      case: 'the burst demand alone (a burst floor without noise, the floor fresh) sets burstDemand only',
      write: { burstDemand },
      expected: {
        UpdateExpression: 'SET #burst = :burst',
        ExpressionAttributeNames: { '#burst': 'burstDemand' },
        ExpressionAttributeValues: { ':burst': burstDemand },
      },
    },
  ])('$case, unconditionally', async ({ write, expected }) => {
    ddb.on(UpdateCommand).resolves({});
    await store.write('chat-llm', write);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input).toEqual({
      TableName: 'governor-state',
      Key: { pk: 'TARGET#chat-llm', sk: 'STATE' },
      ...expected,
    });
  });

  it('nothing to write makes no call', async () => {
    await store.write('chat-llm', {});
    expect(ddb.calls()).toHaveLength(0);
  });

  it("claims a tick in the ledger with a conditional write: new, failed before, or running past the function's timeout", async () => {
    ddb.on(UpdateCommand).resolves({});
    const now = Date.parse('2025-06-09T12:00:10Z');
    expect(await store.claimTick('t1', now, now - 300_000)).toEqual({ claimed: true });
    expect(ddb.commandCalls(UpdateCommand)[0]!.args[0].input).toEqual({
      TableName: 'governor-state',
      Key: { pk: 'FORECAST', sk: 'TICK#t1' },
      UpdateExpression: 'SET #status = :running, #startedAt = :now, #expiresAt = :expires',
      ConditionExpression:
        'attribute_not_exists(#status) OR #status = :failed OR (#status = :running AND #startedAt < :stale)',
      ExpressionAttributeNames: { '#status': 'status', '#startedAt': 'startedAt', '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: {
        ':running': 'running',
        ':failed': 'failed',
        ':now': '2025-06-09T12:00:10.000Z',
        ':stale': '2025-06-09T11:55:10.000Z',
        ':expires': now / 1000 + 2 * 86_400,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('reports a refused claim with what the ledger said, and throws any other error', async () => {
    ddb
      .on(UpdateCommand)
      .rejectsOnce(
        Object.assign(new Error('The conditional request failed'), {
          name: 'ConditionalCheckFailedException',
          Item: { status: { S: 'done' }, startedAt: { S: '2025-06-09T12:00:10.000Z' } },
        }),
      )
      .rejectsOnce(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    expect(await store.claimTick('t1', 0, 0)).toEqual({
      claimed: false,
      status: 'done',
      startedAt: '2025-06-09T12:00:10.000Z',
    });
    await expect(store.claimTick('t1', 0, 0)).rejects.toThrow('slow down');
  });
});

describe('history queries', () => {
  const source = {
    namespace: 'AWS/SageMaker',
    metricName: 'Invocations',
    dimensions: { EndpointName: 'chat-llm-prod', VariantName: 'AllTraffic' },
    statistic: 'Sum' as const,
    scale: 1,
  };
  it.each([
    { case: 'a forecast query is five-minute', periodSeconds: undefined, period: 300 },
    { case: 'a noise query is one-minute', periodSeconds: 60, period: 60 },
  ])('$case', ({ periodSeconds, period }) => {
    const q = toHistoryQuery({
      id: 'm0',
      targetId: 'chat-llm',
      source,
      ...(periodSeconds ? { periodSeconds } : {}),
    });
    expect(q.MetricStat).toMatchObject({ Period: period, Stat: 'Sum' });
  });
});
