/**
 * Spot headroom (capacityMix.spot.overProvision) through the real evaluate function on moto:
 * an Auto Scaling group with a capacity mix whose PLAN item (the real planner's, as the mix
 * function stores it) runs spot. The GPU load asks for the 2 instances the group runs; the
 * evaluator holds 2 more as headroom, sets the group to 4 and stores what it held; the next tick
 * reads the same load spread over 4 (35 %), takes the held 2 out before deciding, and holds.
 */
import { AutoScalingClient, DescribeAutoScalingGroupsCommand } from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { ssmPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import { createClients } from '#shared/aws/clients.ts';
import { initialMixState, stepMix } from '#shared/mix/plan.ts';
import { resolveMixPolicy } from '#shared/mix/types.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { CONFIG, captureTelemetry } from '../functions/support.ts';
import { liveTick } from '../live/moto-evaluate.ts';
import { POOLS } from '../mix/harness.ts';
import {
  awsTestConfig,
  createDemoGroup,
  createStateTable,
  type MotoServer,
  motoGate,
  putStringParameter,
  startMoto,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();
const GROUP = 'gpu-headroom';
const minute = Math.floor(Date.now() / 60_000) * 60_000;
const now = minute + 5_000;

const policy = {
  version: 1,
  targets: [
    {
      id: GROUP,
      kind: 'ec2-asg',
      region: 'us-east-1',
      autoScalingGroupName: GROUP,
      scaling: { minCapacity: 1, maxCapacity: 10 },
      signals: [{ metric: 'gpuUtilization', target: 70 }],
      damping: { scaleOutBreaches: 1 },
      capacityMix: { pools: POOLS, spot: { maxPercent: 60, overProvision: 2 } },
    },
  ],
};

describe.skipIf(!gate.available)('spot headroom through the evaluate function on moto', () => {
  let moto: MotoServer;
  let asg: AutoScalingClient;
  let cw: CloudWatchClient;
  let doc: DynamoDBDocumentClient;
  let evaluate: ReturnType<typeof createEvaluator>;

  const gpuAt = (value: number, backs: number[]) =>
    cw.send(
      new PutMetricDataCommand({
        Namespace: 'CWAgent',
        MetricData: backs.map((back) => ({
          MetricName: 'nvidia_smi_utilization_gpu',
          Dimensions: [{ Name: 'AutoScalingGroupName', Value: GROUP }],
          Timestamp: new Date(minute - back * 60_000 + 30_000),
          Value: value,
          Unit: 'Percent',
        })),
      }),
    );

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    await createStateTable(new DynamoDBClient(config), CONFIG.STATE_TABLE_NAME);
    const ssm = new SSMClient(config);
    await putStringParameter(ssm, CONFIG.POLICY_PARAMETER_NAME, JSON.stringify(policy));
    await putStringParameter(ssm, CONFIG.KILL_SWITCH_PARAMETER_NAME, 'off');
    asg = new AutoScalingClient(config);
    cw = new CloudWatchClient(config);
    doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    await createDemoGroup(asg, GROUP, 2, 10);
    // The plan the mix function stores for a flat p90 of 6 instances: it runs spot.
    const mix = resolveMixPolicy(policyOrThrow(policy).targets[0]!)!;
    const points = Array.from({ length: 24 }, (_, i) => ({ at: now + i * 15 * 60_000, p50: 5, p90: 6 }));
    const planned = stepMix(initialMixState(), { forecast: { points } }, mix, now).state;
    expect(planned.plan?.spot).toBeGreaterThan(0);
    await doc.send(
      new PutCommand({
        TableName: CONFIG.STATE_TABLE_NAME,
        Item: { pk: `MIX#${GROUP}`, sk: 'PLAN', version: 1, state: planned },
      }),
    );
    // Three minutes at the target: the load asks for the 2 the group runs.
    await gpuAt(70, [3, 2, 1]);
    const clients = createClients({
      region: TEST_REGION,
      endpoint: moto.endpoint,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 2,
    });
    const ports = awsPorts(clients, CONFIG.STATE_TABLE_NAME);
    const telemetry = captureTelemetry();
    evaluate = createEvaluator({
      config: CONFIG,
      ports,
      telemetry,
      policy: ssmPolicySource(ports.parameters, CONFIG.POLICY_PARAMETER_NAME, 60, telemetry),
    });
  }, 60_000);
  afterAll(() => moto?.stop());

  const desiredOf = async () =>
    (await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GROUP] })))
      .AutoScalingGroups?.[0]?.DesiredCapacity;

  it('holds 2 spot instances beyond what the load asks: the group goes from 2 to 4, and the state says 2 are headroom', async () => {
    const report = await evaluate(liveTick('headroom-1', now), now);
    const record = report.records[0]!;
    expect([record.outcome, record.decision?.desiredCapacity, record.decision?.reasons]).toEqual([
      'applied',
      4,
      ['WithinBand', 'SpotHeadroom'],
    ]);
    expect(record.inputs).toMatchObject({ mixPlan: { spotHeadroom: 2 } });
    expect(await desiredOf()).toBe(4);
    const item = await doc.send(
      new GetCommand({ TableName: CONFIG.STATE_TABLE_NAME, Key: { pk: `TARGET#${GROUP}`, sk: 'STATE' } }),
    );
    expect(item.Item?.engine?.spotHeadroom).toEqual({ held: 2, own: 2 });
  });

  it('the next tick reads the load over 4 instances as 70 % of its own 2 and holds at 4', async () => {
    // The same work over the 4 instances moto put in service at once: 35 % each.
    await gpuAt(35, [0]);
    const next = now + 60_000;
    const report = await evaluate(liveTick('headroom-2', next), next);
    const record = report.records[0]!;
    expect([record.decision?.action, record.decision?.desiredCapacity, record.decision?.reasons]).toEqual([
      'hold',
      4,
      ['WithinBand', 'SpotHeadroom'],
    ]);
    expect(await desiredOf()).toBe(4);
  });
});
