/**
 * The capacity mix limits of a tick's targets, from their PLAN items (MIX#<id>, PLAN, written by
 * functions/mix). Pure. Three limits:
 *  - the committed base (the engine's committedFloor, CommittedFloor): the plan's committed
 *    on-demand instances (the commitment the mix function planned on: min(the policy's, what
 *    exists)). Billed every hour whether they run or not, so the fleet never runs fewer: their
 *    idle hours are headroom already paid for (the backtest's floor too).
 *  - the floor (the engine's mixFloor, MixPlanFloor): lossCoverFloor(policy, plan, need), the
 *    least capacity that, run under the plan's MixedInstancesPolicy, still serves `need` after
 *    losing its largest spot pool, where `need` is the forecast floor's most over the next
 *    replacementLeadTimeMinutes (the backtest's floor, shared/backtest/mix/controller.ts, so what
 *    it measured is what runs). Not the plan's own capacity: that is sized for the peak of the
 *    whole horizon, and holding it for hours costs more than spot saves. No spot in the plan, or
 *    no fresh forecast floor: no mix floor (the signals and the forecast floor decide).
 *  - the ceiling (budgetCeiling, BudgetCapped), with a budget (maxUsdPerHour):
 *    affordableCapacity(policy, plan), what the budget pays for when the group grows from the
 *    plan as its MixedInstancesPolicy grows it; never below the committed base or minCapacity.
 *
 * No item (the mix function has not run yet), an item left unprocessed, a failed read, a
 * malformed state or a plan not made yet: no floor and no ceiling, and the record's inputs say why.
 */
import { pickFloor, stepAt } from '../../shared/floors/forecast.ts';
import type { ForecastFloor } from '../../shared/floors/stored.ts';
import { affordableCapacity, lossCoverFloor } from '../../shared/mix/shift.ts';
import {
  type MixPlan,
  type MixPolicy,
  MixStateSchema,
  replacementLeadMinutes,
  resolveMixPolicy,
  spotHeadroomOf,
} from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';

/** What the decision record says of a target's capacity mix plan (inputs.mixPlan). */
export interface MixPlanInput {
  /** The loss-cover floor given to the engine, or null: none. */
  capacity: number | null;
  /** The plan's own capacity (sized for the horizon's peak), or null without a plan. */
  planCapacity: number | null;
  /**
   * The committed base given to the engine (committedFloor, CommittedFloor): the plan's committed
   * on-demand instances, paid whether they run or not; null without a plan or a commitment.
   */
  committed: number | null;
  /**
   * Spot instances the engine holds beyond what the load asks (capacityMix.spot.overProvision),
   * given while the plan in force lets the group run spot (listsSpot); absent: none (no setting,
   * no plan, or a plan on demand only).
   */
  spotHeadroom?: number;
  /** The budget's ceiling given to the engine, or null: no budget, or no plan to grow from. */
  ceiling: number | null;
  /** The budget, USD per hour, or null when the policy sets none. */
  maxUsdPerHour: number | null;
  /** What the plan costs per hour at its capacity, or null without a plan. */
  usdPerHour: number | null;
  detail: string;
}

/** A target's PLAN item decoded: the plan in force (null: none, and why) and the budget's ceiling. */
export interface HeldPlan {
  policy: MixPolicy;
  plan: MixPlan | null;
  ceiling: number | null;
  /** Why there is no plan, or null. */
  missing: string | null;
}

/** The ids whose PLAN items a tick reads: its targets with a capacityMix. */
export const mixTargetIds = (targets: readonly TargetPolicy[]): string[] =>
  targets.filter((t) => t.capacityMix !== undefined).map((t) => t.id);

function heldPlan(
  t: TargetPolicy,
  items: ReadonlyMap<string, Record<string, unknown> | undefined> | Error,
): HeldPlan | null {
  const policy = resolveMixPolicy(t);
  if (!policy) return null;
  const none = (missing: string): HeldPlan => ({ policy, plan: null, ceiling: null, missing });
  const key = `MIX#${t.id}`;
  if (items instanceof Error) return none(`the read of ${key} failed (${items.message})`);
  if (!items.has(t.id)) return none(`${key} was left unprocessed by BatchGetItem`);
  const item = items.get(t.id);
  if (!item) return none(`no ${key} item yet (the mix function plans every 5 minutes)`);
  const parsed = MixStateSchema.safeParse(item.state);
  if (!parsed.success) return none(`${key} holds a malformed state`);
  const plan = parsed.data.plan;
  if (!plan) return none(`${key} holds no plan yet (no forecast seen)`);
  return { policy, plan, ceiling: affordableCapacity(policy, plan), missing: null };
}

/** Per target id with a capacityMix, its decoded plan and ceiling (others are absent). */
export function heldPlans(
  targets: readonly TargetPolicy[],
  items: ReadonlyMap<string, Record<string, unknown> | undefined> | Error,
): Map<string, HeldPlan> {
  const out = new Map<string, HeldPlan>();
  for (const t of targets) {
    const held = heldPlan(t, items);
    if (held) out.set(t.id, held);
  }
  return out;
}

/**
 * The forecast floor's most over [now, now + minutes] (instances, at the forecast's quantile),
 * or null when no fresh floor applies now. Steps are five minutes: 15 minutes reach 3 steps on.
 */
export function needOver(t: TargetPolicy, floor: ForecastFloor | undefined, now: number, minutes: number) {
  const pick = pickFloor(t, floor, now);
  if (pick.kind !== 'floor' || !floor) return null;
  const last = stepAt(floor, now + minutes * 60_000);
  const steps = floor.capacities.slice(pick.step, Math.max(pick.step, last) + 1);
  return Math.max(pick.capacity, ...steps);
}

const usd = (x: number) => `${x.toFixed(2)} USD/h`;

/**
 * The record's mixPlan and the engine's limits for one target at `now`. Worked example
 * (tests/functions/mix-floor.test.ts): a plan of 6 on-demand above 2 committed and 2 spot in each
 * of 3 pools; a need of 10 over the next 15 minutes: 12, since 12 under the plan runs 6 spot, 2
 * a pool, and losing one leaves 10.
 */
export function mixLimitsAt(
  t: TargetPolicy,
  held: HeldPlan,
  floor: ForecastFloor | undefined,
  now: number,
): MixPlanInput {
  const budget = held.policy.mix.maxUsdPerHour ?? null;
  const { plan, ceiling } = held;
  if (!plan)
    return {
      capacity: null,
      planCapacity: null,
      committed: null,
      ceiling: null,
      maxUsdPerHour: budget,
      usdPerHour: null,
      detail: `${held.missing}: no mix floor or ceiling`,
    };
  // A replacement is a scale-out: the lead the floor was planned over (measured) unless configured longer.
  const lead = replacementLeadMinutes(held.policy.mix.replacementLeadTimeMinutes, floor?.leadTimeMinutes);
  const need = plan.spot > 0 ? needOver(t, floor, now, lead) : null;
  const capacity = need === null ? null : lossCoverFloor(held.policy, plan, need);
  const floorPart =
    plan.spot === 0
      ? 'no spot in the plan in force, so no loss cover to hold'
      : capacity === null
        ? 'no fresh forecast floor to size the loss cover on'
        : `held at ${capacity} or more: losing its largest spot pool leaves the ${need} the forecast needs over the next ${lead} min`;
  const budgetPart =
    ceiling === null || budget === null ? 'no budget' : `the budget of ${usd(budget)} pays for ${ceiling}`;
  const committed = plan.committed > 0 ? plan.committed : null;
  const committedPart =
    committed === null ? '' : `; ${committed} committed, paid whether they run or not, held running`;
  const headroom = spotHeadroomOf(held.policy, plan);
  const headroomPart =
    headroom > 0 ? `; ${headroom} spot held beyond what the load asks (overProvision)` : '';
  return {
    capacity,
    planCapacity: plan.capacity,
    committed,
    ceiling,
    maxUsdPerHour: budget,
    usdPerHour: plan.usdPerHour,
    ...(headroom > 0 && { spotHeadroom: headroom }),
    detail: `plan in force: ${plan.capacity} instances, ${plan.spot} spot (${usd(plan.usdPerHour)}); ${floorPart}${committedPart}${headroomPart}; ${budgetPart}`,
  };
}
