/**
 * What the capacity floor needs, in instances, step by step: shared by the backtest's look-ahead
 * and the hourly forecast function, so both plan the same floor.
 *
 * - Quantile floor: the forecast quantile the policy names, planned at its requests per instance
 *   (the reactive target): what the reactive loop would hold if demand came as forecast.
 * - Noise floor: the forecast median plus noise.floorSigmas of its measured per-minute noise,
 *   at the SLO capacity of an instance: headroom that follows the traffic (a quiet night of
 *   small counts is relatively noisier than a busy afternoon; shared/sizing/noise-model.ts).
 * Each step needs the larger of the two. Before a forecast exists (under a day of history) the
 * last level plus its noise is the floor on its own (levelFloor).
 */
import { type NoiseModel, noisyDemand } from './noise-model.ts';

export interface FloorSizing {
  /** Requests per minute one instance is planned at for the quantile floor. */
  requestsPerInstance: number;
  /** Requests per minute one instance serves at the SLO, for the noise floor. */
  instanceCapacity: number;
  /** Standard deviations of measured noise the noise floor covers (0: none). */
  floorSigmas: number;
  /** The measured noise, or null when not yet measured (the noise floor is then 0). */
  noise: NoiseModel | null;
}

/** Fractional instances each forecast step needs: max(quantile floor, noise floor). */
export function stepNeeds(
  quantile: readonly number[],
  median: readonly number[],
  s: FloorSizing,
): Float64Array {
  const model = s.floorSigmas > 0 ? s.noise : null;
  return Float64Array.from(quantile, (q, i) =>
    Math.max(
      q / s.requestsPerInstance,
      model ? noisyDemand(model, median[i]!, s.floorSigmas) / s.instanceCapacity : 0,
    ),
  );
}

/**
 * Before a forecast exists: the median of the last `levelMinutes` minutes plus its noise, in
 * instances at the SLO capacity (not rounded); null without a noise model or enough minutes.
 */
export function levelFloor(recent: readonly number[], levelMinutes: number, s: FloorSizing): number | null {
  if (!s.noise || s.floorSigmas === 0) return null;
  const last = recent.slice(-levelMinutes).filter(Number.isFinite);
  if (last.length < levelMinutes) return null;
  last.sort((a, b) => a - b);
  const level = last[last.length >> 1]!;
  return noisyDemand(s.noise, level, s.floorSigmas) / s.instanceCapacity;
}
