/**
 * EC2 Auto Scaling adapter: live capacity of groups (one batched DescribeAutoScalingGroups per
 * region for all of them) and SetDesiredCapacity with HonorCooldown false: Governor keeps its
 * own cooldowns, and the group launches and health-checks its instances itself.
 *
 * Other scalers on a group (../control/conflicts.ts): DescribePolicies takes one group name per
 * call, so one call per group (up to 100 policies a page, following NextToken); whether the
 * group's AlarmNotification process is suspended comes with DescribeAutoScalingGroups, at no
 * extra call. Suspension is SuspendProcesses AlarmNotification: documented and reversible
 * (ResumeProcesses AlarmNotification); it leaves policies and their alarms in place.
 *
 * The group's warm pool, which the forecast function sizes, has its own module (warm-pools.ts),
 * so each function's role is granted only the calls it makes (tests/template/grants.test.ts).
 */
import {
  type AutoScalingClient,
  type AutoScalingGroup,
  DescribeAutoScalingGroupsCommand,
  DescribePoliciesCommand,
  type ScalingPolicy,
  SetDesiredCapacityCommand,
  SuspendProcessesCommand,
} from '@aws-sdk/client-auto-scaling';
import type { GroupPolicy } from '../control/conflicts.ts';
import { type ApplyResult, type Capacity, countField, MalformedResponseError } from './capacity.ts';
import { errorName } from './clients.ts';

/** DescribeAutoScalingGroups filters by at most 50 names per call. */
const NAMES_PER_CALL = 50;
/** DescribePolicies returns at most 100 policies a page (default 50). */
const POLICIES_PER_PAGE = 100;
/** The process that runs target tracking, step and simple scaling policies. */
const ALARM_NOTIFICATION = 'AlarmNotification';
/** Policy types acted on through CloudWatch alarms, stopped by suspending AlarmNotification. */
const ALARM_DRIVEN = new Set(['SimpleScaling', 'StepScaling', 'TargetTrackingScaling']);

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

/** What DescribeAutoScalingGroups says of one group. */
export interface GroupReading {
  capacity: Capacity;
  /** AlarmNotification suspended: target tracking, step and simple scaling cannot act. */
  alarmsSuspended: boolean;
}

export interface GroupsPort {
  /** One reading per group name; a name absent from the map does not exist. */
  describeGroups(region: string, names: readonly string[]): Promise<Map<string, GroupReading>>;
  /** Every scaling policy of the group (none for a group that does not exist). */
  scalingPolicies(region: string, name: string): Promise<GroupPolicy[]>;
  /** Stops the group's alarm-driven scaling policies, leaving them in place. */
  suspendAlarmNotification(region: string, name: string): Promise<void>;
  setDesiredCapacity(region: string, name: string, desired: number): Promise<ApplyResult>;
}

export function autoScalingAdapter(clientFor: (region: string) => AutoScalingClient): GroupsPort {
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
