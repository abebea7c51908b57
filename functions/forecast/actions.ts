/**
 * The forecast floor's Application Auto Scaling scheduled actions for one target: planned from
 * the floor (shared/floors/scheduled-actions.ts), reconciled with what exists, withheld in
 * shadow mode and under the kill switch. Under the kill switch nothing is put or deleted at all
 * (a deletion lowers a planned MinCapacity: it changes capacity too); in shadow mode Governor's
 * earlier actions are removed, so none it wrote while active fires later.
 */
import { type ScalableRef, scalableRef } from '../../shared/aws/scalable-target.ts';
import { type PlannedAction, planActions, reconcile } from '../../shared/floors/scheduled-actions.ts';
import type { ForecastFloor } from '../../shared/floors/stored.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { RunContext } from './context.ts';
import type { ActionsOutcome } from './outcomes.ts';

/** Puts the planned actions and removes Governor's others for the target; counts of each. */
async function apply(ctx: RunContext, t: TargetPolicy, ref: ScalableRef, planned: readonly PlannedAction[]) {
  const { put, remove } = reconcile(t.id, planned, await ctx.ports.actions.list(t.region, ref));
  // New and changed actions first, then the stale ones: a failure in between leaves extra
  // actions (removed next hour), never a ramp without one.
  for (const a of put) await ctx.ports.actions.put(t.region, ref, a);
  for (const name of remove) await ctx.ports.actions.remove(t.region, ref, name);
  return { put: put.length, removed: remove.length };
}

/** The plan for a target's live scalable target (null when it is not registered), reading only. */
async function planFor(ctx: RunContext, t: TargetPolicy, ref: ScalableRef, floor: ForecastFloor) {
  const live = await ctx.ports.actions.minCapacity(t.region, ref);
  if (live === null) return null;
  return planActions({
    targetId: t.id,
    floor,
    baseline: t.scaling.minCapacity,
    maxCapacity: t.scaling.maxCapacity,
    liveMinCapacity: live,
    now: ctx.now,
  });
}

export async function writeActions(
  ctx: RunContext,
  t: TargetPolicy,
  floor: ForecastFloor,
): Promise<ActionsOutcome> {
  const ref = scalableRef(t);
  if (!ref) return { status: 'skipped', reason: 'NotSageMaker' };
  // The role may write scheduled actions in the stack's region only, as the evaluator changes SageMaker there only.
  if (t.region !== ctx.config.AWS_REGION) return { status: 'skipped', reason: 'OtherRegion' };
  try {
    if (ctx.withheld === 'kill-switch') {
      // Read-only: how many actions the plan would have, for the log line; nothing is written.
      const planned = t.forecast?.scheduledActions
        ? ((await planFor(ctx, t, ref, floor))?.actions.length ?? 0)
        : 0;
      return { status: 'withheld', why: 'kill-switch', planned, removed: 0 };
    }
    if (!t.forecast?.scheduledActions) {
      // Turned off: Governor's actions from when it was on are removed, so none fires later.
      const { removed } = await apply(ctx, t, ref, []);
      return removed > 0 ? { status: 'removed', removed } : { status: 'skipped', reason: 'Disabled' };
    }
    const plan = await planFor(ctx, t, ref, floor);
    if (plan === null) return { status: 'skipped', reason: 'NotRegistered' };
    const { actions, threshold } = plan;
    if (ctx.withheld) {
      const { removed } = await apply(ctx, t, ref, []);
      return { status: 'withheld', why: ctx.withheld, planned: actions.length, removed };
    }
    return { status: 'written', planned: actions.length, ...(await apply(ctx, t, ref, actions)), threshold };
  } catch (error) {
    return { status: 'failed', detail: `scheduled actions: ${errorText(error)}` };
  }
}
