/**
 * 500 targets in one region on moto, through the real SDK over HTTP: 500 endpoints, 50 of them
 * registered with Application Auto Scaling and 10 of those with a target-tracking policy, three
 * minutes of metrics each. One tick's SDK calls, counted at the clients, equal the formula of
 * shared/invocation/tick-calls.ts: the policy sweep is one DescribeScalingPolicies, the state items
 * five BatchGetItem, and only DescribeEndpoint and each target's claim and record are per target.
 *
 * No import of ./world.ts here: the evaluate harness it builds on mocks every SDK client class.
 *
 * The policy is given directly (fixedPolicySource): 500 targets are about 150 KB of policy, and
 * an SSM String parameter holds 8 KB (docs/scale.md, "The policy parameter").
 */
import {
  ApplicationAutoScalingClient,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { fixedPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import { createClients } from '#shared/aws/clients.ts';
import { resolveFailoverGroups } from '#shared/failover/group.ts';
import { initialFailoverState } from '#shared/failover/plan.ts';
import { tickReads } from '#shared/invocation/tick-calls.ts';
import { policyOrThrow } from '#shared/policy/load.ts';
import { CONFIG, captureTelemetry } from '../functions/support.ts';
import {
  awsTestConfig,
  createStateTable,
  type MotoServer,
  motoGate,
  putStringParameter,
  startMoto,
  TEST_ACCOUNT,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../support/moto.ts';
import { countCalls } from './count.ts';
import { withLatency } from './latency.ts';

const gate = motoGate();
const N = 500;
const REGISTERED_EVERY = 10;
const POLICY_EVERY = 50;

const policy = policyOrThrow({
  version: 1,
  targets: Array.from({ length: N }, (_, i) => ({
    id: `v${i}`,
    kind: 'sagemaker-variant',
    region: TEST_REGION,
    endpointName: `ep-${i}`,
    scaling: { minCapacity: 1, maxCapacity: 10 },
    // moto computes no percentiles: invocations and GPU only.
    signals: [
      { metric: 'invocationsPerInstance', target: 100 },
      { metric: 'gpuUtilization', target: 70 },
    ],
  })),
});

async function seedEndpoints(sm: SageMakerClient) {
  await sm.send(
    new CreateModelCommand({
      ModelName: 'scale-model',
      ExecutionRoleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/governor-demo-sagemaker`,
      PrimaryContainer: { Image: `${TEST_ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/demo-llm:latest` },
    }),
  );
  await sm.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: 'scale-config',
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          ModelName: 'scale-model',
          InitialInstanceCount: 2,
          InstanceType: 'ml.g4dn.xlarge',
        },
      ],
    }),
  );
  for (let i = 0; i < N; i++)
    await sm.send(new CreateEndpointCommand({ EndpointName: `ep-${i}`, EndpointConfigName: 'scale-config' }));
}

async function seedScalers(aas: ApplicationAutoScalingClient) {
  for (let i = 0; i < N; i += REGISTERED_EVERY) {
    const target = {
      ServiceNamespace: 'sagemaker' as const,
      ResourceId: `endpoint/ep-${i}/variant/AllTraffic`,
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
    };
    await aas.send(new RegisterScalableTargetCommand({ ...target, MinCapacity: 1, MaxCapacity: 10 }));
    if (i % POLICY_EVERY !== 0) continue;
    await aas.send(
      new PutScalingPolicyCommand({
        ...target,
        PolicyName: `tt-${i}`,
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 70,
          PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        },
      }),
    );
  }
}

/** Three calm minutes for every endpoint (within both bands), 20 datums a call (moto answers larger calls with an HTML error page). */
async function seedMetrics(cw: CloudWatchClient, minute: number) {
  for (const [Namespace, MetricName, Value] of [
    ['AWS/SageMaker', 'InvocationsPerInstance', 100],
    ['/aws/sagemaker/Endpoints', 'GPUUtilization', 70],
  ] as const) {
    const data: MetricDatum[] = [];
    for (let i = 0; i < N; i++) {
      for (const back of [3, 2, 1]) {
        data.push({
          MetricName,
          Dimensions: [
            { Name: 'EndpointName', Value: `ep-${i}` },
            { Name: 'VariantName', Value: 'AllTraffic' },
          ],
          Timestamp: new Date(minute - back * 60_000 + 30_000),
          Value,
        });
      }
    }
    for (let i = 0; i < data.length; i += 20)
      await cw.send(new PutMetricDataCommand({ Namespace, MetricData: data.slice(i, i + 20) }));
  }
}

describe.skipIf(!gate.available)(`${N} targets in one region on moto`, () => {
  let moto: MotoServer;
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const now = minute + 5_000;

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    await createStateTable(new DynamoDBClient(config), CONFIG.STATE_TABLE_NAME);
    await putStringParameter(new SSMClient(config), CONFIG.KILL_SWITCH_PARAMETER_NAME, 'off');
    await seedEndpoints(new SageMakerClient(config));
    await seedScalers(new ApplicationAutoScalingClient(config));
    await seedMetrics(new CloudWatchClient(config), minute);
  }, 300_000);
  afterAll(() => moto?.stop());

  it('one tick makes the calls of the formula: 1,000 per target (claim and record), 500 DescribeEndpoint, 20 others', async () => {
    const calls: string[] = [];
    const clients = withLatency(
      createClients({
        region: TEST_REGION,
        endpoint: moto.endpoint,
        credentials: TEST_CREDENTIALS,
        maxAttempts: 2,
        // This test counts calls, not latency. Moto answers one request at a time, so on a
        // loaded 2-core CI machine the 500th DescribeEndpoint of a burst waits its turn for
        // longer than the production per-attempt limit (a run on record: every capacity read
        // timed out at 5 s). The limits themselves are tested in tests/aws/*timeouts*.
        timeouts: { connectionTimeout: 60_000, requestTimeout: 120_000 },
      }),
      (call) => {
        calls.push(call);
        return 0;
      },
    );
    const evaluate = createEvaluator({
      config: CONFIG,
      ports: awsPorts(clients, CONFIG.STATE_TABLE_NAME),
      telemetry: captureTelemetry(),
      policy: fixedPolicySource(policy),
    });
    const report = await evaluate(
      {
        'detail-type': 'Scheduled Event',
        source: 'aws.scheduler',
        account: TEST_ACCOUNT,
        region: TEST_REGION,
        id: 'scale-tick',
        time: new Date(now).toISOString(),
      },
      now,
    );

    const outcomes = countCalls(report.records.map((r) => r.outcome));
    const failed = report.records.find((r) => r.outcome === 'failed');
    expect(outcomes, `first failure: ${failed?.detail}`).toEqual({
      held: N - N / POLICY_EVERY,
      refused: N / POLICY_EVERY,
    });
    const reads = tickReads(
      policy.targets,
      () => ({
        activeResources: N / REGISTERED_EVERY,
        sageMakerPolicies: N / POLICY_EVERY,
        groupPolicies: 0,
      }),
      { policyCached: true }, // the policy is given, so the one GetParameter is the kill switch
    );
    expect(countCalls(calls)).toEqual({ ...reads, 'DynamoDB.Update': N, 'DynamoDB.Put': N });
    expect(reads).toEqual({
      'SSM.GetParameter': 1,
      // 2 signals and the Invocations basis of each of 500 targets: 1,500 queries, 500 a call.
      'CloudWatch.GetMetricData': 3,
      'SageMaker.DescribeEndpoint': N,
      'ApplicationAutoScaling.DescribeScalableTargets': 10,
      'ApplicationAutoScaling.DescribeScalingPolicies': 1,
      'DynamoDB.BatchGet': 5,
    });
  }, 300_000);

  it('failover groups: their FAILOVER# items are one more BatchGetItem, and a shifting group holds its standby at the prescale', async () => {
    // Standbys v1..v4 here (ep-1..ep-4: 2 instances, not registered), primaries in us-west-2.
    const G = 4;
    const failoverPolicy = policyOrThrow({
      version: 1,
      targets: [
        ...policy.targets.slice(1, 1 + G),
        ...Array.from({ length: G }, (_, i) => ({
          id: `p${i + 1}`,
          kind: 'ec2-asg',
          region: 'us-west-2',
          autoScalingGroupName: `asg-p${i + 1}`,
          scaling: { minCapacity: 1, maxCapacity: 10 },
          signals: [{ metric: 'gpuUtilization', target: 70 }],
        })),
      ],
      failover: {
        groups: Array.from({ length: G }, (_, i) => ({
          id: `fg${i + 1}`,
          members: [
            { targetId: `p${i + 1}`, role: 'primary' },
            { targetId: `v${i + 1}`, role: 'standby', warmFloor: 1 },
          ],
          routing: {
            kind: 'route53-weighted',
            hostedZoneId: 'Z0123456789ABC',
            recordName: `fg${i + 1}.example.com`,
            setIdentifiers: { 'us-east-1': 'east', 'us-west-2': 'west' },
          },
          health: { failPeriods: 3, failWindowPeriods: 5 },
        })),
      },
    });
    const [group] = resolveFailoverGroups(failoverPolicy);
    const config = awsTestConfig(moto.endpoint);
    await DynamoDBDocumentClient.from(new DynamoDBClient(config)).send(
      new PutCommand({
        TableName: CONFIG.STATE_TABLE_NAME,
        Item: {
          pk: 'FAILOVER#fg1',
          sk: 'STATE',
          version: 7,
          mode: 'active',
          state: {
            ...initialFailoverState(group!),
            phase: 'shifting',
            direction: 'failover',
            source: 'us-west-2',
            step: 0,
            needed: { v1: 4 },
          },
        },
      }),
    );
    const calls: string[] = [];
    const clients = withLatency(
      createClients({
        region: TEST_REGION,
        endpoint: moto.endpoint,
        credentials: TEST_CREDENTIALS,
        maxAttempts: 2,
      }),
      (call) => {
        calls.push(call);
        return 0;
      },
    );
    const evaluate = createEvaluator({
      config: CONFIG,
      mode: 'shadow',
      ports: awsPorts(clients, CONFIG.STATE_TABLE_NAME),
      telemetry: captureTelemetry(),
      policy: fixedPolicySource(failoverPolicy),
    });
    const report = await evaluate(
      {
        'detail-type': 'Scheduled Event',
        source: 'aws.scheduler',
        account: TEST_ACCOUNT,
        region: TEST_REGION,
        id: 'failover-tick',
        time: new Date(now).toISOString(),
      },
      now,
    );

    const reads = tickReads(
      failoverPolicy.targets,
      () => ({ activeResources: 0, sageMakerPolicies: 0, groupPolicies: 0 }),
      { policyCached: true, failoverGroups: G },
    );
    const counted = countCalls(calls);
    expect(Object.fromEntries(Object.keys(reads).map((k) => [k, counted[k]]))).toEqual(reads);
    expect(reads['DynamoDB.BatchGet']).toBe(2);
    expect(counted['DynamoDB.Get'] ?? 0).toBe(0);
    const v1 = report.records.find((r) => r.targetId === 'v1')!;
    expect(v1.decision?.reasons).toContain('FailoverFloor');
    expect(v1.decision?.desiredCapacity).toBe(4);
    expect((v1.inputs as { failoverFloor?: unknown }).failoverFloor).toEqual({
      groupId: 'fg1',
      phase: 'shifting',
      capacity: 4,
      detail: 'held at 4 or more in shifting',
    });
    const v2 = report.records.find((r) => r.targetId === 'v2')!;
    expect(v2.decision?.reasons).not.toContain('FailoverFloor');
    expect((v2.inputs as { failoverFloor?: { detail: string } }).failoverFloor?.detail).toBe(
      "no FAILOVER#fg2 item in this region's state table: no failover floor",
    );
  }, 60_000);
});
