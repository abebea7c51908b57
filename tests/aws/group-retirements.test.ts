/**
 * The Auto Scaling calls of retirements (shared/aws/group-retirements.ts) and the spot-events
 * read-back they start from (shared/aws/spot-events.ts health), with aws-sdk-client-mock:
 * DescribeAutoScalingGroups to desired, MaxSize and each instance's LifecycleState (missing fields
 * refused, a group not found is null); TerminateInstanceInAutoScalingGroup with only InstanceId
 * and ShouldDecrementDesiredCapacity (both required by the API model), AWS's "Instance Id not
 * found" read as gone, any other refusal one line naming the action, the group and the grant.
 */
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  TerminateInstanceInAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { groupRetirements, RetirementCallError } from '#shared/aws/group-retirements.ts';
import { spotGroups } from '#shared/aws/spot-events.ts';
import { awsError, FAKE_CREDENTIALS } from './fakes.ts';

const REGION = 'us-east-1';
const GROUP = 'gpu-asg';
const mocked = new AutoScalingClient({ region: REGION, credentials: FAKE_CREDENTIALS });
const asg = mockClient(mocked);
const port = groupRetirements(() => mocked);
beforeEach(() => asg.reset());
const A = 'i-0b662ef9931388ba0';
const B = 'i-0c1d2e3f4a5b6c7d8';

const described = {
  AutoScalingGroupName: GROUP,
  DesiredCapacity: 12,
  MinSize: 2,
  MaxSize: 20,
  Instances: [
    { InstanceId: A, LifecycleState: 'InService' },
    { InstanceId: B, LifecycleState: 'Pending' },
  ],
};

describe('groupRetirements.read', () => {
  it('reads desired, MaxSize and each LifecycleState of the one group asked for', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [described as never] });
    expect(await port.read(REGION, GROUP)).toEqual({
      desired: 12,
      maxSize: 20,
      instances: new Map([
        [A, 'InService'],
        [B, 'Pending'],
      ]),
    });
    expect(asg.commandCalls(DescribeAutoScalingGroupsCommand)[0]!.args[0].input).toEqual({
      AutoScalingGroupNames: [GROUP],
    });
  });

  it('says null for a group that does not exist (its retirements are then gone)', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [] });
    expect(await port.read(REGION, GROUP)).toBeNull();
  });

  it.each([
    { case: 'no DesiredCapacity', group: { ...described, DesiredCapacity: undefined } },
    { case: 'no Instances', group: { ...described, Instances: undefined } },
    { case: 'an instance without LifecycleState', group: { ...described, Instances: [{ InstanceId: A }] } },
  ])('refuses a group with $case rather than read it as zero', async ({ group }) => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [group as never] });
    await expect(port.read(REGION, GROUP)).rejects.toThrow(RetirementCallError);
  });

  it('a denied read is one line naming the action and that Describe takes no resource', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).rejects(awsError('AccessDenied', 'not authorized'));
    await expect(port.read(REGION, GROUP)).rejects.toThrow(
      `autoscaling:DescribeAutoScalingGroups on group ${GROUP} in ${REGION} failed (AccessDenied: not authorized); check the role has autoscaling:DescribeAutoScalingGroups granted on * (Describe actions take no resource)`,
    );
  });
});

describe('groupRetirements.terminate', () => {
  it.each([true, false])('sends only InstanceId and ShouldDecrementDesiredCapacity %s', async (decrement) => {
    asg.on(TerminateInstanceInAutoScalingGroupCommand).resolves({});
    expect(await port.terminate(REGION, GROUP, A, decrement)).toBe('terminated');
    expect(asg.commandCalls(TerminateInstanceInAutoScalingGroupCommand)[0]!.args[0].input).toEqual({
      InstanceId: A,
      ShouldDecrementDesiredCapacity: decrement,
    });
  });

  it('an instance AWS finds in no group is gone, as wanted, not a failure', async () => {
    asg
      .on(TerminateInstanceInAutoScalingGroupCommand)
      .rejects(
        awsError(
          'ValidationError',
          `Instance Id not found - No managed instance found for instance ID: ${A}`,
        ),
      );
    expect(await port.terminate(REGION, GROUP, A, true)).toBe('gone');
  });

  it.each([
    { case: 'denied', error: awsError('AccessDenied', 'User is not authorized') },
    {
      case: 'another ValidationError',
      error: awsError('ValidationError', 'The instance is not in InService or Standby.'),
    },
    { case: 'a scaling activity in progress', error: awsError('ScalingActivityInProgressFault', 'busy') },
  ])('$case: one line naming the instance, the action, the group and the grant', async ({ error }) => {
    asg.on(TerminateInstanceInAutoScalingGroupCommand).rejects(error);
    await expect(port.terminate(REGION, GROUP, A, true)).rejects.toThrow(
      new RegExp(
        `^${A}: autoscaling:TerminateInstanceInAutoScalingGroup on group ${GROUP} in ${REGION} failed \\(${error.name}: .*\\); check the role has autoscaling:TerminateInstanceInAutoScalingGroup granted on autoScalingGroupName/${GROUP}$`,
      ),
    );
  });
});

describe('spotGroups.health', () => {
  it('reads desired, InService and MaxSize: the budget and the surge start from them', async () => {
    asg.on(DescribeAutoScalingGroupsCommand).resolves({ AutoScalingGroups: [described as never] });
    expect(await spotGroups(() => mocked).health(REGION, GROUP)).toEqual({
      desired: 12,
      inService: 1,
      maxSize: 20,
    });
  });
});
