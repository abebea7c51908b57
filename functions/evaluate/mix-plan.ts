/**
 * The capacity mix limits of a tick's targets, from their PLAN items (MIX#<id>, PLAN, written by
 * functions/mix). Pure. A target with a capacityMix is held at the plan's capacity (the engine's
 * mixFloor: the plan serves the p90 forecast after losing its largest spot pool), and, with a
 * budget (maxUsdPerHour), capped at affordableCapacity(policy, plan) (the engine's budgetCeiling:
 * what the budget pays for when the group grows from the plan as its MixedInstancesPolicy grows
 * it; never below the committed base or minCapacity).
 *
 * No item (the mix function has not run yet), an item left unprocessed, a failed read, a
 * malformed state or a plan not made yet: no floor and no ceiling, and the record's inputs say why.
 */

import { affordableCapacity } from '../../shared/mix/shift.ts';
import { MixStateSchema, resolveMixPolicy } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';

/** What the decision record says of a target's capacity mix plan (inputs.mixPlan). */
export interface MixPlanInput {
  /** The plan's capacity given to the engine as a floor, or null: none. */
  capacity: number | null;
  /** The budget's ceiling given to the engine, or null: no budget, or no plan to grow from. */
  ceiling: number | null;
  /** The budget, USD per hour, or null when the policy sets none. */
  maxUsdPerHour: number | null;
  /** What the plan costs per hour at its capacity, or null without a plan. */
  usdPerHour: number | null;
  detail: string;
}

/** The ids whose PLAN items a tick reads: its targets with a capacityMix. */
export const mixTargetIds = (targets: readonly TargetPolicy[]): string[] =>
  targets.filter((t) => t.capacityMix !== undefined).map((t) => t.id);

function limitsOf(t: TargetPolicy, items: ReadonlyMap<string, Record<string, unknown> | undefined> | Error) {
  const policy = resolveMixPolicy(t);
  if (!policy) return null;
  const budget = policy.mix.maxUsdPerHour ?? null;
  const none = (detail: string): MixPlanInput => ({
    capacity: null,
    ceiling: null,
    maxUsdPerHour: budget,
    usdPerHour: null,
    detail,
  });
  const key = `MIX#${t.id}`;
  if (items instanceof Error)
    return none(`the read of ${key} failed (${items.message}): no mix floor or ceiling`);
  if (!items.has(t.id)) return none(`${key} was left unprocessed by BatchGetItem: no mix floor or ceiling`);
  const item = items.get(t.id);
  if (!item)
    return none(`no ${key} item yet (the mix function plans every 5 minutes): no mix floor or ceiling`);
  const parsed = MixStateSchema.safeParse(item.state);
  if (!parsed.success) return none(`${key} holds a malformed state: no mix floor or ceiling`);
  const plan = parsed.data.plan;
  if (!plan) return none(`${key} holds no plan yet (no forecast seen): no mix floor or ceiling`);
  const ceiling = affordableCapacity(policy, plan);
  const usd = plan.usdPerHour.toFixed(2);
  return {
    capacity: plan.capacity,
    ceiling,
    maxUsdPerHour: budget,
    usdPerHour: plan.usdPerHour,
    detail:
      ceiling === null
        ? `held at ${plan.capacity} or more by the plan in force (${usd} USD/h); no budget`
        : `held at ${plan.capacity} or more by the plan in force (${usd} USD/h); the budget of ${budget?.toFixed(2)} USD/h pays for ${ceiling}`,
  };
}

/** Per target id with a capacityMix, its plan's floor and the budget's ceiling (others are absent). */
export function mixPlanLimits(
  targets: readonly TargetPolicy[],
  items: ReadonlyMap<string, Record<string, unknown> | undefined> | Error,
): Map<string, MixPlanInput> {
  const out = new Map<string, MixPlanInput>();
  for (const t of targets) {
    const limits = limitsOf(t, items);
    if (limits) out.set(t.id, limits);
  }
  return out;
}
