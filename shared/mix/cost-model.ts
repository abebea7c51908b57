/**
 * What a plan costs, priced without building it (./optimize.ts searches every (types, spot) pair
 * and builds only the cheaper ones: building each was 40 % of a mix backtest), and the on-demand
 * priority both use. Pure.
 */

import { committedUsdPerHour } from '../policy/capacity-mix-rules.ts';
import type { CapacityPool } from '../policy/capacity-mix-schema.ts';
import { evenShare, type PoolLayout, parsePoolKey } from './pools.ts';
import type { MixPolicy } from './types.ts';

/** On-demand priority: the committed type first (its reservation applies), then cheapest. */
export const onDemandOrder = (p: MixPolicy, pools: readonly CapacityPool[]): CapacityPool[] => {
  const committed = p.mix.committed.instanceType;
  return [...pools].sort(
    (a, b) =>
      Number(b.instanceType === committed) - Number(a.instanceType === committed) ||
      a.onDemandUsdPerHour - b.onDemandUsdPerHour,
  );
};

/**
 * build()'s usdPerHour for `capacity` with `spot` over `layout`, without the plan: the same
 * terms summed in the same order (spot per pool as spreadOver places it, zone by zone, pool by
 * pool), so the figure is build's to the last bit (tests/mix/cost-model.test.ts).
 */
export function costModel(
  p: MixPolicy,
  listed: readonly CapacityPool[],
  layout: PoolLayout,
): (capacity: number, spot: number) => number {
  const ordered = onDemandOrder(p, listed);
  const price = new Map(ordered.map((x) => [x.instanceType, x.spotUsdPerHour ?? 0]));
  const prices = layout.zones.map((z) => z.pools.map((k) => price.get(parsePoolKey(k).instanceType) ?? 0));
  const onDemandPrice = ordered[0]?.onDemandUsdPerHour ?? 0;
  const committedUsd = committedUsdPerHour(p.mix);
  return (capacity, spot) => {
    let spotCost = 0;
    if (spot > 0) {
      prices.forEach((zone, i) => {
        const inZone = evenShare(spot, prices.length, i);
        zone.forEach((unit, j) => {
          spotCost += evenShare(inZone, zone.length, j) * unit;
        });
      });
    }
    const committed = Math.min(p.mix.committed.instances, capacity - spot);
    return committedUsd + Math.max(0, capacity - spot - committed) * onDemandPrice + spotCost;
  };
}
