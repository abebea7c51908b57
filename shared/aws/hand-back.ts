/**
 * The kill switch's `release` (shared/invocation/kill-switch.ts): undoing what
 * onConflictingScaler: suspend did, and nothing else.
 *
 * - SageMaker: the scale-target state machine suspends a target's Application Auto Scaling
 *   policies with RegisterScalableTarget, DynamicScalingInSuspended and DynamicScalingOutSuspended
 *   true. Release finds the targets with both suspended (DescribeScalableTargets, 50 resource ids
 *   a call) and registers them again with both false, keeping ScheduledScalingSuspended as read:
 *   scheduled actions were never Governor's to suspend.
 * - EC2 Auto Scaling: the evaluator suspends a group's AlarmNotification process; release sends
 *   ResumeProcesses AlarmNotification, that process only (the group's other suspended processes
 *   are someone else's).
 *
 * Its own module so the template's grant check (tests/template/grants.test.ts, file by file)
 * sees these two writes owed to the evaluate role and to no other.
 */
import {
  type ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { type AutoScalingClient, ResumeProcessesCommand } from '@aws-sdk/client-auto-scaling';
import { chunks } from '../invocation/pool.ts';
import { refKey, type ScalableRef } from './app-autoscaling.ts';
import { ALARM_NOTIFICATION } from './group-capacity.ts';

/** A registered target whose dynamic scaling is suspended both ways, as Governor leaves it. */
export interface SuspendedScaler {
  ref: ScalableRef;
  /** ScheduledScalingSuspended as read: sent back unchanged. */
  scheduledSuspended: boolean;
}

export interface HandBackPort {
  /** The refs registered with dynamic scaling suspended both ways (by refKey). */
  suspendedScalers(region: string, refs: readonly ScalableRef[]): Promise<Map<string, SuspendedScaler>>;
  /** RegisterScalableTarget with dynamic scaling no longer suspended. */
  resumeDynamicScaling(region: string, scaler: SuspendedScaler): Promise<void>;
  /** ResumeProcesses AlarmNotification on one group. */
  resumeAlarmNotification(region: string, group: string): Promise<void>;
}

/** DescribeScalableTargets filters by at most 50 resource ids per call. */
const IDS_PER_CALL = 50;

export function handBackAdapter(
  scalersIn: (region: string) => ApplicationAutoScalingClient,
  groupsIn: (region: string) => AutoScalingClient,
): HandBackPort {
  return {
    async suspendedScalers(region, refs) {
      const wanted = new Map(refs.map((r) => [refKey(r), r]));
      const found = new Map<string, SuspendedScaler>();
      for (const ResourceIds of chunks([...new Set(refs.map((r) => r.resourceId))], IDS_PER_CALL)) {
        let token: string | undefined;
        do {
          const out = await scalersIn(region).send(
            new DescribeScalableTargetsCommand({
              ServiceNamespace: 'sagemaker',
              ResourceIds,
              NextToken: token,
            }),
          );
          for (const t of out.ScalableTargets ?? []) {
            const ref = wanted.get(`${t.ResourceId}|${t.ScalableDimension}`);
            const s = t.SuspendedState;
            if (ref && s?.DynamicScalingInSuspended && s.DynamicScalingOutSuspended)
              found.set(refKey(ref), { ref, scheduledSuspended: s.ScheduledScalingSuspended === true });
          }
          token = out.NextToken;
        } while (token);
      }
      return found;
    },
    async resumeDynamicScaling(region, { ref, scheduledSuspended }) {
      await scalersIn(region).send(
        new RegisterScalableTargetCommand({
          ServiceNamespace: 'sagemaker',
          ResourceId: ref.resourceId,
          ScalableDimension: ref.dimension,
          SuspendedState: {
            DynamicScalingInSuspended: false,
            DynamicScalingOutSuspended: false,
            ScheduledScalingSuspended: scheduledSuspended,
          },
        }),
      );
    },
    async resumeAlarmNotification(region, AutoScalingGroupName) {
      await groupsIn(region).send(
        new ResumeProcessesCommand({ AutoScalingGroupName, ScalingProcesses: [ALARM_NOTIFICATION] }),
      );
    },
  };
}
