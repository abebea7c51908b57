/**
 * The burst floor's demand as a target's state item stores it (`burstDemand`, beside the noise):
 * measured hourly by the forecast function from the one-minute demand it reads anyway
 * (measureBurstDemand, shared/slo/burst-floor.ts), read by the evaluator with the rest of the item
 * and applied every minute while the floor stands (functions/evaluate/slo.ts). Pure: which targets
 * it is measured for, over how many minutes, and when a stored one is due again.
 */
import { REFRESH_SLACK_MINUTES } from '../floors/forecast.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import type { SloControl } from '../policy/slo-schema.ts';
import { BURST_MEASURE_MINUTES, type BurstDemand, BurstDemandSchema } from '../slo/burst-floor.ts';
import { sloOf } from '../slo/objective.ts';

/** The stored form is the measurement itself: demand, quantile, minutes, measuredAt (about 90 bytes). */
export const StoredBurstDemandSchema = BurstDemandSchema;
export type StoredBurstDemand = BurstDemand;

/** What a target's measurement reads: the objective's share of good minutes and the resolved control. */
export interface BurstMeasure {
  objective: number;
  control: SloControl;
  /** Minutes of one-minute demand the quantile is read over (burstFloor.windowMinutes). */
  windowMinutes: number;
}

/**
 * The measurement's inputs, or null when the target's burst floor can never stand, so measuring
 * would be a read for nothing: no SLO control (no latency signal, or control off),
 * burstFloor.enabled false, or no instanceCapacity.requestsPerMinuteAtSlo (the floor is the demand
 * over it; burstFloor() stands down without it). The backtest measures for the same targets
 * (shared/backtest/policies/governor.ts, budgetControl: `burstOn`).
 */
export function burstMeasureOf(t: TargetPolicy): BurstMeasure | null {
  const slo = sloOf(t);
  const control = slo.control;
  if (!control?.burstFloor.enabled || t.instanceCapacity?.requestsPerMinuteAtSlo === undefined) return null;
  return { objective: slo.minutes, control, windowMinutes: control.burstFloor.windowMinutes };
}

/**
 * Whether a stored measurement stands until the next run: younger than BURST_MEASURE_MINUTES
 * less REFRESH_SLACK_MINUTES (55 minutes: the hourly run drifts by seconds), so every hourly run
 * measures again, as the backtest does at every whole hour of delivered minutes.
 */
export const isBurstDemandFresh = (stored: StoredBurstDemand | undefined, now: number): boolean =>
  stored !== undefined && now - stored.measuredAt < (BURST_MEASURE_MINUTES - REFRESH_SLACK_MINUTES) * 60_000;
