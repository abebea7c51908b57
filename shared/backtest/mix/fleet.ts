/**
 * The simulated Auto Scaling group of a mix backtest: on-demand instances and spot instances per
 * pool, each ready or starting, and warned spot instances serving their last two minutes.
 *
 * It moves to a desired capacity the way a group with a MixedInstancesPolicy does: the
 * on-demand part of desired D is base + ceil((D - base) x onDemandPercentAboveBase / 100) (all
 * of D when D <= base); a launch fills the on-demand part first and spreads spot over the listed
 * pools that have capacity: to the zone with the fewest spot that has such a pool (Auto Scaling
 * balances its zones), then to that zone's pool with the fewest (the even spread
 * docs/capacity-mix.md assumes of price-capacity-optimized); a spot launch with no listed pool
 * able to give one fails, and the group stays short until the next minute's try. A decrease
 * removes from the part above its share first, starting instances before ready ones, spot from
 * the largest zone's largest pool.
 *
 * Warned instances: with `detachOnWarning` (Governor's handler, DetachInstances keeping desired)
 * they leave the group's count at once, so their replacement launches at the warning; without
 * it (a group left to itself) they count until they terminate, and are replaced then.
 */

interface Batch {
  at: number;
  count: number;
}

class Part {
  ready = 0;
  readonly pending: Batch[] = [];

  get starting(): number {
    let n = 0;
    for (const b of this.pending) n += b.count;
    return n;
  }

  get total(): number {
    return this.ready + this.starting;
  }

  add(count: number, at: number): void {
    const last = this.pending.at(-1);
    if (last?.at === at) last.count += count;
    else this.pending.push({ at, count });
  }

  promote(minute: number): void {
    while (this.pending.length > 0 && this.pending[0]!.at <= minute)
      this.ready += this.pending.shift()!.count;
  }

  /** Removes up to n, the latest-started first, then ready ones; returns how many went. */
  remove(n: number): number {
    let left = n;
    while (left > 0 && this.pending.length > 0) {
      const last = this.pending.at(-1)!;
      const k = Math.min(left, last.count);
      last.count -= k;
      left -= k;
      if (last.count === 0) this.pending.pop();
    }
    const k = Math.min(left, this.ready);
    this.ready -= k;
    return n - (left - k);
  }
}

/** The MixedInstancesPolicy in force, as the simulated group reads it. */
export interface GroupMix {
  onDemandBase: number;
  onDemandPercentAboveBase: number;
  /** Indexes of the pools listed for spot (empty: no spot). */
  spotPools: readonly number[];
}

export const ALL_ON_DEMAND: GroupMix = { onDemandBase: 0, onDemandPercentAboveBase: 100, spotPools: [] };

export function onDemandPart(desired: number, mix: GroupMix): number {
  if (mix.spotPools.length === 0 || desired <= mix.onDemandBase) return desired;
  return mix.onDemandBase + Math.ceil(((desired - mix.onDemandBase) * mix.onDemandPercentAboveBase) / 100);
}

export interface LaunchOutcome {
  /** Spot instances the group could not launch: no listed pool had capacity. */
  failedSpot: number;
}

export class MixFleet {
  readonly onDemand = new Part();
  readonly spot: Part[];
  /** Warned spot instances: pool, the minute they terminate, how many. */
  readonly #warned: { pool: number; at: number; count: number }[] = [];
  readonly #coldStart: number;
  readonly #detachOnWarning: boolean;

  /** Each pool's zone (index); default: one zone. */
  readonly #zoneOf: readonly number[];

  constructor(options: {
    pools: number;
    initialOnDemand: number;
    coldStartMinutes: number;
    detachOnWarning: boolean;
    zoneOf?: readonly number[];
  }) {
    this.spot = Array.from({ length: options.pools }, () => new Part());
    this.#zoneOf = options.zoneOf ?? this.spot.map(() => 0);
    this.onDemand.ready = options.initialOnDemand;
    this.#coldStart = options.coldStartMinutes;
    this.#detachOnWarning = options.detachOnWarning;
  }

  promote(minute: number): void {
    this.onDemand.promote(minute);
    for (const p of this.spot) p.promote(minute);
    for (let i = this.#warned.length - 1; i >= 0; i--)
      if (this.#warned[i]!.at <= minute) this.#warned.splice(i, 1);
  }

  /** Warned instances still serving, per pool. */
  warnedIn(pool: number): number {
    let n = 0;
    for (const w of this.#warned) if (w.pool === pool) n += w.count;
    return n;
  }

  get warned(): number {
    let n = 0;
    for (const w of this.#warned) n += w.count;
    return n;
  }

  get spotTotal(): number {
    let n = 0;
    for (const p of this.spot) n += p.total;
    return n;
  }

  /** Serving now: ready instances and warned ones in their notice. */
  get ready(): number {
    let n = this.onDemand.ready + this.warned;
    for (const p of this.spot) n += p.ready;
    return n;
  }

  get pending(): number {
    let n = this.onDemand.starting;
    for (const p of this.spot) n += p.starting;
    return n;
  }

  /** What the group counts towards its desired capacity. */
  get counted(): number {
    return this.onDemand.total + this.spotTotal + (this.#detachOnWarning ? 0 : this.warned);
  }

  /** A reclaim: `count` of the pool's instances get the two-minute warning (ready ones first). */
  warn(pool: number, count: number, minute: number, noticeMinutes: number): number {
    const part = this.spot[pool]!;
    const fromReady = Math.min(count, part.ready);
    part.ready -= fromReady;
    if (fromReady > 0) this.#warned.push({ pool, at: minute + noticeMinutes, count: fromReady });
    // A starting instance reclaimed never serves: it is gone at once.
    return fromReady + part.remove(Math.min(count - fromReady, part.starting));
  }

  /** Moves towards `desired` under `mix`; `dry(pool)` says a pool has no spot to give now. */
  scaleTo(desired: number, mix: GroupMix, minute: number, dry: (pool: number) => boolean): LaunchOutcome {
    const counted = this.counted;
    const wantOnDemand = onDemandPart(desired, mix);
    if (desired < counted) {
      let excess = counted - desired;
      const spotOver = Math.max(0, this.spotTotal - (desired - wantOnDemand));
      excess -= this.#removeSpot(Math.min(excess, spotOver));
      excess -= this.onDemand.remove(excess);
      this.#removeSpot(excess);
      return { failedSpot: 0 };
    }
    let deficit = desired - counted;
    const onDemand = Math.min(deficit, Math.max(0, wantOnDemand - this.onDemand.total));
    if (onDemand > 0) this.onDemand.add(onDemand, minute + this.#coldStart);
    deficit -= onDemand;
    const open = mix.spotPools.filter((p) => !dry(p));
    // A group listing no spot pool launches the rest on-demand (its share is 100 %).
    if (mix.spotPools.length === 0) {
      if (deficit > 0) this.onDemand.add(deficit, minute + this.#coldStart);
      return { failedSpot: 0 };
    }
    for (; deficit > 0 && open.length > 0; deficit--)
      this.spot[this.#nextPool(open)]!.add(1, minute + this.#coldStart);
    return { failedSpot: deficit };
  }

  /** Spot in zone z, starting included. */
  #inZone(z: number): number {
    let n = 0;
    this.spot.forEach((p, i) => {
      if (this.#zoneOf[i] === z) n += p.total;
    });
    return n;
  }

  /** Where the next spot instance goes: the zone with the fewest among `open`'s, then its pool with the fewest. */
  #nextPool(open: readonly number[]): number {
    const zone = open
      .map((p) => this.#zoneOf[p]!)
      .reduce((a, b) => (this.#inZone(b) < this.#inZone(a) ? b : a));
    return open
      .filter((p) => this.#zoneOf[p] === zone)
      .reduce((a, b) => (this.spot[b]!.total < this.spot[a]!.total ? b : a));
  }

  /**
   * SpotHedge's move (spothedge.ts): `base` on-demand always (SkyServe's
   * base_ondemand_fallback_replicas), more when spot would pass `maxSpotPercent` of the instances
   * run (the policy's spot.maxPercent, which binds every strategy), and the rest of `target` plus `extra` on spot, spread over
   * the listed pools that have capacity, fewest first; on-demand above the base only for what spot
   * cannot give. It launches when the spot the group has, ready or starting, falls short, and
   * leaves once ready spot covers the rest (a fallback goes when its replacement serves).
   */
  hedgeTo(
    target: number,
    hedge: { base: number; extra: number; pools: readonly number[]; maxSpotPercent: number },
    minute: number,
    dry: (pool: number) => boolean,
  ): LaunchOutcome {
    // On-demand enough that spot stays within maxSpotPercent of the instances run, extra included.
    const capped = target + hedge.extra - Math.floor(((target + hedge.extra) * hedge.maxSpotPercent) / 100);
    const base = Math.min(Math.max(hedge.base, capped), target);
    const wantSpot = hedge.pools.length > 0 ? target - base + hedge.extra : 0;
    if (this.spotTotal > wantSpot) this.#removeSpot(this.spotTotal - wantSpot);
    let deficit = wantSpot - this.spotTotal;
    const open = hedge.pools.filter((p) => !dry(p));
    for (; deficit > 0 && open.length > 0; deficit--)
      this.spot[this.#nextPool(open)]!.add(1, minute + this.#coldStart);
    let spotReady = 0;
    for (const p of this.spot) spotReady += p.ready;
    const launch = Math.max(base, target - this.spotTotal) - this.onDemand.total;
    if (launch > 0) this.onDemand.add(launch, minute + this.#coldStart);
    const keep = base + Math.max(0, target - base - spotReady);
    if (this.onDemand.total > keep) this.onDemand.remove(this.onDemand.total - keep);
    return { failedSpot: deficit };
  }

  /** Removes up to n spot instances, from the largest zone's largest pool first. */
  #removeSpot(n: number): number {
    let left = n;
    while (left > 0 && this.spotTotal > 0) {
      const held = this.spot.map((_, i) => i).filter((i) => this.spot[i]!.total > 0);
      const zone = held
        .map((i) => this.#zoneOf[i]!)
        .reduce((a, b) => (this.#inZone(b) > this.#inZone(a) ? b : a));
      const largest = held
        .filter((i) => this.#zoneOf[i] === zone)
        .reduce((a, b) => (this.spot[b]!.total > this.spot[a]!.total ? b : a));
      left -= this.spot[largest]!.remove(1);
    }
    return n - left;
  }
}
