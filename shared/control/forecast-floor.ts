/**
 * The forecast floor: a demand forecast turned into a capacity schedule (written by the forecast
 * function), and the capacity of that schedule that applies now (read by the evaluator). Pure.
 *
 * Worked example (leadTimeMinutes 10, 100 requests per minute per instance, min 1, max 20):
 * p90 demand per step     250  320  610  900  880  400   (requests per minute)
 * instances per step        3    4    7    9    9    4   (ceil(demand / 100), clamped)
 * floor per step            7    9    9    9    9    4   (max over the step and the next 2)
 * Step i's floor covers [t, t + 10 min] for every t in the step: the steps i..i+2 span
 * [s_i, s_i + 15 min), and t + 10 < s_i + 15. The evaluator asks for the 9 instances at the
 * 320 step, 10 minutes before the 900 arrive (tests/forecast-aws/floor.test.ts pins it).
 */
import type { Forecast, QuantileName } from '../forecast/types.ts';
import type { Scaling, TargetPolicy } from '../policy/schema.ts';
import { type ForecastFloor, ForecastFloorSchema } from './state.ts';

export const FLOOR_STEP_MINUTES = 5;
const STEP_MS = FLOOR_STEP_MINUTES * 60_000;
/** The forecast function runs hourly (template.yaml ForecastSchedule). */
export const FORECAST_SCHEDULE_MINUTES = 60;

/**
 * Instances for a demand: ceil(demand / requestsPerInstance), clamped to [min, max]. The 1e-9
 * keeps 300 / 100 from becoming 4 through rounding in the forecast's log arithmetic.
 */
export function instancesFor(demand: number, requestsPerInstance: number, scaling: Scaling): number {
  const needed = Math.max(0, Math.ceil(demand / requestsPerInstance - 1e-9));
  return Math.min(scaling.maxCapacity, Math.max(scaling.minCapacity, needed));
}

/** Steps after a step whose demand its floor must cover: ceil(lead / 5); 10 min -> 2. */
export const leadSteps = (leadTimeMinutes: number): number => Math.ceil(leadTimeMinutes / FLOOR_STEP_MINUTES);

/** The running maximum over each step and the `ahead` steps after it (truncated at the end). */
export function maxAhead(values: readonly number[], ahead: number): number[] {
  return values.map((_, i) => Math.max(...values.slice(i, i + ahead + 1)));
}

export interface FloorInputs {
  forecast: Forecast;
  quantile: QuantileName;
  leadTimeMinutes: number;
  requestsPerInstance: number;
  scaling: Scaling;
  /** Epoch ms the forecast was made (the invocation's clock). */
  computedAt: number;
}

/** A forecast to the floor schedule stored in the state item. */
export function floorSchedule(inp: FloorInputs): ForecastFloor {
  const perStep = inp.forecast.quantiles[inp.quantile].map((d) =>
    instancesFor(d, inp.requestsPerInstance, inp.scaling),
  );
  return {
    quantile: inp.quantile,
    computedAt: inp.computedAt,
    startsAt: inp.forecast.origin * 60_000,
    stepMinutes: FLOOR_STEP_MINUTES,
    leadTimeMinutes: inp.leadTimeMinutes,
    capacities: maxAhead(perStep, leadSteps(inp.leadTimeMinutes)),
  };
}

/**
 * Minutes after which a floor is stale: 2 x refreshMinutes, but never under two runs of the
 * hourly schedule (a refreshMinutes of 15 cannot be honoured by an hourly function, and its
 * floor must not lapse 30 minutes after each run). Default 60 -> 120.
 */
export const staleAfterMinutes = (refreshMinutes: number): number =>
  2 * Math.max(refreshMinutes, FORECAST_SCHEDULE_MINUTES);

export type FloorPick =
  | { kind: 'floor'; capacity: number; quantile: string; computedAt: number; step: number }
  | { kind: 'none'; reason: 'ForecastDisabled' | 'NoFloor' | 'Stale' | 'NotStarted' | 'PastEnd' };

/** The step index of `time` in a schedule (negative before startsAt). */
export const stepAt = (floor: Pick<ForecastFloor, 'startsAt'>, time: number): number =>
  Math.floor((time - floor.startsAt) / STEP_MS);

/** The floor that applies to a target now, or why none does. */
export function pickFloor(t: TargetPolicy, floor: ForecastFloor | undefined, now: number): FloorPick {
  if (!t.forecast?.enabled) return { kind: 'none', reason: 'ForecastDisabled' };
  if (!floor) return { kind: 'none', reason: 'NoFloor' };
  if (now - floor.computedAt > staleAfterMinutes(t.forecast.refreshMinutes) * 60_000)
    return { kind: 'none', reason: 'Stale' };
  const step = stepAt(floor, now);
  if (step < 0) return { kind: 'none', reason: 'NotStarted' };
  const capacity = floor.capacities[step];
  if (capacity === undefined) return { kind: 'none', reason: 'PastEnd' };
  return { kind: 'floor', capacity, quantile: floor.quantile, computedAt: floor.computedAt, step };
}

/** A floor younger than refreshMinutes less this is kept: the hourly run drifts by seconds. */
export const REFRESH_SLACK_MINUTES = 5;

/**
 * Whether a stored floor (raw attribute) is still fresh for this target: same quantile and lead
 * time as the policy asks, and younger than refreshMinutes - 5. refreshMinutes 180 on the
 * hourly schedule: forecasts at 00:00, 03:00, 06:00 (ages 60 and 120 are fresh, 180 is not).
 */
export function isFresh(t: TargetPolicy, stored: unknown, now: number): boolean {
  const f = t.forecast;
  const floor = ForecastFloorSchema.safeParse(stored);
  if (!f || !floor.success) return false;
  return (
    floor.data.quantile === f.quantile &&
    floor.data.leadTimeMinutes === f.leadTimeMinutes &&
    now - floor.data.computedAt < (f.refreshMinutes - REFRESH_SLACK_MINUTES) * 60_000
  );
}

export interface BandPoint {
  /** Epoch ms of the step's start. */
  at: number;
  floor: number;
  p50: number;
  p90: number;
}

/**
 * The steps from now's step to now + minutes, for the dashboard's forecast band (CloudWatch
 * takes EMF timestamps at most 2 h ahead; one hourly run's worth is emitted, 60 minutes).
 */
export function bandPoints(forecast: Forecast, floor: ForecastFloor, now: number, minutes = 60): BandPoint[] {
  const points: BandPoint[] = [];
  const from = Math.max(0, stepAt(floor, now));
  const to = stepAt(floor, now + minutes * 60_000);
  for (let i = from; i < to && i < floor.capacities.length; i++) {
    points.push({
      at: floor.startsAt + i * STEP_MS,
      floor: floor.capacities[i]!,
      p50: forecast.quantiles.p50[i]!,
      p90: forecast.quantiles.p90[i]!,
    });
  }
  return points;
}
