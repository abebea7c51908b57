import {
  ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  DescribePoliciesCommand,
  type ScalingPolicy,
  SetDesiredCapacityCommand,
  SuspendProcessesCommand,
} from '@aws-sdk/client-auto-scaling';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { appAutoScalingAdapter, scalableRef } from '#shared/aws/app-autoscaling.ts';
import {
  alarmsSuspendedIn,
  autoScalingAdapter,
  groupCapacityFrom,
  groupPolicyFrom,
} from '#shared/aws/autoscaling.ts';
import { MalformedResponseError } from '#shared/aws/capacity.ts';
import type { TargetPolicy } from '#shared/policy/schema.ts';
import { componentTarget, groupTarget, policyOf, variantTarget } from '../control/policies.ts';
import { awsError } from './fakes.ts';

const asg = mockClient(AutoScalingClient);
const aas = mockClient(ApplicationAutoScalingClient);
const groups = autoScalingAdapter(() => new AutoScalingClient({ region: 'us-east-1' }));
const scalers = appAutoScalingAdapter(() => new ApplicationAutoScalingClient({ region: 'us-east-1' }));
beforeEach(() => {
  asg.reset();
  aas.reset();
});

const instance = (LifecycleState: string) => ({ InstanceId: 'i-1', LifecycleState }) as never;
const group = (name: string, over: Record<string, unknown> = {}) =>
  ({
    AutoScalingGroupName: name,
    DesiredCapacity: 3,
    Instances: [instance('InService'), instance('Pending')],
    SuspendedProcesses: [],
    ...over,
  }) as never;

describe('Auto Scaling adapter', () => {
  it('counts only InService instances as ready', () => {
    expect(groupCapacityFrom(group('g'))).toEqual({ desired: 3, ready: 1, status: 'InService' });
  });

  it.each([
    {
      case: 'a missing DesiredCapacity',
      g: group('g', { DesiredCapacity: undefined }),
      message: 'DescribeAutoScalingGroups g.DesiredCapacity is missing',
    },
    {
      case: 'a missing instance list',
      g: group('g', { Instances: undefined }),
      message: 'DescribeAutoScalingGroups g.Instances is missing',
    },
  ])('rejects $case', ({ g, message }) => {
    expect(() => groupCapacityFrom(g)).toThrow(message);
  });

  it('asks for 60 groups in two calls of at most 50 names, following NextToken', async () => {
    const names = Array.from({ length: 60 }, (_, i) => `g${i}`);
    asg
      .on(DescribeAutoScalingGroupsCommand)
      .resolvesOnce({ AutoScalingGroups: [group('g0')], NextToken: 'n' })
      .resolvesOnce({ AutoScalingGroups: [group('g1')] })
      .resolvesOnce({ AutoScalingGroups: [group('g59')] });
    const found = await groups.describeGroups('us-east-1', names);
    expect([...found.keys()]).toEqual(['g0', 'g1', 'g59']);
    expect(found.get('g0')).toEqual({
      capacity: { desired: 3, ready: 1, status: 'InService' },
      alarmsSuspended: false,
    });
    expect(
      asg
        .commandCalls(DescribeAutoScalingGroupsCommand)
        .map((c) => [c.args[0].input.AutoScalingGroupNames?.length, c.args[0].input.NextToken]),
    ).toEqual([
      [50, undefined],
      [50, 'n'],
      [10, undefined],
    ]);
  });

  it.each([
    { case: 'no suspended process', processes: [], suspended: false },
    {
      case: 'another process suspended',
      processes: [{ ProcessName: 'AZRebalance', SuspensionReason: '' }],
      suspended: false,
    },
    {
      case: 'AlarmNotification suspended',
      processes: [
        { ProcessName: 'Launch', SuspensionReason: '' },
        { ProcessName: 'AlarmNotification', SuspensionReason: 'User suspended' },
      ],
      suspended: true,
    },
  ])(
    "reads the group's alarm-driven policies as stopped only with AlarmNotification suspended: $case",
    ({ processes, suspended }) => {
      expect(alarmsSuspendedIn(group('g', { SuspendedProcesses: processes }))).toBe(suspended);
    },
  );

  it('rejects a group without its suspended processes instead of reading none', () => {
    expect(() => alarmsSuspendedIn(group('g', { SuspendedProcesses: undefined }))).toThrow(
      new MalformedResponseError('DescribeAutoScalingGroups g.SuspendedProcesses is missing'),
    );
  });

  it('sets capacity without honouring the group cooldown (Governor keeps its own)', async () => {
    asg.on(SetDesiredCapacityCommand).resolves({});
    expect(await groups.setDesiredCapacity('us-east-1', 'g', 4)).toEqual({ status: 'applied' });
    expect(asg.commandCalls(SetDesiredCapacityCommand)[0]!.args[0].input).toEqual({
      AutoScalingGroupName: 'g',
      DesiredCapacity: 4,
      HonorCooldown: false,
    });
  });

  it('a scaling activity in progress is busy, not a failure', async () => {
    asg.on(SetDesiredCapacityCommand).rejects(awsError('ScalingActivityInProgressFault'));
    expect(await groups.setDesiredCapacity('us-east-1', 'g', 4)).toMatchObject({ status: 'busy' });
  });
});

const policy = (over: Partial<ScalingPolicy> = {}): ScalingPolicy => ({
  AutoScalingGroupName: 'g',
  PolicyName: 'cpu-tt',
  PolicyType: 'TargetTrackingScaling',
  Enabled: true,
  ...over,
});
const predictiveConfig = (Mode?: 'ForecastAndScale' | 'ForecastOnly') => ({
  MetricSpecifications: [],
  ...(Mode ? { Mode } : {}),
});

describe('the scaling policies of a group', () => {
  it.each([
    { case: 'target tracking', p: policy(), expected: { drivenBy: 'alarms', canScale: true } },
    {
      case: 'step scaling',
      p: policy({ PolicyType: 'StepScaling' }),
      expected: { drivenBy: 'alarms', canScale: true },
    },
    {
      case: 'simple scaling',
      p: policy({ PolicyType: 'SimpleScaling' }),
      expected: { drivenBy: 'alarms', canScale: true },
    },
    {
      case: 'a disabled policy (Enabled false)',
      p: policy({ Enabled: false }),
      expected: { drivenBy: 'alarms', canScale: false },
    },
    {
      case: 'a policy without Enabled (moto omits it), read as enabled',
      p: policy({ Enabled: undefined }),
      expected: { drivenBy: 'alarms', canScale: true },
    },
    {
      case: 'predictive scaling that scales',
      p: policy({
        PolicyType: 'PredictiveScaling',
        PredictiveScalingConfiguration: predictiveConfig('ForecastAndScale'),
      }),
      expected: { drivenBy: 'forecast', canScale: true },
    },
    {
      case: 'predictive scaling that only forecasts',
      p: policy({
        PolicyType: 'PredictiveScaling',
        PredictiveScalingConfiguration: predictiveConfig('ForecastOnly'),
      }),
      expected: { drivenBy: 'forecast', canScale: false },
    },
    {
      case: 'predictive scaling without a mode (the API default is ForecastOnly)',
      p: policy({ PolicyType: 'PredictiveScaling', PredictiveScalingConfiguration: predictiveConfig() }),
      expected: { drivenBy: 'forecast', canScale: false },
    },
    {
      case: 'disabled predictive scaling',
      p: policy({
        PolicyType: 'PredictiveScaling',
        Enabled: false,
        PredictiveScalingConfiguration: predictiveConfig('ForecastAndScale'),
      }),
      expected: { drivenBy: 'forecast', canScale: false },
    },
  ])('reads $case', ({ p, expected }) => {
    expect(groupPolicyFrom(p, 'g')).toEqual({ name: p.PolicyName, ...expected });
  });

  it.each([
    {
      case: 'a missing name',
      p: policy({ PolicyName: undefined }),
      message: "DescribePolicies g: a policy's PolicyName is missing",
    },
    {
      case: 'a missing type',
      p: policy({ PolicyType: undefined }),
      message: 'DescribePolicies g cpu-tt.PolicyType is missing',
    },
    {
      case: 'a type Governor does not know',
      p: policy({ PolicyType: 'MagicScaling' }),
      message: 'DescribePolicies g cpu-tt.PolicyType is "MagicScaling"',
    },
    {
      case: 'a predictive policy without its configuration',
      p: policy({ PolicyType: 'PredictiveScaling' }),
      message: 'DescribePolicies g cpu-tt.PredictiveScalingConfiguration is missing',
    },
    {
      case: 'an Enabled that is not a boolean',
      p: policy({ Enabled: 'false' as never }),
      message: 'DescribePolicies g cpu-tt.Enabled is "false"',
    },
  ])('rejects $case', ({ p, message }) => {
    expect(() => groupPolicyFrom(p, 'g')).toThrow(new MalformedResponseError(message));
  });

  it('asks for one group at a time, 100 a page, following NextToken', async () => {
    asg
      .on(DescribePoliciesCommand)
      .resolvesOnce({ ScalingPolicies: [policy({ PolicyName: 'a' })], NextToken: 'n' })
      .resolvesOnce({ ScalingPolicies: [policy({ PolicyName: 'b', Enabled: false })] });
    expect(await groups.scalingPolicies('us-east-1', 'g')).toEqual([
      { name: 'a', drivenBy: 'alarms', canScale: true },
      { name: 'b', drivenBy: 'alarms', canScale: false },
    ]);
    expect(asg.commandCalls(DescribePoliciesCommand).map((c) => c.args[0].input)).toEqual([
      { AutoScalingGroupName: 'g', MaxRecords: 100, NextToken: undefined },
      { AutoScalingGroupName: 'g', MaxRecords: 100, NextToken: 'n' },
    ]);
  });

  it('rejects a page without its policy list instead of reading no policies', async () => {
    asg.on(DescribePoliciesCommand).resolves({});
    await expect(groups.scalingPolicies('us-east-1', 'g')).rejects.toThrow(
      new MalformedResponseError('DescribePolicies g.ScalingPolicies is missing'),
    );
  });

  it('suspends only AlarmNotification, leaving policies, alarms and every other process alone', async () => {
    asg.on(SuspendProcessesCommand).resolves({});
    await groups.suspendAlarmNotification('us-east-1', 'g');
    expect(asg.commandCalls(SuspendProcessesCommand).map((c) => c.args[0].input)).toEqual([
      { AutoScalingGroupName: 'g', ScalingProcesses: ['AlarmNotification'] },
    ]);
  });
});

describe('Application Auto Scaling adapter', () => {
  const [variant, component, grp] = policyOf(variantTarget(), componentTarget(), groupTarget())
    .targets as TargetPolicy[];

  it.each([
    {
      case: 'a variant',
      t: variant!,
      ref: {
        resourceId: 'endpoint/chat-llm-prod/variant/AllTraffic',
        dimension: 'sagemaker:variant:DesiredInstanceCount',
      },
    },
    {
      case: 'an inference component',
      t: component!,
      ref: {
        resourceId: 'inference-component/embedder-ic',
        dimension: 'sagemaker:inference-component:DesiredCopyCount',
      },
    },
    { case: 'a group (not an Application Auto Scaling resource)', t: grp!, ref: null },
  ])('the resource id of $case', ({ t, ref }) => {
    expect(scalableRef(t)).toEqual(ref);
  });

  it('finds registered targets that still scale, skipping suspended ones, in one call', async () => {
    const v = scalableRef(variant!)!;
    const c = scalableRef(component!)!;
    aas.on(DescribeScalableTargetsCommand).resolves({
      ScalableTargets: [
        {
          ServiceNamespace: 'sagemaker',
          ResourceId: v.resourceId,
          ScalableDimension: v.dimension,
          MinCapacity: 1,
          MaxCapacity: 4,
          RoleARN: 'r',
          CreationTime: new Date(),
        },
        {
          ServiceNamespace: 'sagemaker',
          ResourceId: c.resourceId,
          ScalableDimension: c.dimension,
          MinCapacity: 0,
          MaxCapacity: 4,
          RoleARN: 'r',
          CreationTime: new Date(),
          SuspendedState: { DynamicScalingInSuspended: true, DynamicScalingOutSuspended: true },
        },
      ],
    });
    expect([...(await scalers.activeScalableTargets('us-east-1', [v, c]))]).toEqual([v.resourceId]);
    expect(aas.commandCalls(DescribeScalableTargetsCommand)[0]!.args[0].input).toEqual({
      ServiceNamespace: 'sagemaker',
      ResourceIds: [v.resourceId, c.resourceId],
      NextToken: undefined,
    });
  });

  it('lists policy names across pages', async () => {
    aas
      .on(DescribeScalingPoliciesCommand)
      .resolvesOnce({ ScalingPolicies: [{ PolicyName: 'a' } as never], NextToken: 'n' })
      .resolvesOnce({ ScalingPolicies: [{ PolicyName: 'b' } as never] });
    expect(await scalers.policyNames('us-east-1', scalableRef(variant!)!)).toEqual(['a', 'b']);
  });
});
