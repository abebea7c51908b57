/**
 * Spot capacity pools as AWS keys them: an instance type in one Availability Zone
 * (docs/capacity-mix.md, "Pools: what Governor controls, what AWS does"). Pure.
 *
 * Governor does not place spot in a pool; it lists types (the MixedInstancesPolicy overrides) and
 * sets the spot percentage. Auto Scaling spreads the group over its zones, and
 * price-capacity-optimized picks pools within each zone. So the planner reasons on the spread the
 * group would get: spot over the zones that have an available pool of a listed type, evenly,
 * then within each zone over its available pools, evenly (the even-spread assumption,
 * docs/capacity-mix.md, "What is not built"). What one loss can take is measured on that spread,
 * rounded up twice (worst case: a zone gets the larger share, and within it a pool does).
 *
 * A pool key is "type@zone" ("g5.2xlarge@us-east-1b"); with no zones known it is the type alone,
 * which is a pool across the group's zones (the planner before issue 22, item 3). An unavailable
 * key without a zone leaves the type out everywhere; one with a zone leaves out that pool only.
 */
import type { SpotLossDomain } from '../policy/capacity-mix-schema.ts';
import type { MixPolicy } from './types.ts';

export const poolKey = (instanceType: string, zone: string | null): string =>
  zone ? `${instanceType}@${zone}` : instanceType;

/** "g5.2xlarge@us-east-1b" -> { type, zone }; "g5.2xlarge" -> zone null. */
export function parsePoolKey(key: string): { instanceType: string; zone: string | null } {
  const at = key.indexOf('@');
  return at < 0
    ? { instanceType: key, zone: null }
    : { instanceType: key.slice(0, at), zone: key.slice(at + 1) };
}

/** "2 g5.2xlarge in us-east-1b" style: the key as a sentence reads it. */
export function describePoolKey(key: string): string {
  const { instanceType, zone } = parsePoolKey(key);
  return zone ? `${instanceType} in ${zone}` : instanceType;
}

/** The pool is out: its type everywhere, or this type in this zone. */
export const poolUnavailable = (unavailable: readonly string[], type: string, zone: string | null): boolean =>
  unavailable.includes(type) || (zone !== null && unavailable.includes(poolKey(type, zone)));

/** The pools spot may go to, grouped by zone (zones with none left out), in the order given. */
export interface PoolLayout {
  zones: { zone: string | null; pools: string[] }[];
}

/** The available pools of `types` (in priority order) across `zones` (none: one unnamed zone). */
export function layoutOf(
  types: readonly string[],
  zones: readonly string[],
  unavailable: readonly string[] = [],
): PoolLayout {
  const named: (string | null)[] = zones.length > 0 ? [...zones] : [null];
  return {
    zones: named
      .map((zone) => ({
        zone,
        pools: types.filter((t) => !poolUnavailable(unavailable, t, zone)).map((t) => poolKey(t, zone)),
      }))
      .filter((z) => z.pools.length > 0),
  };
}

export const poolCount = (l: PoolLayout): number => l.zones.reduce((n, z) => n + z.pools.length, 0);

/** Loss domains of the layout: its pools, or its zones when a zone's spot is lost together. */
export const lossDomains = (l: PoolLayout, domain: SpotLossDomain): number =>
  domain === 'zone' ? l.zones.length : poolCount(l);

/**
 * Spot per pool: ceil(s / zones) to each zone in order until s is placed, then within a zone
 * ceil(n / pools) to each pool in order (7 over 3 zones of 2 pools: 3, 2, 2 by zone; 2+1, 1+1,
 * 1+1 by pool). Every available pool has an entry, 0 included.
 */
export function spreadOver(spot: number, l: PoolLayout): Record<string, number> {
  const out: Record<string, number> = {};
  const perZone = evenly(spot, l.zones.length);
  l.zones.forEach((z, i) => {
    const perPool = evenly(perZone[i]!, z.pools.length);
    z.pools.forEach((k, j) => {
      out[k] = perPool[j]!;
    });
  });
  return out;
}

/**
 * Part i of n over k parts: ceil(n / k) to each in order until n is placed (3 over 2: 2, 1).
 * A closed form, so a caller that only sums the parts builds no array (./cost-model.ts).
 */
export const evenShare = (n: number, k: number, i: number): number => {
  const each = Math.ceil(n / k);
  return Math.min(each, Math.max(0, n - i * each));
};

/** n over k parts, evenShare by evenShare. */
function evenly(n: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => evenShare(n, k, i));
}

/**
 * The most spot one loss can take, s spot spread over the layout: a zone's worst share,
 * ceil(s / zones), and with domain 'pool' that share over the zone's fewest pools, rounded up
 * (s = 7, 3 zones of 3 pools: a zone holds at most 3, a pool at most 1). 0 without a pool.
 */
export function largestLoss(spot: number, l: PoolLayout, domain: SpotLossDomain): number {
  if (spot <= 0 || l.zones.length === 0) return 0;
  const zoneShare = Math.ceil(spot / l.zones.length);
  if (domain === 'zone') return zoneShare;
  let fewest = Number.POSITIVE_INFINITY;
  for (const z of l.zones) fewest = Math.min(fewest, z.pools.length);
  return Math.ceil(zoneShare / fewest);
}

/**
 * The spot share the plan may run, percent: spot.maxPercent, capped by spot.maxPoolShare x the
 * loss domains of the layout (25 % a pool over 2 types in 1 zone: 50 %; over 9 pools: no cap
 * below maxPercent 70). 0: no spot. `capped` false ignores maxPoolShare (to tell when it binds).
 */
export function spotPercentFor(p: MixPolicy, layout: PoolLayout, capped = true): number {
  const spot = p.mix.spot;
  if (!spot) return 0;
  const share = capped ? spot.maxPoolShare : undefined;
  if (share === undefined) return spot.maxPercent;
  return Math.min(spot.maxPercent, share * lossDomains(layout, spot.lossDomain));
}

/** The most spot one loss takes, s spot over the layout (one pool, or one zone). */
export const lossOf = (p: MixPolicy, spot: number, layout: PoolLayout): number =>
  largestLoss(spot, layout, p.mix.spot?.lossDomain ?? 'pool');

/**
 * The policy as the plan in force was made: when capacityMix.zones lists none but the plan was
 * spread over zones (the mix function read them from the group: functions/mix/zones.ts), the
 * policy with those zones, so a shift re-plans over the same pools and a shortage in one zone
 * leaves out that zone's pools only. Otherwise the policy as it is.
 */
export function zonedAsPlanned(policy: MixPolicy, plan: { pools?: readonly string[] } | null): MixPolicy {
  if (policy.mix.zones?.length || !plan?.pools) return policy;
  const zones = zonesOfPools(plan.pools);
  if (zones.length === 0) return policy;
  return { ...policy, mix: { ...policy.mix, zones } };
}

/** The zones pool keys name, each once, sorted (a key by type alone names none). */
export function zonesOfPools(pools: readonly string[]): string[] {
  const zones = new Set<string>();
  for (const k of pools) {
    const { zone } = parsePoolKey(k);
    if (zone !== null) zones.add(zone);
  }
  return [...zones].sort();
}
