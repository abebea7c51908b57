/**
 * SpotHedge, the spot policy of SkyServe, as a baseline of `governor backtest --spot`:
 * Z. Mao, T. Xia, Z. Wu, W.-L. Chiang, T. Griggs, R. Bhardwaj, Z. Yang, S. Shenker, I. Stoica,
 * "SkyServe: Serving AI Models across Regions and Clouds with Spot Instances", EuroSys 2025
 * (arXiv:2411.01438), and SkyPilot's serving docs ("Using Spot Instances for Serving":
 * base_ondemand_fallback_replicas, dynamic_ondemand_fallback). Implemented from the paper's
 * description, not its code. Its three parts, and how each is read here:
 *   1. Spread over failure domains: spot replicas go to the pools (failure domains) that can give
 *      capacity, evenly; a pool that was just reclaimed is dry and gets none until it recovers
 *      (the paper's "preemptive" zones leave the active set). The same even spread and the same
 *      knowledge of which pools are dry as the simulated group's (fleet.ts).
 *   2. Over-provisioning: a fixed number of spot replicas beyond what the autoscaler asks
 *      (SPOTHEDGE_EXTRA_SPOT), so a preemption is covered while its replacement starts.
 *   3. Dynamic on-demand fallback: on-demand replicas for what spot cannot give right now (dry
 *      pools, a replacement still starting), dropped once ready spot covers the target again;
 *      and a base kept on-demand always (base_ondemand_fallback_replicas), here the committed base.
 * One addition the paper has no knob for: the policy's spot.maxPercent binds SpotHedge as it binds
 * every other row (spot at most that share of the instances run, the extra included; the rest
 * on-demand). At maxPercent 100 it is the paper's policy.
 * The number of replicas asked for comes from Governor's own capacity policy, so the row differs
 * from "governor + mix" only in how spot is held: a stronger bar than SkyServe's QPS autoscaler.
 * The paper's regions and clouds are Availability Zones and instance types here (one region).
 */
import type { Policy } from '../policies/types.ts';
import type { MixStrategy } from './simulate.ts';

/** Spot replicas kept beyond the target (the paper's N_extra; 2 is this project's choice). */
export const SPOTHEDGE_EXTRA_SPOT = 2;
export const SPOTHEDGE = 'SpotHedge (governor capacity)';

export function spotHedge(
  capacity: Policy,
  committed: number,
  pools: readonly number[],
  maxSpotPercent: number,
): MixStrategy {
  return {
    name: SPOTHEDGE,
    capacity,
    fixedMix: { onDemandBase: 0, onDemandPercentAboveBase: 100, spotPools: [] },
    detachOnWarning: true,
    hedge: { base: committed, extra: SPOTHEDGE_EXTRA_SPOT, pools, maxSpotPercent },
  };
}
