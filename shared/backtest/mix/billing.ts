/**
 * What a mix backtest bills (run.ts): the prices of its simulated pools, and the oracle's row,
 * the least capacity each minute at the cheapest feasible mix with nothing lost to interruptions.
 */
import { minOf } from '../../arrays/extent.ts';
import { spotPools } from '../../mix/optimize.ts';
import type { MixPolicy } from '../../mix/types.ts';
import { committedUsdPerHour } from '../../policy/capacity-mix-rules.ts';
import type { BacktestPool } from './pools.ts';
import type { MixPricing, MixRunSummary } from './simulate.ts';

export function pricingOf(p: MixPolicy, pools: readonly BacktestPool[]): MixPricing {
  const committedType = p.mix.committed.instanceType;
  const onDemandPool =
    p.mix.pools.find((x) => x.instanceType === committedType) ??
    [...p.mix.pools].sort((a, b) => a.onDemandUsdPerHour - b.onDemandUsdPerHour)[0]!;
  return {
    onDemandUsdPerHour: onDemandPool.onDemandUsdPerHour,
    spotUsdPerHour: pools.map((x) => x.spotUsdPerHour),
    committedInstances: p.mix.committed.instances,
    committedUsdPerHour:
      p.mix.committed.instances > 0 ? committedUsdPerHour(p.mix) / p.mix.committed.instances : 0,
  };
}

/** The oracle's cost: the least capacity each minute, cheapest feasible mix, no interruption. */
export function oracleRun(
  capacity: readonly number[],
  p: MixPolicy,
  pricing: MixPricing,
  requests: number,
): MixRunSummary {
  const eligible = spotPools(p);
  const cheapest = minOf(eligible.map((x) => x.spotUsdPerHour ?? Number.POSITIVE_INFINITY));
  const share = (p.mix.spot?.maxPercent ?? 0) / 100;
  let committed = 0;
  let onDemand = 0;
  let spot = 0;
  let spotMinutes = 0;
  let running = 0;
  for (const c of capacity) {
    const s =
      eligible.length > 0 ? Math.min(Math.floor(c * share), Math.max(0, c - pricing.committedInstances)) : 0;
    committed += pricing.committedInstances * pricing.committedUsdPerHour;
    onDemand += Math.max(0, c - s - pricing.committedInstances) * pricing.onDemandUsdPerHour;
    spot += s * cheapest;
    spotMinutes += s;
    running += c;
  }
  const costUsd = (committed + onDemand + spot) / 60;
  return {
    name: 'oracle (cheapest mix)',
    costUsd,
    committedUsd: committed / 60,
    onDemandUsd: onDemand / 60,
    spotUsd: spot / 60,
    violationMinutes: 0,
    violationRatio: 0,
    costPer1kRequestsUsd: requests > 0 ? costUsd / (requests / 1000) : null,
    reclaimed: 0,
    failedSpotLaunches: 0,
    scalingActions: 0,
    spotShare: running > 0 ? spotMinutes / running : 0,
    instanceHours: running / 60,
    breakerTrips: 0,
  };
}
