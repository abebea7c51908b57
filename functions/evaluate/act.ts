/**
 * The action of a claimed decision, and its undo. Suspending other scalers (when the policy
 * says so) comes first: Application Auto Scaling dynamic scaling on a SageMaker target, the
 * AlarmNotification process on a group. Then the state machine start (SageMaker) or
 * SetDesiredCapacity (group).
 */
import { scalableRef } from '../../shared/aws/app-autoscaling.ts';
import type { Outcome } from '../../shared/control/plan.ts';
import { type RecordAction, scaleTargetInput } from '../../shared/control/records.ts';
import { carriedPending, pendingWindowMs } from '../../shared/control/state.ts';
import { initialState } from '../../shared/engine/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { Attempt, TargetContext } from './context.ts';

export interface Acted {
  outcome: Outcome;
  detail: string;
  action: RecordAction;
  suspended: string | null;
}

/** Suspends the other scalers of t, logs how to undo it, and returns what was suspended. */
async function suspendOtherScalers(ctx: TargetContext, t: TargetPolicy): Promise<string> {
  if (t.kind === 'ec2-asg') {
    const name = t.autoScalingGroupName;
    await ctx.ports.groups.suspendAlarmNotification(t.region, name);
    ctx.telemetry.warn(`suspended the AlarmNotification process of Auto Scaling group ${name}`, {
      targetId: t.id,
      undo: `aws autoscaling resume-processes --auto-scaling-group-name ${name} --scaling-processes AlarmNotification`,
    });
    return name;
  }
  const ref = scalableRef(t)!;
  await ctx.ports.scalers.suspendDynamicScaling(t.region, ref);
  ctx.telemetry.warn(`suspended Application Auto Scaling dynamic scaling on ${ref.resourceId}`, {
    targetId: t.id,
    undo: 'RegisterScalableTarget with SuspendedState DynamicScalingInSuspended/OutSuspended false',
  });
  return ref.resourceId;
}

export async function act(ctx: TargetContext, t: TargetPolicy, a: Attempt): Promise<Acted> {
  const { plan, decision } = a;
  const suspended = plan.suspend ? await suspendOtherScalers(ctx, t) : null;
  if (plan.kind === 'record') return { outcome: plan.outcome, detail: plan.detail, action: null, suspended };
  const to = decision.desiredCapacity;
  const from = decision.currentCapacity;
  if (plan.via === 'state-machine') {
    const at = new Date(ctx.now).toISOString();
    const input = scaleTargetInput(t, a.decisionId, to, from, at, ctx.config.AUDIT_TTL_DAYS);
    const started = await ctx.ports.executions.startScaleTarget(ctx.config.SCALE_STATE_MACHINE_ARN, input);
    const detail = started.duplicate ? `${plan.detail} (already started under this name)` : plan.detail;
    return {
      outcome: 'started',
      detail,
      action: {
        type: 'start-state-machine',
        executionName: a.decisionId,
        desiredCapacity: to,
        previousCapacity: from,
      },
      suspended,
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
