/**
 * The forecast function against moto over HTTP, through the real AWS SDK: four days of
 * five-minute demand put into moto's CloudWatch become a floor schedule in moto's DynamoDB and
 * scheduled actions on a scalable target registered in moto's Application Auto Scaling; an
 * operator's action survives, a stale one of Governor's is removed.
 *
 * What moto does and does not do here (moto 5.2):
 * - GetMetricData sums five-minute periods from the start time, as CloudWatch does, but never
 *   pages (no NextToken): paging is covered over aws-sdk-client-mock (tests/forecast-aws).
 * - PutScheduledAction stores the action without checking the at() expression or that the
 *   scalable target exists, and never runs it: the test asserts the actions Governor leaves,
 *   not MinCapacity changing at their time. DescribeScheduledActions does not page either.
 * - PutMetricData of 100 datapoints answers 500 (AWS takes 1000 a call): the history goes in 20
 *   at a time.
 * - RegisterScalableTarget does not check that the SageMaker endpoint exists; one is created
 *   anyway, as in AWS.
 */

import {
  ApplicationAutoScalingClient,
  DescribeScheduledActionsCommand,
  PutScheduledActionCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { AutoScalingClient, DescribeWarmPoolCommand } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, type MetricDatum } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForecastReport } from '#functions/forecast/run.ts';
import { dynamoFloorStore } from '#shared/aws/forecast-store.ts';
import { ForecastFloorSchema } from '#shared/floors/stored.ts';
import { captureForecastTelemetry, dailyDemand, eventFile } from '../forecast-aws/fakes.ts';
import { motoForecaster } from '../support/forecaster.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  createDemoGroup,
  createStateTable,
  type MotoServer,
  motoGate,
  putDatapoints,
  putStringParameter,
  startMoto,
} from '../support/moto.ts';

const gate = motoGate();
const TABLE = 'governor-state';
const POLICY_NAME = '/governor/policy';
const NOW = Date.parse('2025-06-09T12:00:10Z');
const ORIGIN = Date.parse('2025-06-09T11:55:00Z');
const DAY = 86_400_000;
const STEP = 300_000;
const RESOURCE = 'endpoint/chat-llm-prod/variant/AllTraffic';
const DIMENSION = 'sagemaker:variant:DesiredInstanceCount' as const;

const POLICY = `version: 1
targets:
  - id: chat-llm
    kind: sagemaker-variant
    region: us-east-1
    endpointName: chat-llm-prod
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: invocationsPerInstance, target: 100 }]
    forecast: { quantile: p90, requestsPerInstance: 100, leadTimeMinutes: 10, historyDays: 4 }
  - id: batch-gpu
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: batch-gpu-asg
    scaling: { minCapacity: 1, maxCapacity: 20 }
    signals: [{ metric: gpuUtilization, target: 70 }]
    instanceCapacity: { requestsPerMinuteAtSlo: 200 }
    forecast: { historyDays: 4 }
    warmPool: { minSize: 1, maxSize: 6 }
`;

/** Four days of five-minute Sums (requests in each five minutes), stamped one minute into each period. */
async function putHistory(
  cw: CloudWatchClient,
  namespace: string,
  metricName: string,
  dimensions: Record<string, string>,
) {
  const data: MetricDatum[] = [];
  for (let t = ORIGIN - 4 * DAY; t < ORIGIN; t += STEP) {
    data.push({
      MetricName: metricName,
      Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
      Timestamp: new Date(t + 60_000),
      Value: 5 * dailyDemand(t),
      Unit: 'Count',
    });
  }
  await putDatapoints(cw, namespace, data);
}

describe.skipIf(!gate.available)('the forecast function on moto', () => {
  let moto: MotoServer;
  let aas: ApplicationAutoScalingClient;
  let asg: AutoScalingClient;
  let doc: DynamoDBDocumentClient;
  let report: ForecastReport;
  let runMs = 0;
  const telemetry = captureForecastTelemetry();

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    await createStateTable(new DynamoDBClient(config), TABLE);
    doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    await putStringParameter(new SSMClient(config), POLICY_NAME, POLICY);
    // Only "off" lets the function write scheduled actions (a missing switch counts as on).
    await putStringParameter(new SSMClient(config), '/governor/kill-switch', 'off');
    await createDemoEndpoint(new SageMakerClient(config), 'chat-llm-prod', 2);
    aas = new ApplicationAutoScalingClient(config);
    const target = {
      ServiceNamespace: 'sagemaker' as const,
      ResourceId: RESOURCE,
      ScalableDimension: DIMENSION,
    };
    await aas.send(new RegisterScalableTargetCommand({ ...target, MinCapacity: 1, MaxCapacity: 20 }));
    for (const [name, schedule] of [
      ['nightly-floor', 'cron(0 22 * * ? *)'],
      ['governor-chat-llm-20250101T0900', 'at(2025-01-01T09:00:00)'],
    ] as const) {
      await aas.send(
        new PutScheduledActionCommand({
          ...target,
          ScheduledActionName: name,
          Schedule: schedule,
          ScalableTargetAction: { MinCapacity: 2 },
        }),
      );
    }
    asg = new AutoScalingClient(config);
    await createDemoGroup(asg, 'batch-gpu-asg', 2);
    const cw = new CloudWatchClient(config);
    await putHistory(cw, 'AWS/SageMaker', 'Invocations', {
      EndpointName: 'chat-llm-prod',
      VariantName: 'AllTraffic',
    });
    await putHistory(cw, 'Governor/Demand', 'Requests', { AutoScalingGroupName: 'batch-gpu-asg' });

    const run = motoForecaster(moto.endpoint, { policyParameter: POLICY_NAME, table: TABLE }, telemetry);
    const started = performance.now();
    report = await run(eventFile('forecast-tick'), NOW);
    runMs = performance.now() - started;
  });
  afterAll(() => moto?.stop());

  const floorOf = async (targetId: string) => {
    const { Item } = await doc.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `TARGET#${targetId}`, sk: 'STATE' } }),
    );
    return ForecastFloorSchema.parse(Item?.forecastFloor);
  };

  it("the tick ledger's condition, as DynamoDB evaluates it: a done tick is never claimed again; a run left running past the timeout is", async () => {
    const store = dynamoFloorStore(doc, TABLE);
    const id = 'f1e2d3c4-0000-4000-8000-000000000001'; // events/forecast-tick.json, run above
    const later = NOW + 400_000;
    expect(await store.claimTick(id, later, later - 300_000)).toMatchObject({
      claimed: false,
      status: 'done',
    });
    expect(await store.claimTick('killed-run', NOW, NOW - 300_000)).toEqual({ claimed: true });
    expect(await store.claimTick('killed-run', NOW + 60_000, NOW - 240_000)).toMatchObject({
      claimed: false,
      status: 'running',
    });
    expect(await store.claimTick('killed-run', later, later - 300_000)).toEqual({ claimed: true });
  });

  it('writes a floor for both targets, from the four days in moto CloudWatch', async () => {
    expect(report.outcomes.map((o) => [o.targetId, o.outcome])).toEqual([
      ['chat-llm', 'written'],
      ['batch-gpu', 'written'],
    ]);
    console.log(`forecast run on moto (2 targets, 4 days of five-minute history): ${runMs.toFixed(0)} ms`);
  });

  it.each([
    // chat-llm: 100 requests per instance; the 14:00 peak of 1000 a minute needs 10, p90 a little more.
    { targetId: 'chat-llm', night: 1, peak: [10, 11] },
    // batch-gpu: planned at instanceCapacity 200 a minute: the peak needs 5 or 6.
    { targetId: 'batch-gpu', night: 1, peak: [5, 6] },
  ])('stores $targetId’s floor schedule in the state item', async ({ targetId, night, peak }) => {
    const floor = await floorOf(targetId);
    expect(floor).toMatchObject({
      quantile: 'p90',
      computedAt: NOW,
      startsAt: ORIGIN,
      stepMinutes: 5,
      leadTimeMinutes: 10,
    });
    expect(floor.capacities).toHaveLength(576);
    // Beside each step it can read while the floor is fresh (2 x 60 minutes: 24 steps) its band,
    // p90 / p50, for the evaluator's forecast room.
    expect(floor.bandRatios).toHaveLength(24);
    for (const r of floor.bandRatios!) expect(r).toBeGreaterThanOrEqual(1);
    const at = (iso: string) => floor.capacities[(Date.parse(iso) - ORIGIN) / STEP]!;
    expect(at('2025-06-10T03:00:00Z')).toBe(night);
    expect(peak).toContain(at('2025-06-09T14:00:00Z'));
  });

  it('leaves scheduled actions on the registered target: Governor’s new ones, the operator’s, not the stale one', async () => {
    const { ScheduledActions = [] } = await aas.send(
      new DescribeScheduledActionsCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: RESOURCE,
        ScalableDimension: DIMENSION,
      }),
    );
    const names = ScheduledActions.map((a) => a.ScheduledActionName!);
    expect(names).toContain('nightly-floor');
    expect(names).not.toContain('governor-chat-llm-20250101T0900');
    const ours = ScheduledActions.filter((a) => a.ScheduledActionName!.startsWith('governor-chat-llm-'));
    expect(ours.length).toBeGreaterThan(4);
    for (const a of ours) {
      expect(a.ScheduledActionName).toMatch(/^governor-chat-llm-\d{8}T\d{4}$/);
      expect(a.Schedule).toMatch(/^at\(2025-06-(09|10)T\d{2}:\d{2}:00\)$/);
    }
    const levels = ours.map((a) => a.ScalableTargetAction?.MinCapacity);
    expect(Math.max(...(levels as number[]))).toBeGreaterThanOrEqual(10);
    expect(levels).toContain(1);
    expect(report.outcomes[0]).toMatchObject({
      actions: { status: 'written', put: ours.length, removed: 1 },
    });
  });

  it('writes no action for the Auto Scaling group (Application Auto Scaling is for SageMaker here)', () => {
    expect(report.outcomes[1]).toMatchObject({ actions: { status: 'skipped', reason: 'NotSageMaker' } });
  });

  it('gives the Auto Scaling group a warm pool of the planned, absolute size in moto', async () => {
    const warm = (report.outcomes[1] as { warm?: { kind: string; status: string; size: number } }).warm!;
    expect(warm).toMatchObject({ kind: 'warm-pool', status: 'resized' });
    expect(warm.size).toBeGreaterThanOrEqual(1);
    const out = await asg.send(new DescribeWarmPoolCommand({ AutoScalingGroupName: 'batch-gpu-asg' }));
    expect(out.WarmPoolConfiguration).toMatchObject({
      MinSize: warm.size,
      MaxGroupPreparedCapacity: warm.size,
      PoolState: 'Stopped',
    });
  });
});
