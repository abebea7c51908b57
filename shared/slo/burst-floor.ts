/**
 * The burst floor: standing capacity for bursts shorter than a scale-out. The error-budget
 * control buys headroom by lowering the load targets, which answers traffic that rises for longer
 * than a scale-out takes; a burst that is over before new capacity serves (a five-minute surge
 * against an eight-minute cold start) is answered by nothing that scales, only by capacity that
 * is already there. Then the control sits at its most headroom (minTargetFactor) and the budget
 * still burns: every burst sends a scale-out that arrives after it, sized by the lowered targets,
 * and the objective is missed at a price above a fleet held at its peak (docs/slo.md, "The burst
 * floor").
 *
 * Two parts, as the shells run them:
 * - measureBurstDemand, hourly where the demand history is read (the forecast function in AWS,
 *   beside the noise fit; the backtest's look-ahead at the same cadence): the demand of the last
 *   windowMinutes at the quantile the objective must cover, 1 - (1 - objective) x spendTarget
 *   (99.6 % at the defaults: a fleet holding it would spend spendTarget of the budget if the
 *   window came again);
 * - burstFloor, every evaluation: once the control is at its most headroom and the window's pace
 *   is above 1 (the objective is being missed over what has been seen), the floor stands, that
 *   demand over the SLO capacity of one instance, until windowMinutes pass without the trigger.
 *
 * While it stands, the load targets go back to the policy as written (when they stand lower)
 * wherever the floor already holds at least what the lowered targets would at the current level
 * (the fast window's median demand, SliLedger.fastLevel, over the planned requests per instance
 * times the factor): there the floor covers what the factor was buying, and the lowered targets
 * would only send a scale-out after each burst.
 * Where the level needs more than the floor (a daily peak above the bursts), the factor stays.
 *
 * Pure: the state goes in and comes out, time is an argument (epoch ms).
 */

import * as z from 'zod';
import type { BurstFloorRecord } from '../engine/types.ts';
import { quantileOfSorted, sortedFinite } from '../forecast/stats.ts';
import type { SloControl } from '../policy/slo-schema.ts';

/** How often the shells measure the demand quantile (the forecast function's noise cadence). */
export const BURST_MEASURE_MINUTES = 60;
/** Fewer finite minutes than this in the window: no measurement (the quantile would be a guess). */
export const MIN_MEASURED_MINUTES = 60;
/** A factor this close to minTargetFactor is at it (the control's steps are multiplications). */
const AT_BOUND = 1e-9;
const MINUTE_MS = 60_000;

/** The demand the floor covers, as measured from the history (stored beside the noise in AWS). */
export const BurstDemandSchema = z
  .object({
    /** Requests a minute at the quantile. */
    demand: z.number().min(0),
    /** The quantile of the window's minutes (0.996). */
    quantile: z.number().gt(0).lt(1),
    /** Finite minutes it was read from. */
    minutes: z.number().int().min(1),
    /** Epoch ms of the measurement. */
    measuredAt: z.number(),
  })
  .strict();
export type BurstDemand = z.infer<typeof BurstDemandSchema>;

export const BurstFloorStateSchema = z
  .object({
    /** Epoch ms until which the floor stands (a window after the last trigger); null: not standing. */
    standUntil: z.number().nullable(),
  })
  .strict();
export type BurstFloorState = z.infer<typeof BurstFloorStateSchema>;

export const initialBurstFloor = (): BurstFloorState => ({ standUntil: null });

/** The quantile of a window's demand the floor covers: 1 - (1 - objective) x spendTarget. */
export const burstQuantile = (objective: number, spendTarget: number): number =>
  1 - (1 - objective) * spendTarget;

/**
 * The demand the floor would cover: the burst quantile of the last windowMinutes of `demand`
 * (requests a minute, oldest first). Null with the floor off or fewer than MIN_MEASURED_MINUTES
 * finite minutes.
 */
export function measureBurstDemand(
  demand: ArrayLike<number>,
  objective: number,
  control: Pick<SloControl, 'spendTarget' | 'burstFloor'>,
  now: number,
): BurstDemand | null {
  if (!control.burstFloor.enabled) return null;
  const from = Math.max(0, demand.length - control.burstFloor.windowMinutes);
  const window = new Float64Array(demand.length - from);
  for (let i = from; i < demand.length; i++) window[i - from] = demand[i]!;
  const sorted = sortedFinite(window);
  if (sorted.length < MIN_MEASURED_MINUTES) return null;
  const quantile = burstQuantile(objective, control.spendTarget);
  return {
    demand: Math.max(0, quantileOfSorted(sorted, quantile)),
    quantile,
    minutes: sorted.length,
    measuredAt: now,
  };
}

export interface BurstFloorInput {
  now: number;
  /** The window's pace (BudgetStatus.pace): above 1, the objective is being missed over what has been seen. */
  pace: number;
  /** The budget control's factor this minute (at minTargetFactor: the most headroom). */
  budgetFactor: number;
  /** The factor the load targets stand at this minute (the budget's, or the forecast room's). */
  appliedFactor: number;
  control: Pick<SloControl, 'minTargetFactor' | 'burstFloor'>;
  /** The latest measurement (measureBurstDemand); null when there is none. */
  measured: BurstDemand | null;
  /** Requests a minute now: the fast window's median (the policy's units); null when unknown. */
  level: number | null;
  /** Requests a minute one instance serves at the SLO (instanceCapacity.requestsPerMinuteAtSlo). */
  requestsPerMinuteAtSlo: number | undefined;
  /** Requests a minute the load targets plan per instance (plannedRequestsPerInstance); null: unknown. */
  plannedRequestsPerInstance: number | null;
}

export interface BurstFloorDecision {
  /** The floor to hold; null when it does not stand. */
  floor: BurstFloorRecord | null;
  /** The load targets go back to the policy as written (the floor covers the factor's headroom). */
  asWritten: boolean;
  /** The instances the lowered targets would hold at the level; null when unknown or not standing. */
  lowered: number | null;
  state: BurstFloorState;
}

const NOT_STANDING = (state: BurstFloorState): BurstFloorDecision => ({
  floor: null,
  asWritten: false,
  lowered: null,
  state,
});

/** Whether this evaluation triggers the floor: the most headroom, and the objective missed so far. */
export const burstTriggered = (i: Pick<BurstFloorInput, 'pace' | 'budgetFactor' | 'control'>): boolean =>
  i.budgetFactor <= i.control.minTargetFactor + AT_BOUND && i.pace > 1;

export function burstFloor(prev: BurstFloorState | undefined, input: BurstFloorInput): BurstFloorDecision {
  const state = prev ?? initialBurstFloor();
  const settings = input.control.burstFloor;
  const rpm = input.requestsPerMinuteAtSlo;
  if (!settings.enabled || rpm === undefined || !(rpm > 0)) return NOT_STANDING(initialBurstFloor());
  const { now } = input;
  const windowMs = settings.windowMinutes * MINUTE_MS;
  const standUntil = burstTriggered(input) ? now + windowMs : state.standUntil;
  if (standUntil === null || now >= standUntil) return NOT_STANDING(initialBurstFloor());
  const next: BurstFloorState = { standUntil };
  const m = input.measured;
  // A measurement older than the window says nothing of the bursts the floor is for.
  if (!m || now - m.measuredAt > windowMs) return NOT_STANDING(next);
  const capacity = Math.ceil(m.demand / rpm);
  if (capacity <= 0) return NOT_STANDING(next);
  const planned = input.plannedRequestsPerInstance;
  const level = input.level;
  const lowered =
    planned !== null && planned > 0 && level !== null && Number.isFinite(level) && input.appliedFactor > 0
      ? Math.ceil(level / (planned * input.appliedFactor))
      : null;
  // Only ever leaner: with a room open (a factor of 1 or more) the targets already stand at or past the written ones.
  const asWritten = input.appliedFactor < 1 && lowered !== null && capacity >= lowered;
  return {
    floor: { capacity, demand: m.demand, quantile: m.quantile, until: standUntil, asWritten },
    asWritten,
    lowered,
    state: next,
  };
}
