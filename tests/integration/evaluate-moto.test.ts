/**
 * The evaluate function against moto over HTTP, through the real AWS SDK: metrics put into
 * moto's CloudWatch scale a moto SageMaker endpoint. Capacity changes are applied with the
 * SageMaker calls the state machine's apply step makes (directScaling); the state machine
 * itself is tested on moto by tests/integration/scale-target-moto.test.ts.
 *
 * moto computes no percentiles (a p95 query fails its whole GetMetricData call), so the policy
 * here uses invocations and GPU utilization only.
 *
 * Auto Scaling groups with their own EC2 Auto Scaling policies: moto implements PutScalingPolicy,
 * DescribePolicies (without Enabled, read as enabled) and SuspendProcesses, so the refusal and
 * the AlarmNotification suspension run through the real adapter here too.
 */

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApplicationAutoScalingClient,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  PutScalingPolicyCommand as PutGroupScalingPolicyCommand,
} from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { ssmPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import { createClients } from '#shared/aws/clients.ts';
import { directScaling } from '#shared/aws/direct-scaling.ts';
import { main } from '#shared/cli/main.ts';
import { CONFIG, captureTelemetry } from '../functions/support.ts';
import {
  awsTestConfig,
  createDemoEndpoint,
  createDemoGroup,
  createStateTable,
  type MotoServer,
  motoGate,
  putStringParameter,
  putVariantMinute,
  startMoto,
  TEST_ACCOUNT,
  TEST_CREDENTIALS,
  TEST_REGION,
} from '../support/moto.ts';

const gate = motoGate();

/** The schedule's tick as the template's Input sends it (source, account and region are checked). */
const tickEvent = (id: string, time: string) => ({
  'detail-type': 'Scheduled Event',
  source: 'aws.scheduler',
  account: TEST_ACCOUNT,
  region: TEST_REGION,
  id,
  time,
});

const policyYaml = (endpoints: string[]) => `version: 1
targets:
${endpoints
  .map(
    (e) => `  - id: ${e}
    kind: sagemaker-variant
    region: us-east-1
    endpointName: ${e}
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: invocationsPerInstance, target: 100 }
      - { metric: gpuUtilization, target: 70 }
    damping: { scaleOutBreaches: 1, scaleInBreaches: 3, scaleInStabilizationSeconds: 120 }`,
  )
  .join('\n')}
`;

/**
 * The evaluate function wired to moto through the real SDK and the stack's SSM policy source.
 * `direct`: SageMaker changes are applied with the calls the state machine makes, since moto runs
 * one execution per region (getmoto/moto#10077).
 */
function motoEvaluator(
  endpoint: string,
  telemetry: ReturnType<typeof captureTelemetry>,
  o = { direct: false },
) {
  const clients = createClients({
    region: TEST_REGION,
    endpoint,
    credentials: TEST_CREDENTIALS,
    maxAttempts: 2,
  });
  const ports = { ...awsPorts(clients, CONFIG.STATE_TABLE_NAME) };
  if (o.direct) ports.executions = directScaling(ports.sageMaker, TEST_REGION);
  return createEvaluator({
    config: CONFIG,
    ports,
    telemetry,
    policy: ssmPolicySource(ports.parameters, CONFIG.POLICY_PARAMETER_NAME, 60, telemetry),
  });
}

describe.skipIf(!gate.available)('the evaluate function on moto', () => {
  let moto: MotoServer;
  let sm: SageMakerClient;
  let doc: DynamoDBDocumentClient;
  let evaluate: ReturnType<typeof createEvaluator>;
  const telemetry = captureTelemetry();
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const now = minute + 5_000;

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    sm = new SageMakerClient(config);
    doc = DynamoDBDocumentClient.from(new DynamoDBClient(config));
    await createStateTable(new DynamoDBClient(config), CONFIG.STATE_TABLE_NAME);
    const ssm = new SSMClient(config);
    await putStringParameter(ssm, CONFIG.POLICY_PARAMETER_NAME, policyYaml(['chat-a', 'chat-b']));
    await putStringParameter(ssm, CONFIG.KILL_SWITCH_PARAMETER_NAME, 'off');
    await createDemoEndpoint(sm, 'chat-a', 2);
    await createDemoEndpoint(sm, 'chat-b', 2);
    // chat-b is already scaled by target tracking: Governor must refuse to fight it.
    const aas = new ApplicationAutoScalingClient(config);
    const target = {
      ServiceNamespace: 'sagemaker' as const,
      ResourceId: 'endpoint/chat-b/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount' as const,
    };
    await aas.send(new RegisterScalableTargetCommand({ ...target, MinCapacity: 1, MaxCapacity: 4 }));
    await aas.send(
      new PutScalingPolicyCommand({
        ...target,
        PolicyName: 'chat-b-target-tracking',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 70,
          PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        },
      }),
    );
    // Three minutes of a storm: 250 requests per instance per minute against a target of 100,
    // 500 requests on chat-a's 2 instances (the readings' basis; chat-b publishes no Invocations).
    const cw = new CloudWatchClient(config);
    for (const e of ['chat-a', 'chat-b']) {
      for (const back of [3, 2, 1]) {
        await putVariantMinute(cw, e, minute - back * 60_000, {
          invocationsPerInstance: 250,
          gpuUtilization: 90,
          ...(e === 'chat-a' ? { invocations: 500 } : {}),
        });
      }
    }
    evaluate = motoEvaluator(moto.endpoint, telemetry, { direct: true });
  }, 60_000);
  afterAll(() => moto?.stop());

  const desired = async (e: string) =>
    (await sm.send(new DescribeEndpointCommand({ EndpointName: e }))).ProductionVariants?.[0]
      ?.DesiredInstanceCount;

  it('a tick scales chat-a from 2 to 5 instances (250 a minute per instance against 100) and refuses chat-b, which another scaler owns', async () => {
    const report = await evaluate(tickEvent('tick-1', new Date(now).toISOString()), now);
    expect(report.records.map((r) => [r.targetId, r.outcome, r.decision?.desiredCapacity])).toEqual([
      ['chat-a', 'started', 5],
      ['chat-b', 'refused', 5],
    ]);
    expect(report.records[0]?.inputs.readings.invocationsPerInstance).toMatchObject({ value: 250, basis: 2 });
    expect(report.records[1]?.inputs.readings.invocationsPerInstance).not.toHaveProperty('basis');
    expect(report.records[1]?.detail).toMatch(
      /"chat-b-target-tracking" also scale endpoint\/chat-b\/variant\/AllTraffic/,
    );
    expect([await desired('chat-a'), await desired('chat-b')]).toEqual([5, 2]);
  });

  it('the state item and the audit record are in the table', async () => {
    const state = (
      await doc.send(
        new GetCommand({ TableName: CONFIG.STATE_TABLE_NAME, Key: { pk: 'TARGET#chat-a', sk: 'STATE' } }),
      )
    ).Item;
    expect(state).toMatchObject({
      version: 1,
      engine: { lastScaleOutTo: 5 },
      pending: { desiredCapacity: 5 },
    });
    const audit = await doc.send(
      new GetCommand({
        TableName: CONFIG.STATE_TABLE_NAME,
        Key: { pk: 'TARGET#chat-a', sk: `DECISION#${new Date(now).toISOString()}#${state?.lastDecisionId}` },
      }),
    );
    expect(audit.Item).toMatchObject({ outcome: 'started', decision: { reasons: ['PanicScaleOut'] } });
  });

  it('the next minute, with demand met, holds at 5', async () => {
    const cw = new CloudWatchClient(awsTestConfig(moto.endpoint));
    await putVariantMinute(cw, 'chat-a', minute, { invocationsPerInstance: 95, gpuUtilization: 68 });
    const next = now + 60_000;
    const report = await evaluate(tickEvent('tick-2', new Date(next).toISOString()), next);
    expect(report.records[0]).toMatchObject({
      outcome: 'held',
      decision: { action: 'hold', reasons: ['WithinBand'] },
    });
    expect(await desired('chat-a')).toBe(5);
  });

  it('governor invoke --shadow against moto prints the decisions and writes nothing', async () => {
    const at = new Date(now + 120_000).toISOString();
    const file = join(mkdtempSync(join(tmpdir(), 'governor-moto-')), 'tick.json');
    writeFileSync(file, JSON.stringify(tickEvent('cli-tick', at)));
    vi.stubEnv('AWS_ENDPOINT_URL', moto.endpoint);
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: (l: string) => out.push(l),
      stderr: (l: string) => err.push(l),
      stderrIsTTY: false,
      cwd: process.cwd(),
    };
    const code = await main(['invoke', 'evaluate', '--event', file, '--shadow', '--now', at], io).finally(
      () => vi.unstubAllEnvs(),
    );
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out.map((l) => JSON.parse(l)).map((r) => [r.targetId, r.mode, r.outcome])).toEqual([
      ['chat-a', 'shadow', 'shadow'],
      ['chat-b', 'shadow', 'shadow'],
    ]);
    const state = await doc.send(
      new GetCommand({ TableName: CONFIG.STATE_TABLE_NAME, Key: { pk: 'TARGET#chat-a', sk: 'STATE' } }),
    );
    expect(state.Item?.version).toBe(2);
    expect(await desired('chat-a')).toBe(5);
  });
});

describe.skipIf(!gate.available)('the evaluate function on moto, with groups that scale themselves', () => {
  let moto: MotoServer;
  let asg: AutoScalingClient;
  let evaluate: ReturnType<typeof createEvaluator>;
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const now = minute + 5_000;
  const groupTarget = (name: string, onConflictingScaler: string) => `  - id: ${name}
    kind: ec2-asg
    region: us-east-1
    autoScalingGroupName: ${name}
    scaling: { minCapacity: 1, maxCapacity: 10 }
    signals:
      - { metric: gpuUtilization, target: 70 }
    damping: { scaleOutBreaches: 1 }
    onConflictingScaler: ${onConflictingScaler}`;

  beforeAll(async () => {
    moto = await startMoto();
    const config = awsTestConfig(moto.endpoint);
    await createStateTable(new DynamoDBClient(config), CONFIG.STATE_TABLE_NAME);
    const ssm = new SSMClient(config);
    await putStringParameter(
      ssm,
      CONFIG.POLICY_PARAMETER_NAME,
      `version: 1\ntargets:\n${groupTarget('batch-a', 'suspend')}\n${groupTarget('batch-b', 'refuse')}\n`,
    );
    await putStringParameter(ssm, CONFIG.KILL_SWITCH_PARAMETER_NAME, 'off');
    asg = new AutoScalingClient(config);
    const cw = new CloudWatchClient(config);
    for (const name of ['batch-a', 'batch-b']) {
      await createDemoGroup(asg, name, 2, 10);
      // Both groups are already scaled by CPU target tracking.
      await asg.send(
        new PutGroupScalingPolicyCommand({
          AutoScalingGroupName: name,
          PolicyName: `${name}-cpu-tt`,
          PolicyType: 'TargetTrackingScaling',
          TargetTrackingConfiguration: {
            TargetValue: 50,
            PredefinedMetricSpecification: { PredefinedMetricType: 'ASGAverageCPUUtilization' },
          },
        }),
      );
      // Three minutes at 95 % GPU against a target of 70.
      for (const back of [3, 2, 1]) {
        await cw.send(
          new PutMetricDataCommand({
            Namespace: 'CWAgent',
            MetricData: [
              {
                MetricName: 'nvidia_smi_utilization_gpu',
                Dimensions: [{ Name: 'AutoScalingGroupName', Value: name }],
                Timestamp: new Date(minute - back * 60_000 + 30_000),
                Value: 95,
                Unit: 'Percent',
              },
            ],
          }),
        );
      }
    }
    evaluate = motoEvaluator(moto.endpoint, captureTelemetry());
  }, 60_000);
  afterAll(() => moto?.stop());

  const describeGroup = async (name: string) =>
    (await asg.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [name] })))
      .AutoScalingGroups?.[0];

  it('suspends AlarmNotification on batch-a and sets it from 2 to 3 (ceil(2 x 95 / 70)); refuses batch-b, naming its policy', async () => {
    const report = await evaluate(tickEvent('tick-1', new Date(now).toISOString()), now);
    expect(
      report.records.map((r) => [r.targetId, r.outcome, r.decision?.desiredCapacity, r.suspended]),
    ).toEqual([
      ['batch-a', 'applied', 3, 'batch-a'],
      ['batch-b', 'refused', 3, null],
    ]);
    expect(report.records[1]?.detail).toBe(
      'EC2 Auto Scaling policies "batch-b-cpu-tt" also scale Auto Scaling group batch-b: Governor will not fight them; delete them, or set onConflictingScaler: suspend',
    );
    const [a, b] = [await describeGroup('batch-a'), await describeGroup('batch-b')];
    expect([a?.DesiredCapacity, b?.DesiredCapacity]).toEqual([3, 2]);
    expect(a?.SuspendedProcesses?.map((p) => p.ProcessName)).toEqual(['AlarmNotification']);
    expect(b?.SuspendedProcesses).toEqual([]);
  });

  it('the next tick finds batch-a suspended: no conflict, no second suspension, and it acts on the storm again', async () => {
    // moto puts the 3 instances in service at once, still at 95 %: ceil(3 x 95 / 70) = 5.
    const next = now + 60_000;
    const report = await evaluate(tickEvent('tick-2', new Date(next).toISOString()), next);
    expect(report.records[0]).toMatchObject({
      targetId: 'batch-a',
      outcome: 'applied',
      suspended: null,
      inputs: { conflict: null },
      action: { type: 'set-desired-capacity', previousCapacity: 3, desiredCapacity: 5 },
    });
  });
});
