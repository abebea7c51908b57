/**
 * SetDesiredCapacity on an EC2 Auto Scaling group, with HonorCooldown false: Governor keeps its
 * own cooldowns, and the group launches and health-checks its instances itself. Apart from the
 * reads (./group-capacity.ts) as ./sagemaker-writes.ts is apart from ./sagemaker.ts, so the
 * failover health evaluation, which only reads, is granted no write (tests/template/grants.test.ts).
 * Used by the evaluate function (through ./autoscaling.ts) and the failover act function's prescale.
 */
import { type AutoScalingClient, SetDesiredCapacityCommand } from '@aws-sdk/client-auto-scaling';
import type { ApplyResult } from './capacity.ts';
import { errorName } from './clients.ts';
import { type GroupReadsPort, groupReads } from './group-capacity.ts';

export interface GroupWritesPort {
  setDesiredCapacity(region: string, name: string, desired: number): Promise<ApplyResult>;
}

export function groupWrites(clientFor: (region: string) => AutoScalingClient): GroupWritesPort {
  return {
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

/** Reads and SetDesiredCapacity, without the policy reads and suspension of ./autoscaling.ts. */
export function groupCapacityAdapter(
  clientFor: (region: string) => AutoScalingClient,
): GroupReadsPort & GroupWritesPort {
  return { ...groupReads(clientFor), ...groupWrites(clientFor) };
}
