/**
 * What the shell needs from a plan between two planner runs, pure:
 *  - replanFor(): the plan in force re-made for new spot availability (a pool ran dry, the
 *    breaker opened), on the demand it was sized for, so the interruption handler can shift a
 *    group at once without a forecast;
 *  - affordableCapacity(): the largest capacity the budget pays for when the group grows past
 *    the plan the way its MixedInstancesPolicy grows it: the capacity engine's ceiling;
 *  - lossCoverFloor(): the least capacity that, run under the plan's MixedInstancesPolicy,
 *    still serves a demand after losing its largest spot pool: the capacity engine's floor.
 *    Not the plan's own capacity, which is sized for the peak of the whole horizon: holding
 *    that for hours costs more than spot saves (docs/capacity-mix.md, "The backtest").
 */
import { committedUsdPerHour } from '../policy/capacity-mix-rules.ts';
import type { SpotLossDomain } from '../policy/capacity-mix-schema.ts';
import { spotUnder } from './hedge.ts';
import { mixFloor, plannedMix, spotPools } from './optimize.ts';
import { largestLoss, layoutOf, type PoolLayout, parsePoolKey } from './pools.ts';
import { listsSpot, type MixPlan, type MixPolicy, type SpotAvailability } from './types.ts';

/** The held plan re-planned for `availability` on the demand it was sized for (budget and floor kept). */
export function replanFor(policy: MixPolicy, held: MixPlan, availability: SpotAvailability): MixPlan {
  const cover = held.sizedFor;
  return plannedMix(
    policy,
    { p90Peak: Math.min(cover, held.capacity), p90LossCover: cover, p50Mean: 0 },
    availability,
  );
}

/**
 * USD per hour of one instance added above the plan: on-demand for the on-demand percentage
 * above base, spot for the rest at the mean spot price of the pools it lists (price-capacity-
 * optimized spreads it; the mean is the even-spread assumption of docs/capacity-mix.md).
 */
export function marginalUsdPerHour(policy: MixPolicy, plan: MixPlan): number {
  const overrides = plan.mixedInstancesPolicy.overrides;
  const listed = new Set(overrides.map((o) => o.instanceType));
  // On-demand launches the first override (prioritized): the committed type, else the cheapest.
  const first = policy.mix.pools.find((x) => x.instanceType === overrides[0]?.instanceType);
  const onDemand = (first ?? policy.mix.pools[0]!).onDemandUsdPerHour;
  const share = plan.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity / 100;
  const spot = spotPools(policy).filter((x) => listed.has(x.instanceType));
  const spotPrice =
    spot.length > 0 ? spot.reduce((s, x) => s + (x.spotUsdPerHour ?? 0), 0) / spot.length : onDemand;
  return share * onDemand + (1 - share) * spotPrice;
}

/**
 * The largest capacity within maxUsdPerHour when the group grows or shrinks from the plan at
 * the marginal price, never below the floor (the committed base and minCapacity) nor above
 * maxCapacity; null when there is no budget. At the plan's own capacity the cost is the plan's
 * usdPerHour (committed base included), so a plan within budget is always affordable.
 */
export function affordableCapacity(policy: MixPolicy, plan: MixPlan): number | null {
  const budget = policy.mix.maxUsdPerHour;
  if (budget === undefined) return null;
  const floor = mixFloor(policy);
  const each = marginalUsdPerHour(policy, plan);
  const committed = committedUsdPerHour(policy.mix);
  const extra = Math.floor((budget - plan.usdPerHour) / each + 1e-9);
  // Below the plan each removed instance saves `each`, but never the committed base's price.
  const byBudget = budget >= committed ? plan.capacity + extra : floor;
  return Math.min(policy.maxCapacity, Math.max(floor, byBudget));
}

/** Spot instances a group runs at capacity `d` under the plan's MixedInstancesPolicy. */
export const spotAt = (plan: MixPlan, d: number): number => spotUnder(plan.mixedInstancesPolicy, d);

/**
 * The pools a plan's group spreads spot over, by zone: the plan's own when it planned zones, else
 * its listed types in one zone (a plan with spot, or growing on spot, lists exactly its spot types).
 */
export function planLayout(plan: MixPlan): PoolLayout {
  if (!listsSpot(plan)) return { zones: [] };
  if (!plan.pools)
    return layoutOf(
      plan.mixedInstancesPolicy.overrides.map((o) => o.instanceType),
      [],
    );
  const byZone = new Map<string | null, string[]>();
  for (const key of plan.pools) {
    const { zone } = parsePoolKey(key);
    byZone.set(zone, [...(byZone.get(zone) ?? []), key]);
  }
  return { zones: [...byZone].map(([zone, pools]) => ({ zone, pools })) };
}

/** What one loss takes at capacity `d` (the largest pool, or zone with `domain` 'zone'), spread as planLayout says. */
export const largestPoolAt = (plan: MixPlan, d: number, domain: SpotLossDomain = 'pool'): number =>
  largestLoss(spotAt(plan, d), planLayout(plan), domain);

/**
 * The least capacity d >= need whose loss of its largest spot pool leaves `need` serving, under
 * the plan's MixedInstancesPolicy; at most maxCapacity (where one pool is too much to lose, the
 * ceiling wins and the plan's own loss-cover rule no longer holds: see the planner's ClampedToMax).
 */
export function lossCoverFloor(policy: MixPolicy, plan: MixPlan, need: number): number {
  const want = Math.max(0, Math.ceil(need - 1e-9));
  const domain = policy.mix.spot?.lossDomain ?? 'pool';
  for (let d = want; d < policy.maxCapacity; d++) if (d - largestPoolAt(plan, d, domain) >= want) return d;
  return policy.maxCapacity;
}
