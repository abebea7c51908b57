/**
 * The action of a claimed decision, and its undo. A SageMaker change starts the scale-target
 * state machine, the only path that changes SageMaker: the input carries the kill switch value
 * judged off and, with onConflictingScaler: suspend, the Application Auto Scaling target whose
 * dynamic scaling the execution suspends right before the change (after its kill-switch and
 * generation checks). A group's AlarmNotification process is suspended here, then
 * SetDesiredCapacity. An inference component is set to 0 copies only after its endpoint's managed
 * instance scaling is read back allowing it (MinInstanceCount 0); otherwise the change is refused,
 * saying why, and the claim undone.
 */

import type { Outcome } from '../../shared/apply/plan.ts';
import { type RecordAction, scaleTargetInput } from '../../shared/apply/records.ts';
import { scalableRef } from '../../shared/aws/app-autoscaling.ts';
import { initialState } from '../../shared/engine/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { carriedPending, pendingWindowMs } from '../../shared/state/pending.ts';
import type { Attempt, TargetContext } from './context.ts';

export interface Acted {
  outcome: Outcome;
  detail: string;
  action: RecordAction;
  suspended: string | null;
}

/** Suspends a group's AlarmNotification process, logs how to undo it, and returns the group. */
async function suspendGroupAlarms(ctx: TargetContext, t: Extract<TargetPolicy, { kind: 'ec2-asg' }>) {
  const name = t.autoScalingGroupName;
  await ctx.ports.groups.suspendAlarmNotification(t.region, name);
  ctx.telemetry.warn(`suspended the AlarmNotification process of Auto Scaling group ${name}`, {
    targetId: t.id,
    undo: `aws autoscaling resume-processes --auto-scaling-group-name ${name} --scaling-processes AlarmNotification`,
  });
  return name;
}

export async function act(ctx: TargetContext, t: TargetPolicy, a: Attempt): Promise<Acted> {
  const { plan, decision } = a;
  const ref = t.kind === 'ec2-asg' ? null : scalableRef(t);
  const suspended = plan.suspend && t.kind === 'ec2-asg' ? await suspendGroupAlarms(ctx, t) : null;
  if (plan.kind === 'record') {
    // A SageMaker scaler is suspended by the execution of Governor's first change, never on a hold.
    const later =
      plan.suspend && ref
        ? `; the Application Auto Scaling policies on ${ref.resourceId} stay active until Governor's first change, which the scale-target state machine makes after suspending them`
        : '';
    return { outcome: plan.outcome, detail: `${plan.detail}${later}`, action: null, suspended };
  }
  const to = decision.desiredCapacity;
  const from = decision.currentCapacity;
  // 0 copies only where the endpoint's instances can follow (issue 18): read back first.
  const zero =
    t.kind === 'sagemaker-inference-component' && to === 0
      ? await ctx.ports.sageMaker.zeroCopiesRefusal?.(t.region, t.inferenceComponentName)
      : null;
  if (zero) return { outcome: 'refused', detail: zero, action: null, suspended };
  if (plan.via === 'state-machine') {
    const at = new Date(ctx.now).toISOString();
    const suspend =
      plan.suspend && ref ? { resourceId: ref.resourceId, scalableDimension: ref.dimension } : undefined;
    const input = scaleTargetInput(t, a.decisionId, to, from, at, ctx.config.AUDIT_TTL_DAYS, {
      // Only a switch judged off reaches an act plan (plan.ts), so the value is there.
      killSwitchValue: ctx.killSwitchValue ?? '',
      ...(suspend ? { suspend } : {}),
    });
    const started = await ctx.ports.executions.startScaleTarget(ctx.config.SCALE_STATE_MACHINE_ARN, input);
    const detail = [
      started.duplicate ? `${plan.detail} (already started under this name)` : plan.detail,
      ...(suspend
        ? [`it suspends the Application Auto Scaling policies on ${suspend.resourceId} first`]
        : []),
    ].join('; ');
    return {
      outcome: 'started',
      detail,
      action: {
        type: 'start-state-machine',
        executionName: a.decisionId,
        desiredCapacity: to,
        previousCapacity: from,
      },
      suspended: suspend ? suspend.resourceId : null,
    };
  }
  if (t.kind !== 'ec2-asg') throw new Error(`target ${t.id}: SetDesiredCapacity is for Auto Scaling groups`);
  const result = await ctx.ports.groups.setDesiredCapacity(t.region, t.autoScalingGroupName, to);
  const action: RecordAction = { type: 'set-desired-capacity', desiredCapacity: to, previousCapacity: from };
  return result.status === 'applied'
    ? { outcome: 'applied', detail: plan.detail, action, suspended }
    : {
        outcome: 'deferred',
        detail: `group is busy (${result.message}); the change waits for the next tick`,
        action,
        suspended,
      };
}

/** Writes the engine state from before the claim back, if nobody has written since. */
export async function undoClaim(ctx: TargetContext, t: TargetPolicy, a: Attempt): Promise<void> {
  const restored = await ctx.ports.state.claim(t.id, (a.stored.version ?? 0) + 1, {
    engine: a.stored.engine ?? initialState(),
    updatedAt: new Date(ctx.now).toISOString(),
    lastDecisionId: a.decisionId,
    pending: carriedPending(a.stored.pending, a.capacity.desired, ctx.now, pendingWindowMs(t)),
  });
  if (!restored)
    ctx.telemetry.warn('state moved on before the undo; the newer evaluation stands', { targetId: t.id });
}
