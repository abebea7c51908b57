/**
 * EC2 Auto Scaling adapter: live capacity of groups (one batched DescribeAutoScalingGroups per
 * region for all of them) and SetDesiredCapacity with HonorCooldown false: Governor keeps its
 * own cooldowns, and the group launches and health-checks its instances itself. The group's
 * warm pool, which the forecast function sizes, has its own module (warm-pools.ts), so each
 * function's role is granted only the calls it makes (tests/template/grants.test.ts).
 */
import {
  type AutoScalingClient,
  type AutoScalingGroup,
  DescribeAutoScalingGroupsCommand,
  SetDesiredCapacityCommand,
} from '@aws-sdk/client-auto-scaling';
import { type ApplyResult, type Capacity, countField, MalformedResponseError } from './capacity.ts';
import { errorName } from './clients.ts';

/** DescribeAutoScalingGroups filters by at most 50 names per call. */
const NAMES_PER_CALL = 50;

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

export interface GroupsPort {
  /** Capacity per group name; a name absent from the map does not exist. */
  groupCapacities(region: string, names: readonly string[]): Promise<Map<string, Capacity>>;
  setDesiredCapacity(region: string, name: string, desired: number): Promise<ApplyResult>;
}

export function autoScalingAdapter(clientFor: (region: string) => AutoScalingClient): GroupsPort {
  return {
    async groupCapacities(region, names) {
      const found = new Map<string, Capacity>();
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
            if (g.AutoScalingGroupName) found.set(g.AutoScalingGroupName, groupCapacityFrom(g));
          }
          token = out.NextToken;
        } while (token);
      }
      return found;
    },
    async setDesiredCapacity(region, AutoScalingGroupName, DesiredCapacity) {
      try {
        await clientFor(region).send(
          new SetDesiredCapacityCommand({ AutoScalingGroupName, DesiredCapacity, HonorCooldown: false }),
        );
        return { status: 'applied' };
      } catch (error) {
        // Raised while the group is being deleted or mid-update: wait for the next tick.
        if (
          errorName(error) === 'ScalingActivityInProgressFault' ||
          errorName(error) === 'ResourceInUseFault'
        ) {
          return { status: 'busy', message: (error as Error).message };
        }
        throw error;
      }
    },
  };
}
