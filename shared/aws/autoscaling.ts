/**
 * EC2 Auto Scaling adapter of the evaluate function: the group reads (./group-capacity.ts) and
 * SetDesiredCapacity (./group-capacity-writes.ts), plus what only the evaluator does with other
 * scalers on a group (../control/conflicts.ts): DescribePolicies takes one group name per call,
 * so one call per group (up to 100 policies a page, following NextToken); whether the group's
 * AlarmNotification process is suspended comes with DescribeAutoScalingGroups, at no extra call.
 * Suspension is SuspendProcesses AlarmNotification: documented and reversible (ResumeProcesses
 * AlarmNotification); it leaves policies and their alarms in place.
 *
 * The reads, the capacity write and the warm pools (warm-pools.ts, the forecast function's) have
 * their own modules, so each function's role is granted only the calls it makes
 * (tests/template/grants.test.ts): the failover functions never import this file.
 */
import {
  type AutoScalingClient,
  DescribePoliciesCommand,
  type ScalingPolicy,
  SuspendProcessesCommand,
} from '@aws-sdk/client-auto-scaling';
import type { GroupPolicy } from '../apply/conflicts.ts';
import { MalformedResponseError } from './capacity.ts';
import { ALARM_NOTIFICATION, type GroupReadsPort, groupReads } from './group-capacity.ts';
import { type GroupWritesPort, groupWrites } from './group-capacity-writes.ts';

export { alarmsSuspendedIn, type GroupReading, groupCapacityFrom } from './group-capacity.ts';

/** DescribePolicies returns at most 100 policies a page (default 50). */
const POLICIES_PER_PAGE = 100;
/** Policy types acted on through CloudWatch alarms, stopped by suspending AlarmNotification. */
const ALARM_DRIVEN = new Set(['SimpleScaling', 'StepScaling', 'TargetTrackingScaling']);

/**
 * One policy to GroupPolicy. Enabled absent counts as enabled (only Enabled false disables; moto
 * omits it). A predictive policy without a Mode is ForecastOnly, the API's documented default.
 * A policy type Governor does not know is rejected rather than guessed harmless.
 */
export function groupPolicyFrom(p: ScalingPolicy, group: string): GroupPolicy {
  const where = `DescribePolicies ${group}`;
  if (typeof p.PolicyName !== 'string' || p.PolicyName === '') {
    throw new MalformedResponseError(`${where}: a policy's PolicyName is missing`);
  }
  const field = (f: string, v: unknown) =>
    new MalformedResponseError(
      `${where} ${p.PolicyName}.${f} is ${v === undefined ? 'missing' : JSON.stringify(v)}`,
    );
  if (p.Enabled !== undefined && typeof p.Enabled !== 'boolean') throw field('Enabled', p.Enabled);
  const enabled = p.Enabled !== false;
  if (ALARM_DRIVEN.has(p.PolicyType ?? ''))
    return { name: p.PolicyName, drivenBy: 'alarms', canScale: enabled };
  if (p.PolicyType !== 'PredictiveScaling') throw field('PolicyType', p.PolicyType);
  if (!p.PredictiveScalingConfiguration) throw field('PredictiveScalingConfiguration', undefined);
  const scales = p.PredictiveScalingConfiguration.Mode === 'ForecastAndScale';
  return { name: p.PolicyName, drivenBy: 'forecast', canScale: enabled && scales };
}

/** The reads and SetDesiredCapacity, and what the evaluator alone does with other scalers. */
export interface GroupsPort extends GroupReadsPort, GroupWritesPort {
  /** Every scaling policy of the group (none for a group that does not exist). */
  scalingPolicies(region: string, name: string): Promise<GroupPolicy[]>;
  /** Stops the group's alarm-driven scaling policies, leaving them in place. */
  suspendAlarmNotification(region: string, name: string): Promise<void>;
}

export function autoScalingAdapter(clientFor: (region: string) => AutoScalingClient): GroupsPort {
  return {
    ...groupReads(clientFor),
    ...groupWrites(clientFor),
    async scalingPolicies(region, AutoScalingGroupName) {
      const policies: GroupPolicy[] = [];
      let token: string | undefined;
      do {
        const out = await clientFor(region).send(
          new DescribePoliciesCommand({
            AutoScalingGroupName,
            MaxRecords: POLICIES_PER_PAGE,
            NextToken: token,
          }),
        );
        if (!Array.isArray(out.ScalingPolicies)) {
          throw new MalformedResponseError(
            `DescribePolicies ${AutoScalingGroupName}.ScalingPolicies is missing`,
          );
        }
        for (const p of out.ScalingPolicies) policies.push(groupPolicyFrom(p, AutoScalingGroupName));
        token = out.NextToken;
      } while (token);
      return policies;
    },
    async suspendAlarmNotification(region, AutoScalingGroupName) {
      await clientFor(region).send(
        new SuspendProcessesCommand({ AutoScalingGroupName, ScalingProcesses: [ALARM_NOTIFICATION] }),
      );
    },
  };
}
