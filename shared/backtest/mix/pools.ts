/**
 * The spot pools a mix backtest simulates: every (instance type, Availability Zone) pair of the
 * policy's pools and zones, zone by zone in the policy's type order (one zone: the types in order,
 * the pools of before zones). Each has its own reclaim weather (hazard.ts) and spot count
 * (fleet.ts); the group lists a type in every zone at once, as a MixedInstancesPolicy does.
 */
import type { MixPolicy } from '../../mix/types.ts';
import type { InterruptionBand } from '../../policy/capacity-mix-schema.ts';

export interface BacktestPool {
  instanceType: string;
  /** The zone's name, or null for the one zone of a policy without zones. */
  zone: string | null;
  /** The zone's index (0 when there are no zones). */
  zoneIndex: number;
  band: InterruptionBand;
  spotUsdPerHour: number;
}

/** Zone names of the reference mix, in order: `--zones N` takes the first N. */
export const REFERENCE_ZONE_NAMES = [
  'us-east-1a',
  'us-east-1b',
  'us-east-1c',
  'us-east-1d',
  'us-east-1e',
  'us-east-1f',
];

export function backtestPools(p: MixPolicy, fallbackBand: InterruptionBand): BacktestPool[] {
  const zones: (string | null)[] = p.mix.zones ?? [null];
  return zones.flatMap((zone, zoneIndex) =>
    p.mix.pools.map((x) => ({
      instanceType: x.instanceType,
      zone,
      zoneIndex,
      band: x.interruption ?? fallbackBand,
      spotUsdPerHour: x.spotUsdPerHour ?? x.onDemandUsdPerHour,
    })),
  );
}

/** Indexes of the pools of `types` (in every zone). */
export const poolIndexesOf = (pools: readonly BacktestPool[], types: Iterable<string>): number[] => {
  const wanted = new Set(types);
  return pools.flatMap((x, i) => (wanted.has(x.instanceType) ? [i] : []));
};
