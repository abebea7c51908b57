/**
 * EC2 Auto Scaling group reads: live capacity of groups, one batched DescribeAutoScalingGroups
 * per region for all of them (up to 50 names a call). Whether the group's AlarmNotification
 * process is suspended comes with the same call, at no extra cost.
 *
 * Its own module, like ./warm-pools.ts, because the call/grant check scans whole files
 * (tests/template/grants.test.ts): the failover health evaluation imports only this (it reads
 * capacity), the failover act function adds ./group-capacity-writes.ts (SetDesiredCapacity), and
 * only the evaluate function imports ./autoscaling.ts, with DescribePolicies and SuspendProcesses.
 */
import {
  type AutoScalingClient,
  type AutoScalingGroup,
  DescribeAutoScalingGroupsCommand,
} from '@aws-sdk/client-auto-scaling';
import { type Capacity, countField, MalformedResponseError } from './capacity.ts';

/** DescribeAutoScalingGroups filters by at most 50 names per call. */
const NAMES_PER_CALL = 50;
/** The process that runs target tracking, step and simple scaling policies. */
export const ALARM_NOTIFICATION = 'AlarmNotification';

/**
 * One group to Capacity: desired is DesiredCapacity, ready counts instances InService (a
 * Pending or warming instance serves nothing yet). A group with a scaling activity still
 * launching or terminating is 'InService' too: SetDesiredCapacity may change it at any time.
 */
export function groupCapacityFrom(group: AutoScalingGroup): Capacity {
  const name = group.AutoScalingGroupName ?? '(unnamed group)';
  const desired = countField(group.DesiredCapacity, `DescribeAutoScalingGroups ${name}.DesiredCapacity`);
  if (!Array.isArray(group.Instances)) {
    throw new MalformedResponseError(`DescribeAutoScalingGroups ${name}.Instances is missing`);
  }
  const ready = group.Instances.filter((i) => i.LifecycleState === 'InService').length;
  return { desired, ready, status: group.Status === 'Delete in progress' ? 'Deleting' : 'InService' };
}

/** Whether the group's alarm-driven policies can act: false while AlarmNotification is suspended. */
export function alarmsSuspendedIn(group: AutoScalingGroup): boolean {
  const name = group.AutoScalingGroupName ?? '(unnamed group)';
  if (!Array.isArray(group.SuspendedProcesses)) {
    throw new MalformedResponseError(`DescribeAutoScalingGroups ${name}.SuspendedProcesses is missing`);
  }
  return group.SuspendedProcesses.some((p) => p.ProcessName === ALARM_NOTIFICATION);
}

/** What DescribeAutoScalingGroups says of one group. */
export interface GroupReading {
  capacity: Capacity;
  /** AlarmNotification suspended: target tracking, step and simple scaling cannot act. */
  alarmsSuspended: boolean;
}

export interface GroupReadsPort {
  /** One reading per group name; a name absent from the map does not exist. */
  describeGroups(region: string, names: readonly string[]): Promise<Map<string, GroupReading>>;
}

export function groupReads(clientFor: (region: string) => AutoScalingClient): GroupReadsPort {
  return {
    async describeGroups(region, names) {
      const found = new Map<string, GroupReading>();
      for (let i = 0; i < names.length; i += NAMES_PER_CALL) {
        let token: string | undefined;
        do {
          const out = await clientFor(region).send(
            new DescribeAutoScalingGroupsCommand({
              AutoScalingGroupNames: names.slice(i, i + NAMES_PER_CALL),
              NextToken: token,
            }),
          );
          for (const g of out.AutoScalingGroups ?? []) {
            if (!g.AutoScalingGroupName) continue;
            found.set(g.AutoScalingGroupName, {
              capacity: groupCapacityFrom(g),
              alarmsSuspended: alarmsSuspendedIn(g),
            });
          }
          token = out.NextToken;
        } while (token);
      }
      return found;
    },
  };
}
