/**
 * Warm-pool sizing: how many pre-initialized instances to keep so that demand the forecast did
 * not provision for is served in warm-start time (seconds) instead of cold-start time (minutes).
 * Pure: the forecast's spread, the burst history and the costs in; a size, reason codes and
 * one sentence out.
 *
 * The rule is a newsvendor's. Over one cold-start window a warm instance costs
 * idleCostFraction x coldStartMinutes instance-minutes while it idles; when demand rises by at
 * least one more instance within the window, it serves (coldStartMinutes - warmStartMinutes)
 * minutes that would otherwise be short, each worth shortfallCostRatio instance-minutes. Keep
 * the k-th instance while P(rise >= k instances) is at least
 *   idleCostFraction x cold / (shortfallCostRatio x (cold - warm)),
 * so the pool covers the rise at quantile q = 1 - that. Worked example with the reference
 * scenario (idle 0.05, cold 8 min, warm 1 min, shortfall worth 1): 0.05 x 8 / 7 = 0.057, so the
 * pool covers the p94.3 rise (pinned by tests/forecast/warm-pool.test.ts).
 */
import * as z from 'zod';
import { median, normalQuantile, quantileOfSorted, sortedFinite } from '../forecast/stats.ts';
import { type Forecast, ForecastInputError } from '../forecast/types.ts';

export const WarmPoolInputSchema = z
  .object({
    forecastSpread: z
      .number()
      .min(0)
      .describe('Requests per minute between the forecast p99 and p50 over the lead time (leadTimeSpread).'),
    burstIncreases: z
      .array(z.number())
      .describe('Rises of demand within one cold-start window, requests per minute (burstIncreases).'),
    instanceCapacity: z.number().positive().describe('Requests per minute one instance serves at the SLO.'),
    coldStartMinutes: z.number().min(0),
    warmStartMinutes: z.number().min(0),
    idleCostFraction: z
      .number()
      .gt(0)
      .max(1)
      .default(0.05)
      .describe('Cost of an idle warm instance as a fraction of a running one (0.05: storage only).'),
    shortfallCostRatio: z
      .number()
      .positive()
      .default(1)
      .describe('Cost of one instance-minute of missing capacity, in instance-minutes of price.'),
    minPool: z.number().int().min(0).default(0),
    maxPool: z.number().int().min(0),
  })
  .strict()
  .refine((v) => v.minPool <= v.maxPool, { message: 'minPool must not exceed maxPool', path: ['minPool'] });
export type WarmPoolInput = z.input<typeof WarmPoolInputSchema>;

export type WarmPoolReason =
  | 'NoStartupGain'
  | 'NoUncertainty'
  | 'CoversForecastSpread'
  | 'CoversBursts'
  | 'ClampedToMax'
  | 'RaisedToMin';

export interface WarmPoolDecision {
  size: number;
  /** The primary reason first, then a clamp if one acted. */
  reasons: WarmPoolReason[];
  message: string;
  /** The quantile of the rise the pool covers (from the costs). */
  quantile: number;
  /** Requests per minute the pool covers: the larger of the two below. */
  coverRequestsPerMinute: number;
  fromForecast: number;
  fromBursts: number;
}

/** The covered quantile stays within [0.5, 0.999]: below the median a pool is noise, above it p99.9 is all the data says. */
const Q_MIN = 0.5;
const Q_MAX = 0.999;
const Z99 = normalQuantile(0.99);

/** The quantile of the rise worth covering, from the costs; null when a warm start saves nothing. */
export function coveredQuantile(cold: number, warm: number, idle: number, shortfall: number): number | null {
  if (cold <= warm) return null;
  const q = 1 - (idle * cold) / (shortfall * (cold - warm));
  return Math.min(Q_MAX, Math.max(Q_MIN, q));
}

/** 94 for 94.3, 2.5 for 2.5, 7 for 7.0: a number as the sentence needs it. */
const fmt = (x: number) => String(Number(x.toFixed(x >= 10 ? 0 : 1)));

function parse(input: WarmPoolInput) {
  const parsed = WarmPoolInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ForecastInputError(`warm pool ${issue.path.join('.')}: ${issue.message}`);
}

export function sizeWarmPool(input: WarmPoolInput): WarmPoolDecision {
  const v = parse(input);
  const q = coveredQuantile(v.coldStartMinutes, v.warmStartMinutes, v.idleCostFraction, v.shortfallCostRatio);
  const base = { quantile: q ?? 0, coverRequestsPerMinute: 0, fromForecast: 0, fromBursts: 0 };
  if (q === null) {
    const size = v.minPool;
    const message = `keep ${size} warm: a warm start (${v.warmStartMinutes} min) is no faster than a cold one (${v.coldStartMinutes} min)`;
    return { ...base, size, reasons: ['NoStartupGain'], message };
  }
  // The forecast gives p99 - p50; a normal tail scales it to q: x z(q) / z(0.99) (p94.3: x 0.68).
  const fromForecast = (v.forecastSpread * Math.max(0, normalQuantile(q))) / Z99;
  const rises = sortedFinite(v.burstIncreases.map((x) => Math.max(0, x)));
  const fromBursts = rises.length === 0 ? 0 : quantileOfSorted(rises, q);
  const cover = Math.max(fromForecast, fromBursts);
  const raw = Math.max(0, Math.ceil(cover / v.instanceCapacity - 1e-9));
  const size = Math.min(v.maxPool, Math.max(v.minPool, raw));
  const primary: WarmPoolReason =
    cover === 0 ? 'NoUncertainty' : fromForecast >= fromBursts ? 'CoversForecastSpread' : 'CoversBursts';
  const reasons: WarmPoolReason[] = [primary];
  if (raw > v.maxPool) reasons.push('ClampedToMax');
  else if (raw < v.minPool) reasons.push('RaisedToMin');
  const source =
    primary === 'NoUncertainty'
      ? 'neither the forecast spread nor the burst history shows a rise to cover'
      : `${primary === 'CoversBursts' ? 'bursts' : 'forecast uncertainty'} of ${fmt(cover)} req/min at p${(100 * q).toFixed(1)} need ${(cover / v.instanceCapacity).toFixed(2)} instances of ${fmt(v.instanceCapacity)} req/min`;
  const clamp = reasons[1]
    ? ` (${reasons[1] === 'ClampedToMax' ? `max ${v.maxPool}` : `min ${v.minPool}`})`
    : '';
  const message = `keep ${size} warm${clamp}: ${source}; one idles at ${fmt(100 * v.idleCostFraction)} % of its price and saves ${fmt(v.coldStartMinutes - v.warmStartMinutes)} min of start-up`;
  return { size, reasons, message, quantile: q, coverRequestsPerMinute: cover, fromForecast, fromBursts };
}

/** The largest p99 - p50 over the forecast steps that start within the lead time (at least the first). */
export function leadTimeSpread(f: Forecast, leadMinutes: number): number {
  const steps = Math.max(1, Math.min(f.point.length, Math.ceil(leadMinutes / f.stepMinutes)));
  let spread = 0;
  for (let k = 0; k < steps; k++) spread = Math.max(spread, f.quantiles.p99[k]! - f.quantiles.p50[k]!);
  return spread;
}

/**
 * Rises of demand within one window: for each minute t, the highest minute of the next
 * `windowMinutes` less the median of the `windowMinutes` up to t (what a scaler sized for just
 * now). Per-minute demand; missing minutes are skipped. Worked example: [10, 10, 10, 30, 10]
 * with window 2 gives 20 at t = 1 and t = 2 (the 30 ahead, the 10s behind).
 */
export function burstIncreases(demand: readonly number[], windowMinutes: number): number[] {
  const w = Math.floor(windowMinutes);
  if (!(w >= 1)) throw new ForecastInputError(`windowMinutes must be at least 1, got ${windowMinutes}`);
  const out: number[] = [];
  for (let t = w - 1; t + w < demand.length; t++) {
    const before = median(demand.slice(t - w + 1, t + 1));
    let peak = Number.NEGATIVE_INFINITY;
    for (let i = t + 1; i <= t + w; i++) if (Number.isFinite(demand[i]!)) peak = Math.max(peak, demand[i]!);
    if (Number.isFinite(before) && Number.isFinite(peak)) out.push(peak - before);
  }
  return out;
}
