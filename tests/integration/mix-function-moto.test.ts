/**
 * The mix Lambda handler (functions/mix/handler.ts, its real adapters and the real AWS SDK)
 * against moto over HTTP: a group made from a launch template, the policy of
 * examples/capacity-mix.yaml in SSM, a forecast floor in the target's state item as the forecast
 * function stores it, and an hour of requests in CloudWatch. One run plans, writes the group's
 * MixedInstancesPolicy and then stores the PLAN item; DescribeAutoScalingGroups reads back exactly
 * the planned policy with MinSize, MaxSize, DesiredCapacity, the launch template and the rest
 * untouched. A second run with the same forecast sends no write at all.
 *
 * moto 5.2: it keeps the group's top-level LaunchTemplate once the group is mixed (AWS moves it
 * into the policy) and models no spot purchase, so the policy is asserted, not the instances. The
 * launch template is created with one EC2 query request (no EC2 client in the project).
 */
import { readFileSync } from 'node:fs';
import {
  AutoScalingClient,
  type AutoScalingGroup,
  CreateAutoScalingGroupCommand,
  DescribeAutoScalingGroupsCommand,
} from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamoMixStore } from '#shared/aws/mix-store.ts';
import {
  awsTestConfig,
  createLaunchTemplate,
  createStateTable,
  expectedMixedInstancesPolicy,
  importHandlerOnMoto,
  type MotoServer,
  motoGate,
  putDatapoints,
  putStringParameter,
  startMoto,
  TEST_ACCOUNT,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();
const TABLE = 'governor-state';
const POLICY_NAME = '/governor/policy';
const KILL_NAME = '/governor/kill-switch';
const POLICY_TEXT = readFileSync('examples/capacity-mix.yaml', 'utf8');
const TARGET = 'chat-llm-asg';
const GROUP = 'chat-llm-gpu';
const STEP = 300_000;

const context = {
  functionName: 'governor-mix',
  invokedFunctionArn: `arn:aws:lambda:${TEST_REGION}:${TEST_ACCOUNT}:function:governor-mix`,
  awsRequestId: 'req-moto',
  getRemainingTimeInMillis: () => 120_000,
} as unknown as Context;

const tick = (id: string, at: number) => ({
  version: '0',
  id,
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: TEST_ACCOUNT,
  time: new Date(Math.floor(at / 1000) * 1000).toISOString(),
  region: TEST_REGION,
  resources: [`arn:aws:scheduler:${TEST_REGION}:${TEST_ACCOUNT}:schedule/default/governor-mix`],
  detail: {},
});

type Handler = (
  event: unknown,
  context: Context,
) => Promise<{ targets: { outcome: string; reasons: string[] }[] }>;

describe.skipIf(!gate.available)('the mix handler on moto', () => {
  let moto: MotoServer;
  let asg: AutoScalingClient;
  let doc: DynamoDBDocumentClient;
  let handler: Handler;

  const describeGroup = async (): Promise<AutoScalingGroup> => {
    const out = await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [GROUP] }));
    return out.AutoScalingGroups![0]!;
  };
  /** Everything the write must leave as it was. */
  const untouched = (g: AutoScalingGroup) => ({
    MinSize: g.MinSize,
    MaxSize: g.MaxSize,
    DesiredCapacity: g.DesiredCapacity,
    LaunchTemplate: g.LaunchTemplate,
    AvailabilityZones: g.AvailabilityZones,
    HealthCheckType: g.HealthCheckType,
    HealthCheckGracePeriod: g.HealthCheckGracePeriod,
    Tags: g.Tags,
  });

  /** One invocation: its answer, the Auto Scaling commands it sent, and its stdout (log and EMF lines). */
  async function invoke(id: string) {
    const send = vi.spyOn(AutoScalingClient.prototype, 'send');
    const lines: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    });
    try {
      const result = await handler(tick(id, Date.now()), context);
      const commands = send.mock.calls.map(([c]) => c.constructor.name);
      return { result, commands, lines: lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
    } finally {
      out.mockRestore();
      send.mockRestore();
    }
  }

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    asg = new AutoScalingClient(config);
    const ddb = new DynamoDBClient(config);
    doc = DynamoDBDocumentClient.from(ddb);
    const templateId = await createLaunchTemplate(moto.endpoint, `${GROUP}-lt`);
    await asg.send(
      new CreateAutoScalingGroupCommand({
        AutoScalingGroupName: GROUP,
        LaunchTemplate: { LaunchTemplateId: templateId, Version: '$Latest' },
        MinSize: 2,
        MaxSize: 40,
        DesiredCapacity: 3,
        AvailabilityZones: ['us-east-1a', 'us-east-1b'],
        HealthCheckType: 'ELB',
        HealthCheckGracePeriod: 420,
        Tags: [{ Key: 'team', Value: 'inference', PropagateAtLaunch: true }],
      }),
    );
    await createStateTable(ddb, TABLE);
    const ssm = new SSMClient(config);
    await putStringParameter(ssm, POLICY_NAME, POLICY_TEXT);
    await putStringParameter(ssm, KILL_NAME, 'off');
    // The forecast function's floor: 10 instances at every five-minute step of the next 4 hours.
    const now = Date.now();
    const startsAt = Math.floor(now / STEP) * STEP;
    await doc.send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          pk: `TARGET#${TARGET}`,
          sk: 'STATE',
          forecastFloor: {
            kind: 'forecast',
            quantile: 'p90',
            computedAt: now - 60_000,
            startsAt,
            stepMinutes: 5,
            leadTimeMinutes: 10,
            capacities: Array.from({ length: 48 }, () => 10),
          },
        },
      }),
    );
    // An hour and more of the group's requests as the operator publishes them (Governor/Demand): 5,000 each 5 minutes.
    await putDatapoints(
      new CloudWatchClient(config),
      'Governor/Demand',
      Array.from({ length: 16 }, (_, i) => ({
        MetricName: 'Requests',
        Dimensions: [{ Name: 'AutoScalingGroupName', Value: GROUP }],
        Timestamp: new Date(startsAt - (i + 1) * STEP + 30_000),
        Value: 5_000,
        Unit: 'Count',
      })),
    );
    ({ handler } = await importHandlerOnMoto(
      moto,
      {
        POLICY_PARAMETER_NAME: POLICY_NAME,
        STATE_TABLE_NAME: TABLE,
        KILL_SWITCH_PARAMETER_NAME: KILL_NAME,
        GOVERNOR_MODE: 'active',
      },
      async () => (await import('#functions/mix/handler.ts')) as unknown as { handler: Handler },
    ));
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await moto?.stop();
  });

  it('one run writes exactly the planned MixedInstancesPolicy, leaves every other setting, then stores the plan', async () => {
    const before = await describeGroup();
    expect(before.MixedInstancesPolicy).toBeUndefined();

    const first = await invoke('mix-1');
    expect(first.result.targets).toEqual([
      expect.objectContaining({
        targetId: TARGET,
        outcome: 'applied',
        reasons: expect.arrayContaining(['MixPlanned']),
      }),
    ]);
    expect(first.commands).toEqual([
      'DescribeAutoScalingGroupsCommand',
      'DescribeWarmPoolCommand',
      'UpdateAutoScalingGroupCommand',
    ]);

    const stored = await dynamoMixStore(doc, TABLE).get(TARGET);
    const plan = stored!.state.plan!;
    expect([stored!.version, plan.spot > 0]).toEqual([1, true]);
    // The policy lists no zones: spot is planned over the zones the group runs in, as read from
    // it (the same DescribeAutoScalingGroups the write reuses: one read per run).
    expect(before.AvailabilityZones?.length).toBeGreaterThan(0);
    const zones = [...new Set((plan.pools ?? []).map((k) => k.split('@')[1]))].sort();
    expect(zones).toEqual([...(before.AvailabilityZones ?? [])].sort());
    const after = await describeGroup();
    expect(after.MixedInstancesPolicy).toEqual(expectedMixedInstancesPolicy(before.LaunchTemplate, plan));
    expect(untouched(after)).toEqual(untouched(before));
  });

  it('records the decision in the table and emits the plan and the unit cost of the last hour (60,000 requests)', async () => {
    const records = await doc.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :d)',
        ExpressionAttributeValues: { ':pk': `MIX#${TARGET}`, ':d': 'DECISION#' },
      }),
    );
    expect(records.Items?.map((r) => [r.outcome, r.stored, r.requestsLastHour, r.zones?.source])).toEqual([
      ['applied', 'written', 60_000, 'group'],
    ]);
    const plan = (await dynamoMixStore(doc, TABLE).get(TARGET))!.state.plan!;
    expect(records.Items?.[0]?.costPer1kRequestsUsd).toBeCloseTo(plan.usdPerHour / 60, 9);
  });

  it('a second run with the same forecast makes no write: the group has the plan, the state is unchanged', async () => {
    const group = await describeGroup();
    const second = await invoke('mix-2');
    expect(second.result.targets).toEqual([
      expect.objectContaining({ outcome: 'unchanged', reasons: expect.arrayContaining(['WithinDeadBand']) }),
    ]);
    expect(second.commands).toEqual(['DescribeAutoScalingGroupsCommand', 'DescribeWarmPoolCommand']);
    expect(await describeGroup()).toEqual(group);
    expect((await dynamoMixStore(doc, TABLE).get(TARGET))!.version).toBe(1);
    const emf = second.lines.find((l) => '_aws' in l && 'PlannedUsdPerHour' in l);
    expect(emf).toMatchObject({
      TargetId: TARGET,
      BudgetCapped: 0,
      PlannedSpotInstances: expect.any(Number),
    });
    expect(emf).toHaveProperty('CostPer1kRequestsUsd');
  });
});
