/**
 * The cheapest mix that serves a demand, with no memory: which pools to list, how many spot
 * instances to spread over them, how many on-demand, and the MixedInstancesPolicy fields that
 * produce it. Damping is ./plan.ts's job.
 *
 * The loss cover: spot is spread evenly over the pools of the j listed types (./pools.ts: over
 * the group's zones, then over the types in each zone), and the plan's capacity minus what one
 * loss can take (the largest pool, or with spot.lossDomain 'zone' the largest zone) still serves
 * the p90 peak over the horizon plus the replacement lead time. So spot pays only when spread:
 * with spot at 40 % of on-demand, 2 pools of c each replace 2c on-demand by 2c spot plus c extra
 * spot instances (0.2 x on-demand x c an hour saved); 1 pool never pays
 * (tests/mix/optimize.test.ts). With spot.maxPoolShare P, one loss may take at most P % of the
 * capacity: the spot share is capped at P x the loss domains (pools, or zones) spot is spread
 * over, and the plan says PoolShareCapped when the cap makes it dearer or narrows that share.
 */
import { committedUsdPerHour } from '../policy/capacity-mix-rules.ts';
import { bandRank, type CapacityPool } from '../policy/capacity-mix-schema.ts';
import { costModel, onDemandOrder } from './cost-model.ts';
import { hedgedPlan } from './hedge.ts';
import {
  layoutOf,
  lossOf,
  type PoolLayout,
  parsePoolKey,
  poolCount,
  poolUnavailable,
  spotPercentFor,
  spreadOver,
} from './pools.ts';
import {
  ALL_SPOT_AVAILABLE,
  listsSpot,
  type MixDemand,
  type MixPlan,
  type MixPolicy,
  type MixReasonCode,
  type SpotAvailability,
} from './types.ts';

/** The smallest capacity the plan may have: the committed base and minCapacity (never above max). */
export const mixFloor = (p: MixPolicy): number =>
  Math.min(p.maxCapacity, Math.max(p.minCapacity, p.mix.committed.instances));

/**
 * Pools spot may go to, committed type first (it is always listed), then cheapest spot first.
 * None while the breaker is open; never a pool whose spot capacity ran out lately.
 */
export function spotPools(p: MixPolicy, availability: SpotAvailability = ALL_SPOT_AVAILABLE): CapacityPool[] {
  const spot = p.mix.spot;
  if (!spot || availability.breakerOpen) return [];
  const committed = p.mix.committed.instanceType;
  return p.mix.pools
    .filter(
      (x) =>
        poolCount(layoutOf([x.instanceType], p.mix.zones ?? [], availability.unavailablePools)) > 0 &&
        x.spotUsdPerHour !== undefined &&
        x.interruption !== undefined &&
        bandRank(x.interruption) <= bandRank(spot.maxInterruption),
    )
    .sort(
      (a, b) =>
        Number(b.instanceType === committed) - Number(a.instanceType === committed) ||
        (a.spotUsdPerHour ?? 0) - (b.spotUsdPerHour ?? 0) ||
        bandRank(a.interruption ?? '>20%') - bandRank(b.interruption ?? '>20%'),
    );
}

export interface Shape {
  capacity: number;
  spot: number;
  /** Listed pools (types); spot is spread over their available pools in `layout` when spot > 0. */
  pools: CapacityPool[];
  /** The available pools of the listed spot types, by zone (empty: no spot pool listed). */
  layout: PoolLayout;
  /**
   * No spot planned, but the group may grow past the plan's capacity on spot at spot.maxPercent
   * (the listed pools are all spot pools): what the capacity engine adds above the plan.
   */
  burst?: boolean;
}

const NO_LAYOUT: PoolLayout = { zones: [] };

/** The plan of one shape, priced (exported for the cost model's test). */
export function build(p: MixPolicy, shape: Shape, shapedBy: MixReasonCode[], capped = true): MixPlan {
  const { capacity, spot } = shape;
  const ordered = onDemandOrder(p, shape.pools);
  const committed = Math.min(p.mix.committed.instances, capacity - spot);
  const spotByPool = spot > 0 ? spreadOver(spot, shape.layout) : {};
  const price = new Map(ordered.map((x) => [x.instanceType, x.spotUsdPerHour ?? 0]));
  let spotCost = 0;
  for (const [key, n] of Object.entries(spotByPool))
    spotCost += n * (price.get(parsePoolKey(key).instanceType) ?? 0);
  const onDemandPrice = ordered[0]?.onDemandUsdPerHour ?? 0;
  const onDemand = capacity - spot;
  const maxPercent = spotPercentFor(p, shape.layout, capped);
  // Above-base size m = ceil(100 s / S): floor(m x S / 100) = s exactly, so the group runs s spot
  // at this capacity (s = 3, S = 50: m = 6, 3 of the 6 are spot); above it, at most S % are.
  const aboveBase = spot > 0 ? Math.ceil((100 * spot) / maxPercent) : 0;
  return {
    capacity,
    onDemand,
    committed,
    spot,
    spotByPool,
    largestSpotPool: lossOf(p, spot, shape.layout),
    ...(p.mix.zones && (spot > 0 || shape.burst)
      ? { pools: shape.layout.zones.flatMap((z) => z.pools) }
      : {}),
    mixedInstancesPolicy: {
      onDemandBaseCapacity: capacity - aboveBase,
      onDemandPercentageAboveBaseCapacity: spot > 0 || shape.burst ? 100 - maxPercent : 100,
      onDemandAllocationStrategy: 'prioritized',
      spotAllocationStrategy: 'price-capacity-optimized',
      overrides: ordered.map((x) => ({ instanceType: x.instanceType })),
    },
    // The commitment is billed whole even when fewer instances run (capacity below it cannot
    // happen: the floor includes it).
    usdPerHour: committedUsdPerHour(p.mix) + Math.max(0, onDemand - committed) * onDemandPrice + spotCost,
    sizedFor: 0, // stamped by plannedMix()
    shapedBy,
  };
}

/**
 * The plan with no spot at `capacity`: every instance of it on-demand (or committed). Above it,
 * where the capacity engine grows the group past the plan, spot at spot.maxPercent when spot may
 * be had: only the spot pools are listed then, which changes nothing below the plan as long as the
 * type on-demand launches first is one of them (else every pool is listed, all on-demand).
 */
function onDemandOnly(
  p: MixPolicy,
  capacity: number,
  shapedBy: MixReasonCode[],
  spot: readonly CapacityPool[] = [],
  availability: SpotAvailability = ALL_SPOT_AVAILABLE,
): MixPlan {
  const first = onDemandOrder(p, p.mix.pools)[0];
  const burst = spot.length > 0 && first !== undefined && spot.includes(first);
  const layout = burst ? layoutFor(p, spot, availability) : NO_LAYOUT;
  return build(p, { capacity, spot: 0, pools: burst ? [...spot] : p.mix.pools, layout, burst }, shapedBy);
}

/** The available pools of `types` across the policy's zones. */
const layoutFor = (p: MixPolicy, types: readonly CapacityPool[], a: SpotAvailability): PoolLayout =>
  layoutOf(
    types.map((x) => x.instanceType),
    p.mix.zones ?? [],
    a.unavailablePools,
  );

/**
 * Smallest capacity that holds s spot over `layout`: demand, loss cover (capacity minus one
 * loss), commitment, spot share, and with maxPoolShare one loss at most that share of it.
 */
function capacityFor(p: MixPolicy, d: MixDemand, s: number, layout: PoolLayout, capped: boolean): number {
  const loss = lossOf(p, s, layout);
  const share = capped ? p.mix.spot?.maxPoolShare : undefined;
  return Math.max(
    mixFloor(p),
    d.p90Peak,
    d.p90LossCover + loss,
    p.mix.committed.instances + s,
    Math.ceil((100 * s) / spotPercentFor(p, layout, capped)),
    share === undefined ? 0 : Math.ceil((100 * loss) / share),
  );
}

/** Why spot is narrower than the policy allows: the breaker, or pools out of capacity. */
function availabilityModifiers(p: MixPolicy, availability: SpotAvailability): MixReasonCode[] {
  if (!p.mix.spot) return [];
  if (availability.breakerOpen) return ['SpotBreakerOpen'];
  const zones: (string | null)[] = p.mix.zones ?? [null];
  const out = p.mix.pools.some((x) =>
    zones.some((z) => poolUnavailable(availability.unavailablePools, x.instanceType, z)),
  );
  return out ? ['PoolUnavailable'] : [];
}

/** The cheapest plan with spot over the first j spot types for some j, or `best` when none is cheaper. */
function cheapestSpot(
  p: MixPolicy,
  d: MixDemand,
  pools: readonly CapacityPool[],
  a: SpotAvailability,
  start: MixPlan,
  modifiers: MixReasonCode[],
  capped: boolean,
): MixPlan {
  let best = start;
  for (let j = 1; j <= pools.length; j++) {
    const listed = pools.slice(0, j);
    const layout = layoutFor(p, listed, a);
    if (spotPercentFor(p, layout, capped) < 1) continue;
    const cost = costModel(p, listed, layout);
    for (let s = 1; ; s++) {
      const capacity = capacityFor(p, d, s, layout, capped);
      if (capacity > p.maxCapacity) break;
      // Priced without building (build's own sum, term for term); only a cheaper plan is built.
      if (cost(capacity, s) < best.usdPerHour - 1e-9)
        best = build(p, { capacity, spot: s, pools: listed, layout }, modifiers, capped);
    }
  }
  return best;
}

/**
 * The cheapest plan serving `d` within maxCapacity, before the budget. Ties keep more on-demand.
 * PoolShareCapped when spot.maxPoolShare makes it dearer than the plan without the cap, or
 * narrows the spot share of the plan (or of the burst above a plan with none) below maxPercent.
 */
export function cheapestPlan(
  p: MixPolicy,
  d: MixDemand,
  availability: SpotAvailability = ALL_SPOT_AVAILABLE,
): MixPlan {
  const floor = mixFloor(p);
  const need = Math.max(floor, d.p90Peak);
  const modifiers: MixReasonCode[] = availabilityModifiers(p, availability);
  if (floor > d.p90Peak) modifiers.push('FloorHeld');
  if (need > p.maxCapacity) modifiers.push('ClampedToMax');
  const pools = spotPools(p, availability);
  const start = onDemandOnly(p, Math.min(need, p.maxCapacity), modifiers, pools, availability);
  const best = cheapestSpot(p, d, pools, availability, start, modifiers, true);
  const shapedBy = [...modifiers];
  if (best.spot === 0) shapedBy.push(pools.length === 0 ? 'OnDemandOnly' : 'SpotNotCheaper');
  if (p.mix.spot?.maxPoolShare !== undefined && listsSpot(best)) {
    const free = cheapestSpot(p, d, pools, availability, start, modifiers, false);
    const narrowed =
      best.mixedInstancesPolicy.onDemandPercentageAboveBaseCapacity > 100 - p.mix.spot.maxPercent;
    if (narrowed || free.usdPerHour < best.usdPerHour - 1e-9) shapedBy.push('PoolShareCapped');
  } else if (p.mix.spot?.maxPoolShare !== undefined && pools.length > 0) {
    const free = cheapestSpot(p, d, pools, availability, start, modifiers, false);
    if (free.usdPerHour < best.usdPerHour - 1e-9) shapedBy.push('PoolShareCapped');
  }
  // The loss cover and the growth past the plan on spot where that is cheaper (./hedge.ts).
  const listed = new Set(best.mixedInstancesPolicy.overrides.map((o) => o.instanceType));
  const layout = layoutFor(
    p,
    pools.filter((x) => listed.has(x.instanceType)),
    availability,
  );
  const hedged = hedgedPlan(p, best, layout, floor);
  if (hedged) shapedBy.push('SpotHedge');
  return { ...(hedged ?? best), shapedBy };
}

/**
 * cheapestPlan() within maxUsdPerHour: when it costs more, the demand served is lowered an
 * instance at a time until a plan fits; when none above the floor fits, the all-on-demand plan at
 * the floor (the committed base or minCapacity: never less). Reason BudgetCapped either way.
 */
export function plannedMix(
  p: MixPolicy,
  d: MixDemand,
  availability: SpotAvailability = ALL_SPOT_AVAILABLE,
): MixPlan {
  return { ...withinBudget(p, d, availability), sizedFor: d.p90LossCover };
}

function withinBudget(p: MixPolicy, d: MixDemand, availability: SpotAvailability): MixPlan {
  const plan = cheapestPlan(p, d, availability);
  const budget = p.mix.maxUsdPerHour;
  if (budget === undefined || plan.usdPerHour <= budget + 1e-9) return plan;
  const floor = mixFloor(p);
  for (let served = Math.min(d.p90LossCover, p.maxCapacity) - 1; served > floor; served--) {
    const capped = cheapestPlan(
      p,
      { ...d, p90Peak: Math.min(d.p90Peak, served), p90LossCover: Math.min(d.p90LossCover, served) },
      availability,
    );
    if (capped.usdPerHour <= budget + 1e-9) return { ...capped, shapedBy: ['BudgetCapped'] };
  }
  return onDemandOnly(p, floor, ['BudgetCapped']);
}
