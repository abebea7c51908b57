/**
 * The Auto Scaling calls of the interruption handler:
 *  - DescribeAutoScalingInstances: which group each warned instance belongs to, 50 ids a call
 *    (its limit). An instance in no group (already detached, or never in one) is left out, and so
 *    is one detaching, detached or terminating (its LifecycleState).
 *  - DescribeAutoScalingGroups of one group: desired, InService and MaxSize, before Health
 *    retirements (their budget and surge; the surge itself and the terminations are
 *    ./group-capacity-writes.ts and ./group-retirements.ts).
 *  - DetachInstances (interruption warnings) with ShouldDecrementDesiredCapacity=false, 20 ids
 *    a call (its limit): desired capacity stays, so Auto Scaling launches the replacement at once
 *    while the warned instance serves its last two minutes outside the group. A call AWS refuses with a
 *    ValidationError (one of its instances is not in the group) is made again one id at a time,
 *    so the one instance fails alone; other errors (denied, throttled) fail the chunk.
 * A failure becomes one line naming the IAM action, the group and what to grant (as
 * ./mixed-instances.ts does); the SDK's retries (shared/aws/clients.ts) have run before.
 */

import {
  type AutoScalingClient,
  DescribeAutoScalingInstancesCommand,
  DetachInstancesCommand,
} from '@aws-sdk/client-auto-scaling';
import { appendAll } from '../arrays/extent.ts';
import type { GroupHealth } from '../interruptions/retire.ts';
import { chunks } from '../invocation/pool.ts';
import { errorName } from './clients.ts';
import { groupRetirements } from './group-retirements.ts';

/** DescribeAutoScalingInstances takes at most 50 instance ids. */
export const DESCRIBE_IDS_PER_CALL = 50;
/** DetachInstances takes at most 20 instance ids. */
export const DETACH_IDS_PER_CALL = 20;

export interface SpotGroupsPort {
  /**
   * The group read back: its desired capacity, its InService instances and its MaxSize (the
   * disruption budget of Health events and the surge, ../interruptions/retire.ts). Throws one
   * line when it cannot.
   */
  health(region: string, groupName: string): Promise<GroupHealth>;
  /** Instance id -> its group's name, for the ids that are in a group. */
  groupsOf(region: string, instanceIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * Detaches the instances from the group without lowering desired capacity, in calls of 20.
   * Each chunk stands alone: `failed` lists the ids of chunks that failed, with the one-line error.
   */
  replace(
    region: string,
    groupName: string,
    instanceIds: readonly string[],
  ): Promise<{ detached: string[]; failed: { instanceIds: string[]; error: string }[] }>;
}

export class SpotEventsCallError extends Error {
  override name = 'SpotEventsCallError';
}

function oneLine(action: string, region: string, group: string | null, error: unknown): string {
  const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  const where = group ? `group ${group}` : 'instances';
  const grant = group ? `on autoScalingGroupName/${group}` : 'on * (Describe actions take no resource)';
  return `autoscaling:${action} on ${where} in ${region} failed (${errorName(error) || 'error'}: ${detail}); check the role has autoscaling:${action} granted ${grant}`;
}

export function spotGroups(clientFor: (region: string) => AutoScalingClient): SpotGroupsPort {
  // The read-back is the retirements' own (one DescribeAutoScalingGroups, fields checked).
  const retirements = groupRetirements(clientFor);
  return {
    async health(region, groupName) {
      const g = await retirements.read(region, groupName);
      if (!g)
        throw new SpotEventsCallError(
          `group ${groupName} in ${region}: DescribeAutoScalingGroups found no such group`,
        );
      const inService = [...g.instances.values()].filter((state) => state === 'InService').length;
      return { desired: g.desired, inService, maxSize: g.maxSize };
    },
    async groupsOf(region, instanceIds) {
      const out = new Map<string, string>();
      for (const ids of chunks([...new Set(instanceIds)], DESCRIBE_IDS_PER_CALL)) {
        let token: string | undefined;
        do {
          const res = await clientFor(region)
            .send(new DescribeAutoScalingInstancesCommand({ InstanceIds: ids, NextToken: token }))
            .catch((error: unknown) => {
              throw new SpotEventsCallError(oneLine('DescribeAutoScalingInstances', region, null, error), {
                cause: error,
              });
            });
          for (const i of res.AutoScalingInstances ?? [])
            if (i.InstanceId && i.AutoScalingGroupName && !leaving(i.LifecycleState))
              out.set(i.InstanceId, i.AutoScalingGroupName);
          token = res.NextToken;
        } while (token);
      }
      return out;
    },
    async replace(region, groupName, instanceIds) {
      const detached: string[] = [];
      const failed: { instanceIds: string[]; error: string }[] = [];
      const detach = (ids: string[]) =>
        clientFor(region).send(
          new DetachInstancesCommand({
            AutoScalingGroupName: groupName,
            InstanceIds: ids,
            ShouldDecrementDesiredCapacity: false,
          }),
        );
      for (const ids of chunks([...new Set(instanceIds)], DETACH_IDS_PER_CALL)) {
        try {
          await detach(ids);
          appendAll(detached, ids);
        } catch (error) {
          if (ids.length === 1 || !splittable(error)) {
            failed.push({ instanceIds: ids, error: oneLine('DetachInstances', region, groupName, error) });
            continue;
          }
          // AWS refuses the whole call for one instance it will not detach (already gone, in
          // another group, mid-termination): each alone, so one bad instance fails its own message.
          for (const id of ids)
            await detach([id]).then(
              () => detached.push(id),
              (e: unknown) =>
                failed.push({ instanceIds: [id], error: oneLine('DetachInstances', region, groupName, e) }),
            );
        }
      }
      return { detached, failed };
    },
  };
}

/**
 * An instance on its way out of the group: detaching (our own call, seconds ago), detached, or
 * terminating (reclaimed). It counts as in no group, so a redelivered warning is ignored at the
 * lookup instead of failing a second DetachInstances.
 */
const leaving = (state: string | undefined): boolean => !!state && /^(Detach|Terminat)/.test(state);

/** A refusal about some instances of the call (ValidationError), not about the caller or the service. */
const splittable = (error: unknown): boolean => errorName(error) === 'ValidationError';
