/**
 * Retirements in flight finished by the mix function (functions/mix/retirements.ts), as timelines
 * of 5-minute runs: the runner over the in-memory world of ./mix-world.ts, its retirement adapter
 * the real one (shared/aws/group-retirements.ts) over an aws-sdk-client-mock Auto Scaling whose
 * group the calls really change. Seeded as the spot-events function leaves a Health retirement of
 * 2 instances: the group raised from 10 to 12, the 2 recorded retiring in the target's item.
 */
import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  TerminateInstanceInAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { groupRetirements } from '#shared/aws/group-retirements.ts';
import { RETIREMENT_OVERDUE_MS } from '#shared/interruptions/retirements.ts';
import { initialSpotState } from '#shared/interruptions/state.ts';
import { initialMixState } from '#shared/mix/plan.ts';
import { awsError } from '../aws/fakes.ts';
import { at, world } from './mix-world.ts';

const GROUP = 'chat-asg';
const id = (n: number) => `i-${n.toString(16).padStart(17, '0')}`;
const asg = mockClient(AutoScalingClient);
/** The group as Auto Scaling holds it: desired, and each instance's LifecycleState. */
let group: { desired: number; instances: Map<string, string> };
/** DescribeAutoScalingGroups as Auto Scaling answers it for `group` now. */
const describeGroup = async () => ({
  AutoScalingGroups: [
    {
      AutoScalingGroupName: GROUP,
      DesiredCapacity: group.desired,
      MinSize: 2,
      MaxSize: 40,
      Instances: [...group.instances].map(([InstanceId, LifecycleState]) => ({ InstanceId, LifecycleState })),
    },
  ],
});
/** How many of the next TerminateInstanceInAutoScalingGroup calls are denied. */
let denied = 0;

beforeEach(() => {
  asg.reset();
  denied = 0;
  // 10 serving, 2 of them retiring (1 and 2), 2 replacements launching (11 and 12).
  group = {
    desired: 12,
    instances: new Map([
      ...Array.from({ length: 10 }, (_, n) => [id(n + 1), 'InService'] as [string, string]),
      [id(11), 'Pending'],
      [id(12), 'Pending'],
    ]),
  };
  asg.on(DescribeAutoScalingGroupsCommand).callsFake(describeGroup);
  asg
    .on(TerminateInstanceInAutoScalingGroupCommand)
    .callsFake(async (input: { InstanceId: string; ShouldDecrementDesiredCapacity: boolean }) => {
      if (denied > 0 && denied--) throw awsError('AccessDenied', 'not authorized');
      const state = group.instances.get(input.InstanceId);
      if (state === undefined || state.startsWith('Terminat'))
        throw awsError(
          'ValidationError',
          `Instance Id not found - No managed instance found for instance ID: ${input.InstanceId}`,
        );
      group.instances.set(input.InstanceId, 'Terminating');
      if (input.ShouldDecrementDesiredCapacity) group.desired--;
      return {};
    });
});

/** The world with the 2 retiring since `since` minutes (of the world's clock) in chat-asg's item. */
function seeded(options: { mode?: 'shadow' | 'active'; since?: number } = {}) {
  const w = world({
    ...(options.mode ? { mode: options.mode } : {}),
    retirements: groupRetirements(() => new AutoScalingClient({ region: 'us-east-1' })),
  });
  const since = at(options.since ?? -10);
  w.w.plans.set(GROUP, {
    state: initialMixState(),
    spot: {
      ...initialSpotState(),
      retiring: { [id(1)]: { at: since, group: GROUP }, [id(2)]: { at: since, group: GROUP } },
    },
    version: 1,
  });
  return w;
}
const retiringNow = (w: ReturnType<typeof world>['w']) =>
  Object.keys(w.plans.get(GROUP)?.spot?.retiring ?? {});
const terminations = () =>
  asg.commandCalls(TerminateInstanceInAutoScalingGroupCommand).map((c) => c.args[0].input);

describe('retirements in flight, finished by the mix function', () => {
  it('waits while the replacements launch, then terminates both decrementing and clears them; a run after calls nothing', async () => {
    const { w, runAt, last } = seeded();
    await runAt(0);
    expect(terminations()).toEqual([]);
    expect(last(GROUP).retirements).toMatchObject({
      reasons: ['RetirementWaiting'],
      waiting: [id(1), id(2)],
      stored: 'unchanged',
    });
    expect(retiringNow(w)).toEqual([id(1), id(2)]);
    expect(w.counted).toEqual([['RetirementsOverdue', 0]]);

    group.instances.set(id(11), 'InService');
    group.instances.set(id(12), 'InService');
    await runAt(5);
    expect(terminations()).toEqual([
      { InstanceId: id(1), ShouldDecrementDesiredCapacity: true },
      { InstanceId: id(2), ShouldDecrementDesiredCapacity: true },
    ]);
    expect(group.desired).toBe(10);
    expect(last(GROUP).retirements).toMatchObject({
      reasons: ['RetirementTerminated'],
      terminated: [id(1), id(2)],
      stored: 'written',
    });
    expect(last(GROUP).retirements!.message).toMatch(
      /^Terminating 2 retiring instances, decrementing desired capacity/,
    );
    expect(retiringNow(w)).toEqual([]);
    // The mix state the run stored is kept beside the cleared spot part.
    expect(w.plans.get(GROUP)!.state.plan).not.toBeNull();

    asg.resetHistory();
    await runAt(10);
    expect(asg.calls()).toHaveLength(0);
    expect(last(GROUP).retirements).toBeUndefined();
  });

  it('a retirement waiting for an hour is counted overdue every run (the alarm) and still kept', async () => {
    const { w, runAt, last } = seeded({ since: -RETIREMENT_OVERDUE_MS / 60_000 });
    await runAt(0);
    expect(w.counted).toEqual([['RetirementsOverdue', 2]]);
    expect(last(GROUP).retirements!.reasons).toEqual(['RetirementWaiting', 'RetirementOverdue']);
    expect(last(GROUP).retirements!.message).toMatch(/2 of them for over 60 minutes .*scaling activities/);
    expect(retiringNow(w)).toEqual([id(1), id(2)]);
  });

  it('an instance already gone is cleared with no call; one AWS no longer finds when terminated is cleared too', async () => {
    group.instances.delete(id(1));
    group.desired = 11;
    group.instances.set(id(11), 'InService');
    group.instances.set(id(12), 'InService');
    // 2 is found by the read, but gone by the time it is terminated (AWS retired it meanwhile).
    asg
      .on(TerminateInstanceInAutoScalingGroupCommand, { InstanceId: id(2) })
      .rejects(
        awsError(
          'ValidationError',
          `Instance Id not found - No managed instance found for instance ID: ${id(2)}`,
        ),
      );
    const { w, runAt, last } = seeded();
    await runAt(0);
    expect(terminations().map((t) => t.InstanceId)).toEqual([id(2)]);
    expect(last(GROUP).retirements).toMatchObject({
      terminated: [],
      cleared: [id(1), id(2)],
      failed: [],
      stored: 'written',
    });
    expect(retiringNow(w)).toEqual([]);
  });

  it('a termination AWS refuses keeps the entry, says which grant to check, and is made again next run', async () => {
    group.instances.set(id(11), 'InService');
    group.instances.set(id(12), 'InService');
    // Refused once (a role without the grant, fixed by the next run), then as the group does.
    denied = 1;
    const { w, runAt, last } = seeded();
    await runAt(0);
    expect(last(GROUP).retirements!.failed).toEqual([
      `${id(1)}: autoscaling:TerminateInstanceInAutoScalingGroup on group ${GROUP} in us-east-1 failed (AccessDenied: not authorized); check the role has autoscaling:TerminateInstanceInAutoScalingGroup granted on autoScalingGroupName/${GROUP}`,
    ]);
    expect(retiringNow(w)).toEqual([id(1)]);
    await runAt(5);
    expect(terminations().map((t) => t.InstanceId)).toEqual([id(1), id(2), id(1)]);
    expect(retiringNow(w)).toEqual([]);
    expect(group.desired).toBe(10);
  });

  it('a clear that is not stored loses nothing: the next run finds them terminating and clears them, calling nothing that writes', async () => {
    group.instances.set(id(11), 'InService');
    group.instances.set(id(12), 'InService');
    const { w, ports, runAt, last } = seeded();
    // The item is written twice in the run: the mix claim, then the clear; the clear is throttled.
    const put = ports.items.put;
    let puts = 0;
    ports.items.put = async (...args) => {
      if (args[0] === GROUP && ++puts === 2)
        throw awsError('ProvisionedThroughputExceededException', 'slow down');
      return put(...args);
    };
    await runAt(0);
    expect(terminations()).toHaveLength(2);
    expect(last(GROUP).retirements!.stored).toMatch(
      /^not written \(ProvisionedThroughputExceededException: slow down\)/,
    );
    expect(retiringNow(w)).toEqual([id(1), id(2)]);
    ports.items.put = put;
    await runAt(5);
    expect(terminations()).toHaveLength(2);
    expect(last(GROUP).retirements).toMatchObject({
      reasons: ['RetirementGone'],
      cleared: [id(1), id(2)],
      stored: 'written',
    });
    expect(group.desired).toBe(10);
  });

  it('a group read that is throttled, then a termination that times out: each run keeps the entries, the next one finishes', async () => {
    group.instances.set(id(11), 'InService');
    group.instances.set(id(12), 'InService');
    const { w, runAt } = seeded();
    asg
      .on(DescribeAutoScalingGroupsCommand)
      .rejectsOnce(awsError('Throttling', 'Rate exceeded'))
      .rejectsOnce(awsError('Throttling', 'Rate exceeded'))
      .rejectsOnce(awsError('Throttling', 'Rate exceeded'))
      .rejectsOnce(awsError('Throttling', 'Rate exceeded'));
    await runAt(0);
    expect(terminations()).toEqual([]);
    expect(retiringNow(w)).toEqual([id(1), id(2)]);
    expect(group.desired).toBe(12);

    // The read answers again; the first termination is lost in a timeout after AWS acted on it.
    asg.on(DescribeAutoScalingGroupsCommand).callsFake(describeGroup);
    let lost = 1;
    asg.on(TerminateInstanceInAutoScalingGroupCommand).callsFake(async (input: { InstanceId: string }) => {
      group.instances.set(input.InstanceId, 'Terminating');
      group.desired--;
      if (lost-- > 0) throw awsError('TimeoutError', 'socket hang up');
      return {};
    });
    await runAt(5);
    // The one whose answer was lost stays recorded; the other is cleared.
    expect(retiringNow(w)).toEqual([id(1)]);
    await runAt(10);
    // Read back, it is terminating: cleared with no second termination, desired not decremented twice.
    expect(retiringNow(w)).toEqual([]);
    expect(terminations().filter((t) => t.InstanceId === id(1))).toHaveLength(1);
    expect(group.desired).toBe(10);
  });

  it.each([
    { case: 'shadow mode', mode: 'shadow' as const, kill: 'off', why: /shadow mode/ },
    { case: 'the kill switch', mode: 'active' as const, kill: 'on', why: /the kill switch is on/ },
  ])('under $case: read and decided, nothing terminated or cleared', async ({ mode, kill, why }) => {
    group.instances.set(id(11), 'InService');
    group.instances.set(id(12), 'InService');
    const { w, runAt, last } = seeded({ mode });
    w.parameters.set('/governor/kill-switch', kill);
    await runAt(0);
    expect(terminations()).toEqual([]);
    expect(last(GROUP).retirements!.message).toMatch(why);
    expect(retiringNow(w)).toEqual([id(1), id(2)]);
  });
});
