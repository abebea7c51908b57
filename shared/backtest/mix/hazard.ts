/**
 * The spot weather of a mix backtest (docs/capacity-mix.md, "The backtest"): when each pool is
 * reclaimed, how much of it, and for how long it then has no spot to give. Drawn once per run
 * from a seed, so every strategy meets the same weather and two runs with one seed agree.
 *
 * Model. A pool's Spot Instance Advisor band is a monthly frequency of interruption f (the band's
 * middle: <5 % -> 2.5 %, ..., >20 % -> 25 %): an instance in it has a per-minute hazard
 * lambda = -ln(1 - f) / 43,200. AWS reclaims capacity pool by pool, so interruptions come in
 * events: a reclaim event takes each spot instance of the pool with probability
 * RECLAIM_SHARE, at a rate of lambda / RECLAIM_SHARE per minute, which keeps an instance's
 * hazard at lambda. After an event the pool runs dry for DRY_MINUTES: no spot launch succeeds in
 * it. `scale` multiplies lambda (10: ten times the band's rate).
 *
 * Zone-wide reclaims. A spot capacity pool is an instance type in one Availability Zone, and a
 * shortage in a zone tends to reach every type there at once. Each pool has a zone (`zoneOf`,
 * default one zone for all). With `zoneWide` = w, a share w of the hazard comes as zone events
 * instead: each zone has its own, at w times the mean event rate of its pools, and each takes
 * RECLAIM_SHARE of every pool of that zone at once and dries them all; each pool's own events keep
 * (1 - w) of its rate. A pool's hazard is unchanged when the bands are equal; what changes is
 * that a zone's losses arrive together. w = 0 draws exactly the weather of the pool-by-pool
 * model, and one zone exactly the weather of before zones (its draws in the same order).
 */
import { maxOf } from '../../arrays/extent.ts';
import { INTERRUPTION_BANDS, type InterruptionBand } from '../../policy/capacity-mix-schema.ts';
import { mulberry32 } from '../noise.ts';

export const BAND_MONTHLY_FREQUENCY: Record<InterruptionBand, number> = {
  '<5%': 0.025,
  '5-10%': 0.075,
  '10-15%': 0.125,
  '15-20%': 0.175,
  '>20%': 0.25,
};

/** Share of a pool's spot instances one reclaim event takes. */
export const RECLAIM_SHARE = 0.5;
/** Minutes a pool has no spot capacity after a reclaim event. */
export const DRY_MINUTES = 60;
/** Minutes between the interruption warning and the instance's termination. */
export const NOTICE_MINUTES = 2;
const MINUTES_PER_MONTH = 30 * 1440;

export { INTERRUPTION_BANDS };

/** An instance's per-minute interruption hazard in a band, times `scale`. */
export function hazardPerMinute(band: InterruptionBand, scale = 1): number {
  return (-Math.log(1 - BAND_MONTHLY_FREQUENCY[band]) / MINUTES_PER_MONTH) * scale;
}

export interface ReclaimEvent {
  minute: number;
  pool: number;
  /** Seed of the draws deciding which of the pool's instances this event takes. */
  seed: number;
}

export interface SpotWeather {
  /** Events by minute (most minutes have none). */
  events: Map<number, ReclaimEvent[]>;
  /** Per pool, the minute until which it is dry (exclusive), as a function of the minute. */
  dryUntil(pool: number, minute: number): number;
  count: number;
}

/** The reclaim events of `pools` over `minutes`, from `seed`. */
export function drawWeather(
  bands: readonly InterruptionBand[],
  minutes: number,
  seed: number,
  scale = 1,
  zoneWide = 0,
  zoneOf: readonly number[] = bands.map(() => 0),
): SpotWeather {
  if (!(zoneWide >= 0 && zoneWide <= 1))
    throw new RangeError(`zoneWide must be within 0..1, got ${zoneWide}`);
  const random = mulberry32(seed);
  const events = new Map<number, ReclaimEvent[]>();
  const byPool: number[][] = bands.map(() => []);
  const rates = bands.map((band) => Math.min(1, hazardPerMinute(band, scale) / RECLAIM_SHARE));
  const zones = Array.from({ length: rates.length > 0 ? maxOf(zoneOf, -1) + 1 : 0 }, (_, z) =>
    rates.map((_, pool) => pool).filter((pool) => zoneOf[pool] === z),
  );
  const zoneRates = zones.map((pools) =>
    pools.length > 0 ? (zoneWide * pools.reduce((a, pool) => a + rates[pool]!, 0)) / pools.length : 0,
  );
  let count = 0;
  const add = (m: number, pool: number) => {
    const event = { minute: m, pool, seed: Math.floor(random() * 2 ** 31) };
    events.set(m, [...(events.get(m) ?? []), event]);
    if (byPool[pool]!.at(-1) !== m) byPool[pool]!.push(m);
    count++;
  };
  for (let m = 0; m < minutes; m++) {
    for (let pool = 0; pool < bands.length; pool++)
      if (random() < rates[pool]! * (1 - zoneWide)) add(m, pool);
    if (zoneWide > 0)
      zones.forEach((pools, z) => {
        if (random() < zoneRates[z]!) for (const pool of pools) add(m, pool);
      });
  }
  return {
    events,
    count,
    dryUntil(pool, minute) {
      let until = Number.NEGATIVE_INFINITY;
      for (const at of byPool[pool]!) {
        if (at > minute) break;
        until = Math.max(until, at + DRY_MINUTES);
      }
      return until;
    },
  };
}

/** How many of `n` instances a reclaim event takes: each with probability RECLAIM_SHARE, drawn from its seed. */
export function reclaimedOf(n: number, event: ReclaimEvent): number {
  const random = mulberry32(event.seed);
  let taken = 0;
  for (let i = 0; i < n; i++) if (random() < RECLAIM_SHARE) taken++;
  return taken;
}
