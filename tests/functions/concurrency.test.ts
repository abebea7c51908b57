/**
 * Concurrent evaluations of one target against dynalite (a DynamoDB API server, in-process on a
 * free loopback port): the version condition lets exactly one of 20 simultaneous evaluations
 * change capacity, and the state item stays consistent with the records.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import {
  ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  DescribePoliciesCommand,
  SetDesiredCapacityCommand,
} from '@aws-sdk/client-auto-scaling';
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEvaluator } from '#functions/evaluate/evaluate.ts';
import { fixedPolicySource } from '#functions/evaluate/policy-source.ts';
import { awsPorts } from '#functions/evaluate/ports.ts';
import { createClients } from '#shared/aws/clients.ts';
import { EngineStateSchema } from '#shared/engine/types.ts';
import { groupTarget, policyOf, variantTarget } from '../control/policies.ts';
import { createStateTable, freePort } from '../support/moto.ts';
import { CONFIG, captureTelemetry } from './support.ts';

const dynalite = createRequire(import.meta.url)('dynalite') as (options: { createTableMs: number }) => Server;
const NOW = Date.parse('2025-06-02T12:00:30Z');
const CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' };
const EVALUATIONS = 20;

const cw = mockClient(CloudWatchClient);
const asg = mockClient(AutoScalingClient);
const sm = mockClient(SageMakerClient);
const aas = mockClient(ApplicationAutoScalingClient);
const sfn = mockClient(SFNClient);
const ssm = mockClient(SSMClient);

let server: Server;
let endpoint: string;
let table = 0;

beforeAll(async () => {
  server = dynalite({ createTableMs: 0 });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  endpoint = `http://127.0.0.1:${port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

beforeEach(() => {
  for (const m of [cw, asg, sm, aas, sfn, ssm]) m.reset();
  ssm.on(GetParameterCommand).resolves({ Parameter: { Value: 'off' } });
  cw.on(GetMetricDataCommand).callsFake(async (input) => ({
    // Every signal at 2.5x its target: a scale-out by any reading. Invocations: 250 a minute on
    // each of the 2 instances (the per-instance readings' basis).
    MetricDataResults: (input.MetricDataQueries as MetricDataQuery[]).map((q) => {
      const name = q.MetricStat?.Metric?.MetricName;
      return {
        Id: q.Id,
        Timestamps: [new Date('2025-06-02T11:59:00Z')],
        Values: [name === 'ModelLatency' ? 500_000 : name === 'Invocations' ? 500 : 250],
      };
    }),
  }));
  aas.on(DescribeScalableTargetsCommand).resolves({ ScalableTargets: [] });
});

async function freshTable(): Promise<{ name: string; doc: DynamoDBDocumentClient }> {
  const name = `governor-state-${++table}`;
  const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: CREDENTIALS });
  await createStateTable(client, name);
  return { name, doc: DynamoDBDocumentClient.from(client) };
}

/** 20 evaluators (20 Lambda containers) handle 20 different events for one target at once. */
async function race(policyTarget: Record<string, unknown>) {
  const { name, doc } = await freshTable();
  const policy = policyOf(policyTarget);
  const telemetry = captureTelemetry();
  const ports = awsPorts(createClients({ region: 'us-east-1', endpoint, credentials: CREDENTIALS }), name);
  let n = 0;
  const evaluators = Array.from({ length: EVALUATIONS }, () =>
    createEvaluator({
      config: CONFIG,
      ports,
      telemetry,
      policy: fixedPolicySource(policy),
      newId: () => `d${++n}`,
    }),
  );
  const reports = await Promise.all(
    evaluators.map((evaluate, i) =>
      evaluate(
        {
          'detail-type': 'Scheduled Event',
          source: 'aws.scheduler',
          account: '123456789012',
          region: 'us-east-1',
          id: `tick-${i}`,
          time: '2025-06-02T12:00:00Z',
        },
        NOW + i,
      ),
    ),
  );
  const records = reports.flatMap((r) => r.records);
  const items = (
    await doc.send(
      new QueryCommand({
        TableName: name,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `TARGET#${policy.targets[0]!.id}` },
      }),
    )
  ).Items!;
  return {
    records,
    state: items.find((i) => i.sk === 'STATE')!,
    audits: items.filter((i) => String(i.sk).startsWith('DECISION#')),
  };
}

describe(`${EVALUATIONS} concurrent evaluations of one target`, () => {
  it('an Auto Scaling group gets exactly one SetDesiredCapacity and a consistent state', async () => {
    let desired = 2;
    asg.on(DescribeAutoScalingGroupsCommand).callsFake(async () => ({
      AutoScalingGroups: [
        {
          AutoScalingGroupName: 'batch-gpu-asg',
          DesiredCapacity: desired,
          Instances: [{ LifecycleState: 'InService' }, { LifecycleState: 'InService' }],
          SuspendedProcesses: [],
        },
      ],
    }));
    asg.on(DescribePoliciesCommand).resolves({ ScalingPolicies: [] });
    asg.on(SetDesiredCapacityCommand).callsFake(async (input) => {
      desired = input.DesiredCapacity;
      return {};
    });
    const { records, state, audits } = await race(groupTarget());

    expect(asg.commandCalls(SetDesiredCapacityCommand).map((c) => c.args[0].input.DesiredCapacity)).toEqual([
      6,
    ]);
    const changes = records.filter((r) => r.action !== null);
    expect(changes.map((r) => [r.outcome, r.decision?.currentCapacity, r.decision?.desiredCapacity])).toEqual(
      [['applied', 2, 6]],
    );
    // Every claim that won bumped the version once; the rest lost every attempt and changed nothing.
    const claimed = records.filter((r) => r.outcome === 'applied');
    expect(state.version).toBe(claimed.length);
    expect(records.filter((r) => r.outcome !== 'applied').every((r) => r.outcome === 'deferred')).toBe(true);
    expect(EngineStateSchema.parse(state.engine)).toMatchObject({ lastScaleOutTo: 6, lastScaleOutStep: 4 });
    expect(audits).toHaveLength(EVALUATIONS);
  });

  it('an endpoint variant gets exactly one state machine execution; the others see it pending', async () => {
    sm.on(DescribeEndpointCommand).resolves({
      EndpointStatus: 'InService',
      ProductionVariants: [{ VariantName: 'AllTraffic', CurrentInstanceCount: 2, DesiredInstanceCount: 2 }],
    });
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn:x', startDate: new Date() });
    const { records, state } = await race(variantTarget());

    const starts = sfn.commandCalls(StartExecutionCommand).map((c) => JSON.parse(c.args[0].input.input!));
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ previousCapacity: 2, desiredCapacity: 5 });
    expect(state.pending).toMatchObject({ decisionId: starts[0].decisionId, desiredCapacity: 5 });
    const holds = records.filter((r) => r.outcome === 'held');
    expect(holds.every((r) => r.decision?.reasons[0] === 'CapacityPending')).toBe(true);
    expect(state.version).toBe(holds.length + 1);
  });
});
