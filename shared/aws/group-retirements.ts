/**
 * The Auto Scaling calls of retirements (issue 18: a retired instance is terminated once its
 * replacement serves, with no EC2 client: the EC2 SDK took the spot-events bundle past 1 MB):
 *  - DescribeAutoScalingGroups of one group: its desired capacity and each instance's
 *    LifecycleState (the API's enum: Pending, InService, Terminating, Detached, Standby, ...),
 *    which ../interruptions/retirements.ts reads; null when the group does not exist.
 *  - TerminateInstanceInAutoScalingGroup: InstanceId (at most 19 characters) and
 *    ShouldDecrementDesiredCapacity, both required; the group is the instance's own, so the call
 *    names none (IAM checks it against the group's ARN). An instance AWS no longer finds in any
 *    group is refused with ValidationError "Instance Id not found - No managed instance found for
 *    instance ID i-..." (as reported in yaybu/touchdown#51 and keikoproj/upgrade-manager#25):
 *    that is 'gone', the outcome wanted, not a failure.
 * The raise that starts a retirement is SetDesiredCapacity (./group-capacity-writes.ts). A
 * failure becomes one line naming the IAM action, the group and what to grant; the SDK's retries
 * (./clients.ts, throttling and 5xx) have run before.
 */
import {
  type AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  TerminateInstanceInAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import type { RetirementGroup } from '../interruptions/retirements.ts';
import { errorName } from './clients.ts';

/** A group as the retirements read it, with its MaxSize (the surge stops there). */
export interface RetirementGroupReading extends RetirementGroup {
  maxSize: number;
}

export interface GroupRetirementsPort {
  /** The group read back, or null when it does not exist. Throws one line when it cannot be read. */
  read(region: string, groupName: string): Promise<RetirementGroupReading | null>;
  /**
   * Terminates the instance in its group, decrementing desired capacity or not: 'terminated', or
   * 'gone' when AWS finds it in no group. Throws one line on any other refusal.
   */
  terminate(
    region: string,
    groupName: string,
    instanceId: string,
    decrement: boolean,
  ): Promise<'terminated' | 'gone'>;
}

export class RetirementCallError extends Error {
  override name = 'RetirementCallError';
}

function oneLine(action: string, region: string, group: string, error: unknown): string {
  const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 300);
  const grant = action.startsWith('Describe')
    ? 'on * (Describe actions take no resource)'
    : `on autoScalingGroupName/${group}`;
  return `autoscaling:${action} on group ${group} in ${region} failed (${errorName(error) || 'error'}: ${detail}); check the role has autoscaling:${action} granted ${grant}`;
}

/** ValidationError "Instance Id not found - No managed instance found ...": in no group any more. */
const notFound = (error: unknown): boolean =>
  errorName(error) === 'ValidationError' &&
  /instance id not found|no managed instance/i.test(error instanceof Error ? error.message : '');

/** The group as read: desired, MaxSize, instance id -> LifecycleState; missing fields refused. */
export function retirementGroupFrom(
  g: {
    DesiredCapacity?: number;
    MaxSize?: number;
    Instances?: { InstanceId?: string; LifecycleState?: string }[];
  },
  where: string,
): RetirementGroupReading {
  if (typeof g.DesiredCapacity !== 'number' || typeof g.MaxSize !== 'number' || !Array.isArray(g.Instances))
    throw new RetirementCallError(
      `${where}: DescribeAutoScalingGroups gave no DesiredCapacity, MaxSize or Instances`,
    );
  const instances = new Map<string, string>();
  for (const i of g.Instances) {
    if (!i.InstanceId || !i.LifecycleState)
      throw new RetirementCallError(`${where}: an instance without InstanceId or LifecycleState`);
    instances.set(i.InstanceId, i.LifecycleState);
  }
  return { desired: g.DesiredCapacity, maxSize: g.MaxSize, instances };
}

export function groupRetirements(clientFor: (region: string) => AutoScalingClient): GroupRetirementsPort {
  return {
    async read(region, groupName) {
      const res = await clientFor(region)
        .send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [groupName] }))
        .catch((error: unknown) => {
          throw new RetirementCallError(oneLine('DescribeAutoScalingGroups', region, groupName, error), {
            cause: error,
          });
        });
      const g = res.AutoScalingGroups?.find((x) => x.AutoScalingGroupName === groupName);
      return g ? retirementGroupFrom(g, `group ${groupName} in ${region}`) : null;
    },
    async terminate(region, groupName, InstanceId, decrement) {
      try {
        await clientFor(region).send(
          new TerminateInstanceInAutoScalingGroupCommand({
            InstanceId,
            ShouldDecrementDesiredCapacity: decrement,
          }),
        );
        return 'terminated';
      } catch (error) {
        if (notFound(error)) return 'gone';
        throw new RetirementCallError(
          `${InstanceId}: ${oneLine('TerminateInstanceInAutoScalingGroup', region, groupName, error)}`,
          { cause: error },
        );
      }
    },
  };
}
