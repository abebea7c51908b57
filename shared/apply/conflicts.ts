/**
 * Other scalers on a target, and how a refusal words them. Two kinds:
 *
 * - SageMaker targets: Application Auto Scaling scaling policies on a scalable target whose
 *   dynamic scaling is not suspended (shared/aws/app-autoscaling.ts). Suspending dynamic scaling
 *   stops them all.
 * - Auto Scaling groups: EC2 Auto Scaling policies (shared/aws/autoscaling.ts). Target tracking,
 *   step and simple scaling act through CloudWatch alarms: suspending the group's
 *   AlarmNotification process stops them all, so with it suspended they are no conflict.
 *   Predictive scaling acts on its own forecast, not through alarms, so AlarmNotification does
 *   not stop it: a predictive policy in ForecastAndScale mode is a conflict that
 *   onConflictingScaler: suspend cannot remove, and it is refused either way. A disabled policy
 *   (Enabled false) and a predictive one in ForecastOnly mode change no capacity: no conflict.
 */

/** One scaling policy of a group, as the adapter reads it from DescribePolicies. */
export interface GroupPolicy {
  name: string;
  /** 'alarms': target tracking, step and simple scaling; 'forecast': predictive scaling. */
  drivenBy: 'alarms' | 'forecast';
  /** false when it changes no capacity: disabled, or predictive in ForecastOnly mode. */
  canScale: boolean;
}

/** Other scalers found on the target that can act now. */
export type Conflict =
  | {
      scaler: 'application-auto-scaling';
      resourceId: string;
      scalableDimension: string;
      policyNames: string[];
    }
  | {
      scaler: 'ec2-auto-scaling';
      groupName: string;
      policyNames: string[];
      /** The predictive ones among policyNames: suspending AlarmNotification cannot stop them. */
      unsuspendable: string[];
    };

/**
 * The group's conflict, or null. Example (pinned in tests/control/state-plan.test.ts): policies
 * "tt" (target tracking), "old" (step, disabled) and "pred" (predictive, ForecastOnly) with
 * AlarmNotification running -> policyNames ["tt"]; with AlarmNotification suspended -> null.
 */
export function groupConflict(
  groupName: string,
  policies: readonly GroupPolicy[],
  alarmsSuspended: boolean,
): Conflict | null {
  const acting = policies.filter((p) => p.canScale && !(p.drivenBy === 'alarms' && alarmsSuspended));
  if (acting.length === 0) return null;
  return {
    scaler: 'ec2-auto-scaling',
    groupName,
    policyNames: acting.map((p) => p.name),
    unsuspendable: acting.filter((p) => p.drivenBy === 'forecast').map((p) => p.name),
  };
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

export function conflictMessage(c: Conflict): string {
  return c.scaler === 'application-auto-scaling'
    ? `Application Auto Scaling policies ${quoted(c.policyNames)} also scale ${c.resourceId}`
    : `EC2 Auto Scaling policies ${quoted(c.policyNames)} also scale Auto Scaling group ${c.groupName}`;
}

/** Why the conflict refuses the change, or null when onConflictingScaler: suspend removes it. */
export function refusal(c: Conflict, onConflictingScaler: 'refuse' | 'suspend'): string | null {
  const stuck = c.scaler === 'ec2-auto-scaling' ? c.unsuspendable : [];
  if (stuck.length > 0) {
    return `${conflictMessage(c)}: Governor will not fight them; predictive scaling ${quoted(stuck)} is not driven by alarms, so suspending cannot stop it; delete it, or set its mode to ForecastOnly`;
  }
  if (onConflictingScaler === 'suspend') return null;
  return `${conflictMessage(c)}: Governor will not fight them; delete them, or set onConflictingScaler: suspend`;
}
