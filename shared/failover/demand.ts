/**
 * How many instances a region must have ready before traffic moves onto it: its share of the
 * group's recent demand once the move is complete. Demand per region is the forecast p90 where
 * there is one, else the recent peak, in instances (the members run the same instance type).
 *
 * needed(r) = ceil(total demand x final weight(r) / 100), within r's min and maxCapacity.
 * Primary at a p90 of 11.2 instances, standby at 0, failover to the standby: ceil(11.2) = 12.
 */
import type { ResolvedGroup } from './group.ts';
import type { FailoverObservation, Weights } from './types.ts';

export interface Needed {
  /** Instances by target id, for the regions gaining traffic. */
  byTarget: Record<string, number>;
  /** A region carrying the moving traffic had no demand figure: the gaining ones go to maxCapacity. */
  unknown: boolean;
  /** Some region's need was cut to its maxCapacity. */
  clamped: boolean;
}

const demandOf = (obs: FailoverObservation, region: string): number | null => {
  const d = obs.regions[region]?.demand;
  const v = d?.forecastP90Instances ?? d?.recentPeakInstances;
  return v !== undefined && Number.isFinite(v) && v >= 0 ? v : null;
};

/**
 * `senders` carry the traffic that moves (the failed source, or on failback the regions that took
 * it); `gaining` receive it; `final` is the weights once the move is complete. `ignore`: regions
 * whose demand figure is left out of the total (the re-sizing of a prescale leaves out standbys
 * that serve nothing: their figure can only be their own prescale, which would feed on itself).
 */
export function neededCapacity(
  group: ResolvedGroup,
  obs: FailoverObservation,
  senders: readonly string[],
  gaining: readonly string[],
  final: Weights,
  ignore: readonly string[] = [],
): Needed {
  const unknown = senders.some((r) => demandOf(obs, r) === null);
  const total = group.members
    .filter((m) => !ignore.includes(m.region))
    .reduce((s, m) => s + (demandOf(obs, m.region) ?? 0), 0);
  const byTarget: Record<string, number> = {};
  let clamped = false;
  for (const m of group.members.filter((x) => gaining.includes(x.region))) {
    // 1e-9: 3 x 100 / 100 must stay 3, not round up on float noise.
    const want = unknown ? m.maxCapacity : Math.ceil((total * (final[m.region] ?? 0)) / 100 - 1e-9);
    if (!unknown && want > m.maxCapacity) clamped = true;
    byTarget[m.targetId] = Math.min(m.maxCapacity, Math.max(m.minCapacity, m.warmFloor, want));
  }
  return { byTarget, unknown, clamped };
}
