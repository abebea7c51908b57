/**
 * The spot hedge: how the group holds what it runs away from the plan's own capacity, which is
 * most of the time. The capacity engine holds the plan's loss-cover floor below the plan
 * (shift.ts, lossCoverFloor) and grows the group past it for bursts and for the headroom the SLO
 * objective buys; in both the MixedInstancesPolicy decides how much of it is spot. Two ways to
 * write that policy, both running exactly the planned spot at the plan's capacity:
 *
 *  - the cover split (before issue 22): base c - ceil(100 s / S), S % spot above it (S: the spot
 *    share spot.maxPercent and spot.maxPoolShare allow, pools.ts). The on-demand base then falls
 *    below a committed base, and 100 - S % of every instance the engine adds is on demand: the loss
 *    cover is bought partly on demand.
 *  - the hedge split: the base raised towards the commitment (its instances are paid for anyway,
 *    so below the plan the group sheds spot first), and above it the on-demand share lowered as
 *    far as S % of spot still holds at every size up to maxCapacity: the worst case is maxCapacity,
 *    where spot is (M - b)(100 - P) / 100 of M, so P >= 100 - S M / (M - b). What the engine adds
 *    for the loss cover is then spot, spread over the pools other than the largest (the floor
 *    counts the hedge in what one loss takes), and on demand only where spot is dry.
 *
 * Priced, not assumed: the planner takes the hedge split only when the loss-cover floor it holds
 * costs no more than the cover split's, summed over the demands from the floor to the plan's
 * capacity (hedgeIsCheaper). Worked example (tests/mix/hedge.test.ts): 48 committed at 0.62, on
 * demand 1.52, spot 0.53 in nine pools, maxPercent 70, maxCapacity 80, a plan of 55 with 7 spot:
 * the cover split is base 45, 30 % on demand above it; the hedge split base 48, 0 % (at 80, 32 of
 * 80 spot: 40 % <= 70 %).
 */
import { lossOf, type PoolLayout, spotPercentFor } from './pools.ts';
import type { MixPlan, MixPolicy } from './types.ts';

export interface InstancesSplit {
  onDemandBaseCapacity: number;
  onDemandPercentageAboveBaseCapacity: number;
}

/** Spot a group runs at desired capacity `d` under `split` (Auto Scaling rounds the on-demand part up). */
export function spotUnder(split: InstancesSplit, d: number): number {
  const { onDemandBaseCapacity: base, onDemandPercentageAboveBaseCapacity: pct } = split;
  if (d <= base) return 0;
  const above = d - base;
  return above - Math.ceil((above * pct) / 100);
}

/** Before issue 22's hedge: base c - ceil(100 s / S), 100 - S % on demand above it (s spot at c exactly). */
export function coverSplit(capacity: number, spot: number, share: number): InstancesSplit {
  const aboveBase = spot > 0 ? Math.ceil((100 * spot) / share) : 0;
  return {
    onDemandBaseCapacity: capacity - aboveBase,
    onDemandPercentageAboveBaseCapacity: 100 - share,
  };
}

/** The least on-demand percentage above base b that keeps spot within S % at every size up to M. */
function leastPercent(base: number, share: number, maxCapacity: number): number {
  if (maxCapacity <= base) return 0;
  return Math.max(0, Math.ceil(100 - (share * maxCapacity) / (maxCapacity - base) - 1e-9));
}

/**
 * The hedge split for a plan of `capacity` with `spot` planned, `committed` of its on-demand
 * committed: the highest base from the commitment down to the cover split's whose least
 * percentage (leastPercent) still runs exactly `spot` at `capacity`; null when none differs from
 * the cover split (no commitment above its base, and no room below 100 - S).
 */
export function hedgeSplit(
  capacity: number,
  spot: number,
  committed: number,
  share: number,
  maxCapacity: number,
): InstancesSplit | null {
  const cover = coverSplit(capacity, spot, share);
  const top = Math.max(cover.onDemandBaseCapacity, Math.min(committed, capacity - spot));
  for (let base = top; base >= cover.onDemandBaseCapacity; base--) {
    const above = capacity - base;
    const onDemandAbove = above - spot;
    // Smallest P with ceil(above x P / 100) = onDemandAbove, raised to what maxCapacity needs.
    const exact = onDemandAbove > 0 ? Math.floor((100 * (onDemandAbove - 1)) / above) + 1 : 0;
    const pct = Math.max(exact, leastPercent(base, share, maxCapacity));
    if (Math.ceil((above * pct) / 100) !== onDemandAbove) continue;
    const split = { onDemandBaseCapacity: base, onDemandPercentageAboveBaseCapacity: pct };
    const same = base === cover.onDemandBaseCapacity && pct === cover.onDemandPercentageAboveBaseCapacity;
    return same ? null : split;
  }
  return null;
}

/** What a split costs and loses, for the priced choice. */
export interface HedgePricing {
  /** USD per hour of an on-demand instance beyond the commitment, and of a spot one (listed pools' mean). */
  onDemandUsdPerHour: number;
  spotUsdPerHour: number;
  committed: number;
  /** The most spot one loss takes, s spot over the plan's layout (pools.ts lossOf). */
  lossOf: (spot: number, layout: PoolLayout) => number;
  layout: PoolLayout;
  maxCapacity: number;
}

/** The least d >= need that still serves `need` after one loss under `split` (shift.ts lossCoverFloor's rule). */
export function floorUnder(split: InstancesSplit, need: number, pr: HedgePricing): number {
  for (let d = need; d < pr.maxCapacity; d++)
    if (d - pr.lossOf(spotUnder(split, d), pr.layout) >= need) return d;
  return pr.maxCapacity;
}

/** USD per hour of the group at desired `d` under `split` (the commitment's own price left out: the same either way). */
export function usdAt(split: InstancesSplit, d: number, pr: HedgePricing): number {
  const spot = spotUnder(split, d);
  return Math.max(0, d - spot - pr.committed) * pr.onDemandUsdPerHour + spot * pr.spotUsdPerHour;
}

/** At most this many demands are priced per choice (evenly strided): the choice runs once per plan. */
const PRICED_DEMANDS = 24;

/**
 * The hedge holds the loss cover for no more than the cover split does: the cost of each one's
 * loss-cover floor, summed over demands from `from` to `to` (the plan's floor to its capacity).
 */
export function hedgeIsCheaper(
  hedge: InstancesSplit,
  cover: InstancesSplit,
  from: number,
  to: number,
  pr: HedgePricing,
): boolean {
  const stride = Math.max(1, Math.ceil((to - from + 1) / PRICED_DEMANDS));
  let delta = 0;
  for (let need = Math.max(0, from); need <= to; need += stride)
    delta += usdAt(hedge, floorUnder(hedge, need, pr), pr) - usdAt(cover, floorUnder(cover, need, pr), pr);
  return delta <= 1e-9;
}

/**
 * The plan with the hedge split when there is one and it is the cheaper way to hold the loss
 * cover (hedgeIsCheaper, over the demands from `floor` to maxCapacity); else the plan as it is.
 * `layout`: the available pools of the plan's listed spot types (what build() spread spot over).
 */
export function hedgedPlan(p: MixPolicy, plan: MixPlan, layout: PoolLayout, floor: number): MixPlan | null {
  const mip = plan.mixedInstancesPolicy;
  if (mip.onDemandPercentageAboveBaseCapacity >= 100) return null;
  const share = spotPercentFor(p, layout);
  const hedge = hedgeSplit(plan.capacity, plan.spot, plan.committed, share, p.maxCapacity);
  if (hedge === null) return null;
  const listed = new Set(mip.overrides.map((o) => o.instanceType));
  const spot = p.mix.pools.filter((x) => listed.has(x.instanceType) && x.spotUsdPerHour !== undefined);
  const first = p.mix.pools.find((x) => x.instanceType === mip.overrides[0]?.instanceType);
  const pricing: HedgePricing = {
    onDemandUsdPerHour: first?.onDemandUsdPerHour ?? 0,
    spotUsdPerHour: spot.reduce((a, x) => a + (x.spotUsdPerHour ?? 0), 0) / Math.max(1, spot.length),
    committed: p.mix.committed.instances,
    lossOf: (s, l) => lossOf(p, s, l),
    layout,
    maxCapacity: p.maxCapacity,
  };
  const cover = {
    onDemandBaseCapacity: mip.onDemandBaseCapacity,
    onDemandPercentageAboveBaseCapacity: mip.onDemandPercentageAboveBaseCapacity,
  };
  if (!hedgeIsCheaper(hedge, cover, floor, p.maxCapacity, pricing)) return null;
  return { ...plan, mixedInstancesPolicy: { ...mip, ...hedge } };
}
