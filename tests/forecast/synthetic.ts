/**
 * Synthetic demand with known parts, for the forecaster's tests: a daily cycle, a weekend dip,
 * a trend, multiplicative noise, gaps and spikes. Deterministic: a seeded generator.
 */

export interface SyntheticOptions {
  days: number;
  /** Requests per minute at the daily mean on a weekday, before trend. */
  base?: number;
  /** Relative amplitude of the daily cycle: 0.5 swings from 0.5 x to 1.5 x, peaking at 18:00. */
  dailyAmplitude?: number;
  /** Saturday and Sunday demand as a fraction of weekdays (minute 0 is a Monday 00:00). */
  weekendFactor?: number;
  /** Growth per day: 0.03 is +3 % a day, compounding. */
  trendPerDay?: number;
  /** Standard deviation of per-minute log noise. */
  noise?: number;
  seed?: number;
}

/** mulberry32: a small seeded PRNG, so every test run sees the same series. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draws from a uniform generator (Box-Muller). */
export function normal(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export function truthAt(minute: number, o: SyntheticOptions): number {
  const day = Math.floor(minute / 1440);
  const weekend = day % 7 >= 5 ? (o.weekendFactor ?? 1) : 1;
  const cycle = 1 + (o.dailyAmplitude ?? 0.5) * Math.sin(2 * Math.PI * ((minute % 1440) / 1440 - 0.5));
  return (o.base ?? 100) * (1 + (o.trendPerDay ?? 0)) ** (minute / 1440) * weekend * cycle;
}

/** Per-minute request counts over days x 1440 minutes (minute 0: Monday 00:00). */
export function synthetic(o: SyntheticOptions): number[] {
  const draw = normal(rng(o.seed ?? 1));
  const sigma = o.noise ?? 0.1;
  return Array.from({ length: o.days * 1440 }, (_, m) =>
    Math.round(truthAt(m, o) * Math.exp(sigma * draw())),
  );
}

/** The true mean rate of each five-minute bin from `fromMinute`, for `bins` bins. */
export function truthBins(fromMinute: number, bins: number, o: SyntheticOptions): number[] {
  return Array.from({ length: bins }, (_, b) => {
    let sum = 0;
    for (let i = 0; i < 5; i++) sum += truthAt(fromMinute + 5 * b + i, o);
    return sum / 5;
  });
}

/** Mean absolute relative error of a forecast against the truth. */
export function meanRelativeError(forecast: readonly number[], truth: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < truth.length; i++) sum += Math.abs(forecast[i]! - truth[i]!) / truth[i]!;
  return sum / truth.length;
}
