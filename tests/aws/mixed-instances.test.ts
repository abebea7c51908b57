import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  DescribeWarmPoolCommand,
  type MixedInstancesPolicy,
  UpdateAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { MalformedResponseError } from '#shared/aws/capacity.ts';
import {
  type GroupMixSettings,
  groupMixSettingsFrom,
  MixedInstancesCallError,
  mixedInstancesAdapter,
  mixedInstancesPolicyFor,
  refusalFor,
} from '#shared/aws/mixed-instances.ts';
import type { MixPlan } from '#shared/mix/types.ts';
import { awsError } from './fakes.ts';

const asg = mockClient(AutoScalingClient);
const port = mixedInstancesAdapter(() => new AutoScalingClient({ region: 'us-east-1' }));
beforeEach(() => asg.reset());

/** 12 instances: 6 on-demand (2 committed g5), 2 spot in each of three pools (tests/mix/reasons.test.ts). */
const plan: MixPlan = {
  capacity: 12,
  onDemand: 6,
  committed: 2,
  spot: 6,
  spotByPool: { 'g5.2xlarge': 2, 'g6.2xlarge': 2, 'g6e.xlarge': 2 },
  largestSpotPool: 2,
  mixedInstancesPolicy: {
    onDemandBaseCapacity: 2,
    onDemandPercentageAboveBaseCapacity: 40,
    onDemandAllocationStrategy: 'prioritized',
    spotAllocationStrategy: 'price-capacity-optimized',
    overrides: [
      { instanceType: 'g5.2xlarge' },
      { instanceType: 'g6.2xlarge' },
      { instanceType: 'g6e.xlarge' },
    ],
  },
  usdPerHour: 9.52,
  sizedFor: 10,
  shapedBy: [],
};

const template = { LaunchTemplateId: 'lt-0abc', LaunchTemplateName: 'gpu-lt', Version: '7' };

/** The policy `plan` asks for on a group whose launch template is lt-0abc version 7. */
const planned: MixedInstancesPolicy = {
  LaunchTemplate: {
    LaunchTemplateSpecification: { LaunchTemplateId: 'lt-0abc', Version: '7' },
    Overrides: [
      { InstanceType: 'g5.2xlarge' },
      { InstanceType: 'g6.2xlarge' },
      { InstanceType: 'g6e.xlarge' },
    ],
  },
  InstancesDistribution: {
    OnDemandAllocationStrategy: 'prioritized',
    OnDemandBaseCapacity: 2,
    OnDemandPercentageAboveBaseCapacity: 40,
    SpotAllocationStrategy: 'price-capacity-optimized',
  },
};

const settings = (over: Partial<GroupMixSettings> = {}): GroupMixSettings => ({
  groupName: 'gpu',
  launchTemplate: template,
  launchConfigurationName: null,
  policy: null,
  hasWarmPool: false,
  ...over,
});

/** A group as DescribeAutoScalingGroups returns it, with settings the write must not send. */
const group = (over: Record<string, unknown> = {}) => ({
  AutoScalingGroupName: 'gpu',
  MinSize: 2,
  MaxSize: 40,
  DesiredCapacity: 9,
  HealthCheckType: 'ELB',
  LaunchTemplate: template,
  ...over,
});

const describing = (g: Record<string, unknown>, warmPool = false) => {
  asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [g as never] });
  asg
    .on(DescribeWarmPoolCommand)
    .resolves(warmPool ? { WarmPoolConfiguration: { MinSize: 1, PoolState: 'Stopped' } } : {});
};

describe('mixedInstancesPolicyFor', () => {
  it.each([
    {
      case: 'a plain launch-template group gets the whole planned policy with its own template',
      current: settings(),
      want: planned,
    },
    {
      case: 'a template given by name and no version is sent by name, still without a version',
      current: settings({ launchTemplate: { LaunchTemplateName: 'gpu-lt' } }),
      want: {
        ...planned,
        LaunchTemplate: {
          ...planned.LaunchTemplate,
          LaunchTemplateSpecification: { LaunchTemplateName: 'gpu-lt' },
        },
      },
    },
    {
      case: 'a planned type keeps its own template and AMI, an unplanned type is dropped, SpotMaxPrice is kept',
      current: settings({
        policy: {
          LaunchTemplate: {
            LaunchTemplateSpecification: template,
            Overrides: [
              { InstanceType: 'p4d.24xlarge' },
              {
                InstanceType: 'g6.2xlarge',
                LaunchTemplateSpecification: {
                  LaunchTemplateId: 'lt-g6',
                  LaunchTemplateName: 'g6-lt',
                  Version: '3',
                },
                ImageId: 'ami-g6',
              },
            ],
          },
          InstancesDistribution: {
            SpotMaxPrice: '0.90',
            SpotAllocationStrategy: 'lowest-price',
            SpotInstancePools: 2,
          },
        },
      }),
      want: {
        LaunchTemplate: {
          ...planned.LaunchTemplate,
          Overrides: [
            { InstanceType: 'g5.2xlarge' },
            {
              InstanceType: 'g6.2xlarge',
              LaunchTemplateSpecification: { LaunchTemplateId: 'lt-g6', Version: '3' },
              ImageId: 'ami-g6',
            },
            { InstanceType: 'g6e.xlarge' },
          ],
        },
        InstancesDistribution: { ...planned.InstancesDistribution, SpotMaxPrice: '0.90' },
      },
    },
  ])('$case', ({ current, want }) => {
    expect(mixedInstancesPolicyFor(current, plan)).toEqual(want);
  });

  it('reads the launch template from the policy of a group that is mixed already', () => {
    const g = group({ LaunchTemplate: undefined, MixedInstancesPolicy: planned });
    expect(groupMixSettingsFrom(g as never, false).launchTemplate).toEqual(
      planned.LaunchTemplate?.LaunchTemplateSpecification,
    );
  });

  it('rejects a launch template with neither id nor name instead of guessing', () => {
    expect(() => groupMixSettingsFrom(group({ LaunchTemplate: { Version: '1' } }) as never, false)).toThrow(
      MalformedResponseError,
    );
  });
});

describe('refusalFor', () => {
  const overrides = (o: object) =>
    settings({
      policy: { LaunchTemplate: { LaunchTemplateSpecification: template, Overrides: [o as never] } },
    });
  it.each([
    {
      case: 'a launch configuration names the field and the move to a launch template',
      current: settings({ launchTemplate: null, launchConfigurationName: 'gpu-lc' }),
      says: /LaunchConfigurationName gpu-lc: .*move the group to a launch template/,
    },
    {
      case: 'a warm pool names DeleteWarmPool',
      current: settings({ hasWarmPool: true }),
      says: /has a warm pool: .*DeleteWarmPool/,
    },
    {
      case: 'a weighted override names WeightedCapacity',
      current: overrides({ InstanceType: 'g6e.xlarge', WeightedCapacity: '2' }),
      says: /override g6e.xlarge has WeightedCapacity 2/,
    },
    {
      case: 'attribute-based selection names InstanceRequirements',
      current: overrides({ InstanceRequirements: { VCpuCount: { Min: 8 } } }),
      says: /InstanceRequirements is set/,
    },
    {
      case: 'capacity-reservation segments name DistributionSegments',
      current: settings({
        policy: { InstancesDistribution: { DistributionSegments: [{ TargetCapacityTypes: ['on-demand'] }] } },
      }),
      says: /DistributionSegments is set/,
    },
  ])('$case', ({ current, says }) => {
    const message = refusalFor(current, plan);
    expect(message).toMatch(says);
    expect(message).not.toContain('\n');
  });

  it('refuses a plan spread over a zone the group does not run in, naming it; fewer zones are fine', () => {
    const zoned = { ...plan, pools: ['g5.2xlarge@us-east-1a', 'g5.2xlarge@us-east-1d'] };
    const current = settings({ availabilityZones: ['us-east-1a', 'us-east-1b'] });
    expect(refusalFor(current, zoned)).toBe(
      "group gpu does not run in us-east-1d (its AvailabilityZones: us-east-1a, us-east-1b), but capacityMix.zones lists it: the plan's loss cover counts on spot there; list only the group's own zones",
    );
    expect(refusalFor(current, { ...plan, pools: ['g5.2xlarge@us-east-1b'] })).toBeNull();
  });

  it('accepts a weight of 1, which is no weight', () => {
    expect(refusalFor(overrides({ InstanceType: 'g5.2xlarge', WeightedCapacity: '1' }), plan)).toBeNull();
  });
});

describe('MixedInstancesPort.apply', () => {
  it('sends only the group name and the whole planned policy, never sizes or other settings', async () => {
    describing(group());
    asg.on(UpdateAutoScalingGroupCommand).resolves({});
    expect(await port.apply('us-east-1', 'gpu', plan)).toEqual({ status: 'applied', policy: planned });
    const sent = asg.commandCalls(UpdateAutoScalingGroupCommand);
    expect(sent.map((c) => c.args[0].input)).toEqual([
      { AutoScalingGroupName: 'gpu', MixedInstancesPolicy: planned },
    ]);
  });

  it('sends nothing when the group already has the planned policy, as AWS describes it', async () => {
    const described = {
      ...planned,
      LaunchTemplate: { ...planned.LaunchTemplate, LaunchTemplateSpecification: template },
      InstancesDistribution: { ...planned.InstancesDistribution, SpotInstancePools: 2 },
    };
    describing(group({ LaunchTemplate: undefined, MixedInstancesPolicy: described }));
    expect(await port.apply('us-east-1', 'gpu', plan)).toEqual({ status: 'unchanged' });
    expect(asg.commandCalls(UpdateAutoScalingGroupCommand)).toHaveLength(0);
  });

  it('writes when only the on-demand base differs', async () => {
    const base3 = {
      ...planned,
      InstancesDistribution: { ...planned.InstancesDistribution, OnDemandBaseCapacity: 3 },
    };
    describing(group({ MixedInstancesPolicy: base3 }));
    asg.on(UpdateAutoScalingGroupCommand).resolves({});
    expect((await port.apply('us-east-1', 'gpu', plan)).status).toBe('applied');
  });

  it.each([
    {
      case: 'a launch-configuration group is refused without a write',
      g: group({ LaunchTemplate: undefined, LaunchConfigurationName: 'gpu-lc' }),
      warm: false,
    },
    { case: 'a group with a warm pool is refused without a write', g: group(), warm: true },
  ])('$case', async ({ g, warm }) => {
    describing(g, warm);
    expect((await port.apply('us-east-1', 'gpu', plan)).status).toBe('refused');
    expect(asg.commandCalls(UpdateAutoScalingGroupCommand)).toHaveLength(0);
  });

  it('reports a group mid-update as busy, to retry next tick', async () => {
    describing(group());
    asg.on(UpdateAutoScalingGroupCommand).rejects(awsError('ScalingActivityInProgressFault', 'in progress'));
    expect(await port.apply('us-east-1', 'gpu', plan)).toEqual({ status: 'busy', message: 'in progress' });
  });

  it.each([
    {
      case: 'a denied write names autoscaling:UpdateAutoScalingGroup on the group and ec2:RunInstances',
      fail: () => {
        describing(group());
        asg
          .on(UpdateAutoScalingGroupCommand)
          .rejects(awsError('AccessDenied', 'User is not authorized\nto perform'));
      },
      says: /^autoscaling:UpdateAutoScalingGroup on group gpu in us-east-1 failed \(AccessDenied: User is not authorized\); .*autoScalingGroupName\/gpu.*ec2:RunInstances/,
    },
    {
      case: 'a denied read names autoscaling:DescribeAutoScalingGroups',
      fail: () => asg.on(DescribeAutoScalingGroupsCommand).rejects(awsError('AccessDenied')),
      says: /^autoscaling:DescribeAutoScalingGroups on group gpu in us-east-1 failed \(AccessDenied: AccessDenied\); .*granted on \*/,
    },
    {
      case: 'a denied warm pool read names autoscaling:DescribeWarmPool',
      fail: () => {
        asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [group() as never] });
        asg.on(DescribeWarmPoolCommand).rejects(awsError('AccessDenied'));
      },
      says: /^autoscaling:DescribeWarmPool on group gpu/,
    },
    {
      case: 'a missing group names the group and the region',
      fail: () => asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] }),
      says: /^group gpu not found in us-east-1: check autoScalingGroupName and region$/,
    },
  ])('$case', async ({ fail, says }) => {
    fail();
    const error = await port.apply('us-east-1', 'gpu', plan).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MixedInstancesCallError);
    expect((error as Error).message).toMatch(says);
    expect((error as Error).message).not.toContain('\n');
  });
});
