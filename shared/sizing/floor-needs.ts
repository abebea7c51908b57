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
 *
 * The floor holds steady in blocks (heldNeed): the backtest reads it minute by minute, the
 * forecast function stores it per five-minute step, and both read it from heldNeed, so AWS holds
 * the floor the backtest measured.
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

/**
 * The floor holds steady in blocks of this many minutes (on the forecast's clock: in AWS epoch
 * minutes, so blocks start at :00 and :30 UTC): within a block it covers the forecast to the
 * block's end plus the lead, so a ramp is met in one step per block instead of one per
 * five-minute step. NASA July, reference scenario (governor, example policy): 652 scaling
 * actions at 2.06x the oracle and 142 violation minutes in blocks of 30, 720 at 2.08x and 142 in
 * blocks of 5 (docs/forecast-aws.md, "The floor schedule").
 */
export const FLOOR_BLOCK_MINUTES = 30;

/**
 * Fractional instances the floor holds at `minute`: the largest need (stepNeeds, one per step of
 * `stepMinutes` from minute `origin`) from minute's step through the step of its block's end plus
 * `leadMinutes`, so what must serve lead minutes after the block is asked for at its start.
 * Steps outside the forecast read its first or last one.
 *
 * Worked example (pinned by tests/forecast-aws/floor.test.ts): needs 2.5, 3.2, 6.1, 9, 8.8, 4 per
 * five-minute step from minute 0, lead 10: minutes 0-29 are one block, whose end plus the lead
 * (minute 40) falls past the last step, so minute 0 holds 9 (the 900 at minute 15 is asked for
 * at the block's start) and minute 25 holds 4.
 */
export function heldNeed(
  needs: ArrayLike<number>,
  origin: number,
  stepMinutes: number,
  minute: number,
  leadMinutes: number,
): number {
  const last = needs.length - 1;
  const at = (t: number) => Math.min(last, Math.max(0, Math.floor((t - origin) / stepMinutes)));
  const blockEnd = Math.ceil((minute + 1) / FLOOR_BLOCK_MINUTES) * FLOOR_BLOCK_MINUTES;
  let peak = 0;
  for (let s = at(minute), end = at(blockEnd + leadMinutes); s <= end; s++) peak = Math.max(peak, needs[s]!);
  return peak;
}
