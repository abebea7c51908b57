/**
 * The AWS side of the spot-events replays, on aws-sdk-client-mock: a state table held in memory
 * that honours the version conditions of PutItem, an Auto Scaling with groups of instances that
 * DetachInstances really removes (desired capacity kept), SetDesiredCapacity really sets (within
 * MaxSize) and TerminateInstanceInAutoScalingGroup really removes (decrementing when asked), and
 * the SSM parameters. Every call is counted by the mocks (calls()).
 */
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  DescribeAutoScalingInstancesCommand,
  DescribeWarmPoolCommand,
  DetachInstancesCommand,
  SetDesiredCapacityCommand,
  TerminateInstanceInAutoScalingGroupCommand,
  UpdateAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { parseSpotEventsConfig } from '#functions/spot-events/config.ts';
import { awsError } from '../aws/fakes.ts';

export const ACCOUNT = '123456789012';
export const GROUP = 'gpu-asg';
export const POLICY_NAME = '/governor/policy';
export const KILL_NAME = '/governor/kill-switch';
export const TABLE = 'governor-state';

/** The policy: target gpu on group gpu-asg, the three pools of tests/mix/harness.ts, spot up to 60 %. */
export const spotPolicy = (max = 1000) => ({
  version: 1,
  targets: [
    {
      id: 'gpu',
      kind: 'ec2-asg',
      region: 'us-east-1',
      autoScalingGroupName: GROUP,
      scaling: { minCapacity: 1, maxCapacity: max },
      signals: [{ metric: 'gpuUtilization', target: 70 }],
      capacityMix: {
        pools: [
          {
            instanceType: 'g5.2xlarge',
            onDemandUsdPerHour: 1.2,
            spotUsdPerHour: 0.48,
            interruption: '5-10%',
          },
          { instanceType: 'g6.2xlarge', onDemandUsdPerHour: 1.0, spotUsdPerHour: 0.4, interruption: '<5%' },
          {
            instanceType: 'g6e.xlarge',
            onDemandUsdPerHour: 1.8,
            spotUsdPerHour: 0.72,
            interruption: '10-15%',
          },
        ],
        committed: { instances: 2, instanceType: 'g5.2xlarge', usdPerHour: 0.76 },
        spot: { maxPercent: 60 },
      },
    },
  ],
});

/** The policy with capacityMix.interruptions.healthDisruptionBudget set. */
export const withBudget = (p: ReturnType<typeof spotPolicy>, budget: number) => ({
  ...p,
  targets: p.targets.map((t) => ({
    ...t,
    capacityMix: { ...t.capacityMix, interruptions: { healthDisruptionBudget: budget } },
  })),
});

/** The spot-events function's configuration as the tests run it: these names, active by default. */
export const spotEventsConfig = (mode: 'active' | 'shadow' = 'active') =>
  parseSpotEventsConfig({
    POLICY_PARAMETER_NAME: POLICY_NAME,
    STATE_TABLE_NAME: TABLE,
    KILL_SWITCH_PARAMETER_NAME: KILL_NAME,
    GOVERNOR_MODE: mode,
    AWS_REGION: 'us-east-1',
  });

type Item = Record<string, unknown>;

export function fakeAws(options: {
  policy: unknown;
  kill?: string;
  members: Map<string, string>;
  /** Every group's MaxSize (default 100). */
  maxSize?: number;
}) {
  const table = new Map<string, Item>();
  const key = (k: { pk?: unknown; sk?: unknown }) => `${String(k.pk)}|${String(k.sk)}`;
  const ssm = mockClient(SSMClient);
  const asg = mockClient(AutoScalingClient);
  const ddb = mockClient(DynamoDBDocumentClient);
  mockClient(DynamoDBClient);
  const members = options.members;
  const maxSize = options.maxSize ?? 100;
  /** A group's desired capacity once set (SetDesiredCapacity, a decrement); until then its member count. */
  const desired = new Map<string, number>();
  const desiredOf = (name: string) =>
    desired.get(name) ?? [...members.values()].filter((g) => g === name).length;
  let policyText = JSON.stringify(options.policy);
  let kill = options.kill ?? 'off';

  ssm.on(GetParameterCommand).callsFake(async (input: { Name: string }) => {
    if (input.Name === POLICY_NAME) return { Parameter: { Name: input.Name, Value: policyText } };
    if (input.Name === KILL_NAME) return { Parameter: { Name: input.Name, Value: kill } };
    throw awsError('ParameterNotFound');
  });
  ssm.on(GetParametersByPathCommand).resolves({ Parameters: [] });

  ddb.on(GetCommand).callsFake(async (input: { Key: Item }) => ({ Item: table.get(key(input.Key)) }));
  ddb.on(BatchGetCommand).callsFake(async (input: { RequestItems: Record<string, { Keys: Item[] }> }) => {
    const keys = input.RequestItems[TABLE]!.Keys;
    return { Responses: { [TABLE]: keys.map((k) => table.get(key(k))).filter(Boolean) } };
  });
  ddb.on(PutCommand).callsFake(async (input: { Item: Item; ExpressionAttributeValues?: Item }) => {
    const now = table.get(key(input.Item));
    const expected = input.ExpressionAttributeValues?.[':expected'];
    const ok = expected === undefined ? now === undefined : now?.version === expected;
    if (!ok) throw awsError('ConditionalCheckFailedException');
    table.set(key(input.Item), structuredClone(input.Item));
    return {};
  });

  asg.on(DescribeAutoScalingInstancesCommand).callsFake(async (input: { InstanceIds: string[] }) => ({
    AutoScalingInstances: input.InstanceIds.filter((i) => members.has(i)).map((i) => ({
      InstanceId: i,
      AutoScalingGroupName: members.get(i),
    })),
  }));
  asg
    .on(DetachInstancesCommand)
    .callsFake(async (input: { InstanceIds: string[]; AutoScalingGroupName: string }) => {
      for (const i of input.InstanceIds)
        if (members.get(i) !== input.AutoScalingGroupName)
          throw awsError(
            'ValidationError',
            `The instance ${i} is not part of Auto Scaling group ${input.AutoScalingGroupName}.`,
          );
      for (const i of input.InstanceIds) members.delete(i);
      return { Activities: [] };
    });
  asg.on(DescribeAutoScalingGroupsCommand).callsFake(async (input: { AutoScalingGroupNames: string[] }) => ({
    AutoScalingGroups: input.AutoScalingGroupNames.map((name) => ({
      AutoScalingGroupName: name,
      // Every member InService; desired its member count until set (the Health disruption budget reads it).
      DesiredCapacity: desiredOf(name),
      MaxSize: maxSize,
      Instances: [...members]
        .filter(([, g]) => g === name)
        .map(([i]) => ({ InstanceId: i, LifecycleState: 'InService' })),
      MixedInstancesPolicy: {
        LaunchTemplate: {
          LaunchTemplateSpecification: { LaunchTemplateId: 'lt-0abc', Version: '3' },
          Overrides: [],
        },
      },
    })),
  }));
  asg
    .on(SetDesiredCapacityCommand)
    .callsFake(async (input: { AutoScalingGroupName: string; DesiredCapacity: number }) => {
      if (input.DesiredCapacity > maxSize)
        throw awsError(
          'ValidationError',
          `New SetDesiredCapacity value ${input.DesiredCapacity} is above max value ${maxSize} for the AutoScalingGroup.`,
        );
      desired.set(input.AutoScalingGroupName, input.DesiredCapacity);
      return {};
    });
  asg
    .on(TerminateInstanceInAutoScalingGroupCommand)
    .callsFake(async (input: { InstanceId: string; ShouldDecrementDesiredCapacity: boolean }) => {
      const group = members.get(input.InstanceId);
      if (!group)
        throw awsError(
          'ValidationError',
          `Instance Id not found - No managed instance found for instance ID: ${input.InstanceId}`,
        );
      const before = desiredOf(group);
      members.delete(input.InstanceId);
      desired.set(group, input.ShouldDecrementDesiredCapacity ? before - 1 : before);
      return {
        Activity: {
          ActivityId: 'a-1',
          AutoScalingGroupName: group,
          Cause: 'terminated',
          StartTime: new Date(0),
          StatusCode: 'InProgress',
        },
      };
    });
  asg.on(DescribeWarmPoolCommand).resolves({});
  asg.on(UpdateAutoScalingGroupCommand).resolves({});

  return {
    ssm,
    asg,
    ddb,
    table,
    members,
    /** A group's desired capacity as the fake holds it. */
    desiredOf,
    setKill: (v: string) => {
      kill = v;
    },
    setPolicy: (p: unknown) => {
      policyText = JSON.stringify(p);
    },
    putItem: (item: Item) => table.set(key(item), structuredClone(item)),
    /** Every SDK call made so far, by command name. */
    calls(): Record<string, number> {
      const out: Record<string, number> = {};
      for (const m of [ssm, asg, ddb])
        for (const c of m.calls()) {
          const n = c.args[0].constructor.name.replace(/Command$/, '');
          out[n] = (out[n] ?? 0) + 1;
        }
      return out;
    },
    reset() {
      for (const m of [ssm, asg, ddb]) m.resetHistory();
    },
  };
}

export const total = (calls: Record<string, number>) => Object.values(calls).reduce((s, n) => s + n, 0);
