/**
 * The forecast floor: a demand forecast turned into a capacity schedule (written by the forecast
 * function), and the capacity of that schedule that applies now (read by the evaluator). Pure.
 *
 * The schedule holds what the backtest holds (shared/sizing/floor-needs.ts heldNeed): steady in
 * 30-minute blocks (:00 and :30 UTC), each block covering the forecast to its end plus the lead
 * time. A step's capacity is the most any minute of it holds (the forecast's steps start on
 * five-minute boundaries, so every minute of a step holds the same).
 *
 * Worked example (leadTimeMinutes 10, 100 requests per minute per instance, min 1, max 20, the
 * forecast from 12:00):
 * p90 demand per step     250  320  610  900  880  400   (requests per minute, 12:00 to 12:30)
 * instances per step        3    4    7    9    9    4   (ceil(demand / 100), clamped)
 * floor per step            9    9    9    9    9    4   (the largest from the step to 12:30 + 10 min)
 * The evaluator asks for the 9 instances at 12:00, for the 900 at 12:15: one step up for the
 * block, not three. The last step reads past the forecast's end, so only itself
 * (tests/forecast-aws/floor.test.ts pins it).
 */
import type { Forecast, QuantileName } from '../forecast/types.ts';
import type { Scaling, TargetPolicy } from '../policy/schema.ts';
import { heldNeed, stepNeeds } from '../sizing/floor-needs.ts';
import type { NoiseModel } from '../sizing/noise-model.ts';
import { type ForecastFloor, ForecastFloorSchema } from './stored.ts';

export const FLOOR_STEP_MINUTES = 5;
const STEP_MS = FLOOR_STEP_MINUTES * 60_000;
/** The forecast function runs hourly (template.yaml ForecastSchedule). */
export const FORECAST_SCHEDULE_MINUTES = 60;

/**
 * Instances for a demand: ceil(demand / requestsPerInstance), clamped to [min, max]. The 1e-9
 * keeps 300 / 100 from becoming 4 through rounding in the forecast's log arithmetic.
 */
export function instancesFor(demand: number, requestsPerInstance: number, scaling: Scaling): number {
  return clampNeed(demand / requestsPerInstance, scaling);
}

/** Fractional instances to whole ones within [min, max]: ceil(need), 3.0000000001 stays 3. */
export const clampNeed = (need: number, scaling: Scaling): number =>
  Math.min(scaling.maxCapacity, Math.max(scaling.minCapacity, Math.max(0, Math.ceil(need - 1e-9))));

/**
 * Instances per step of a schedule from `origin` (epoch minutes): the most any minute of the step
 * holds (heldNeed over the step's minutes), clamped to the scaling bounds.
 */
export function heldSchedule(
  needs: Float64Array,
  origin: number,
  leadTimeMinutes: number,
  scaling: Scaling,
): number[] {
  return Array.from(needs, (_, i) => {
    let need = 0;
    for (let m = 0; m < FLOOR_STEP_MINUTES; m++) {
      const minute = origin + i * FLOOR_STEP_MINUTES + m;
      need = Math.max(need, heldNeed(needs, origin, FLOOR_STEP_MINUTES, minute, leadTimeMinutes));
    }
    return clampNeed(need, scaling);
  });
}

export interface FloorInputs {
  forecast: Forecast;
  quantile: QuantileName;
  /** The lead each step covers: effectiveLead(...).minutes (shared/floors/lead-time.ts). */
  leadTimeMinutes: number;
  /** Where that lead came from; default: configured, as leadTimeMinutes, from no samples. */
  lead?: { source: 'configured' | 'measured'; configuredMinutes: number; samples: number };
  requestsPerInstance: number;
  scaling: Scaling;
  /** Epoch ms the forecast was made (the invocation's clock). */
  computedAt: number;
  /** The measured noise and how far the floor covers it; absent: the quantile floor alone. */
  noise?: FloorNoise;
  /**
   * Steps whose band is stored (default: every step). The evaluator reads a step's band only
   * while the floor is fresh, so the forecast function stores staleAfterMinutes of them, not two
   * days: the state item is written every minute and billed by its size.
   */
  bandSteps?: number;
}

/** The noise term of a floor: the median plus floorSigmas of its noise, at the SLO capacity. */
export interface FloorNoise {
  model: NoiseModel;
  floorSigmas: number;
  /** instanceCapacity.requestsPerMinuteAtSlo: requests a minute one instance serves at the SLO. */
  instanceCapacity: number;
}

/** What a stored floor says about the noise it used (absent when none: off, 0 sigmas, or no model). */
export const noiseUsed = (n: FloorNoise | undefined) =>
  n && n.floorSigmas > 0
    ? { noise: { floorSigmas: n.floorSigmas, a: n.model.a, b: n.model.b, samples: n.model.samples } }
    : {};

/**
 * A forecast band as the forecast room reads it (shared/slo/forecast-room.ts): p90 / p50, or null
 * where the median is not positive (no demand forecast: no room).
 */
export const bandRatioOf = (p50: number, p90: number): number | null =>
  p50 > 0 && Number.isFinite(p90) ? p90 / p50 : null;

/** A step's band as stored: p90 / p50 rounded up to 0.001 (never narrower than measured), null without a median. */
function storedRatio(p50: number, p90: number): number | null {
  const r = bandRatioOf(p50, p90);
  return r === null ? null : Math.ceil(r * 1000 - 1e-9) / 1000;
}

/**
 * A forecast to the floor schedule stored in the state item. Each step needs the larger of the
 * quantile at requestsPerInstance and the median plus its noise at the SLO capacity (stepNeeds,
 * as the backtest plans it), held in blocks as the backtest holds it (heldSchedule). Worked example: p50 and p90 of 100 requests a minute, 100 per
 * instance and 100 at the SLO, noise a = 1 (Poisson), floorSigmas 2.33: the quantile needs 1.0
 * instance, the noise (100 + 2.33 x 10) / 100 = 1.23, so the step needs 2
 * (tests/forecast-aws/floor.test.ts, "the noise term").
 */
export function floorSchedule(inp: FloorInputs): ForecastFloor {
  const q = inp.forecast.quantiles;
  const needs = stepNeeds(q[inp.quantile], q.p50, {
    requestsPerInstance: inp.requestsPerInstance,
    instanceCapacity: inp.noise?.instanceCapacity ?? inp.requestsPerInstance,
    floorSigmas: inp.noise?.floorSigmas ?? 0,
    noise: inp.noise?.model ?? null,
  });
  return {
    kind: 'forecast',
    quantile: inp.quantile,
    computedAt: inp.computedAt,
    startsAt: inp.forecast.origin * 60_000,
    stepMinutes: FLOOR_STEP_MINUTES,
    leadTimeMinutes: inp.leadTimeMinutes,
    leadSource: inp.lead?.source ?? 'configured',
    configuredLeadTimeMinutes: inp.lead?.configuredMinutes ?? inp.leadTimeMinutes,
    leadSamples: inp.lead?.samples ?? 0,
    capacities: heldSchedule(needs, inp.forecast.origin, inp.leadTimeMinutes, inp.scaling),
    bandRatios: Array.from(q.p50.slice(0, inp.bandSteps ?? q.p50.length), (p50, i) =>
      storedRatio(p50, q.p90[i]!),
    ),
    ...noiseUsed(inp.noise),
    ...(inp.forecast.fallback ? { fallback: inp.forecast.fallback.to } : {}),
  };
}

/** How long a level floor holds: the forecast's refreshMinutes or an hour (the run's cadence), whichever is shorter. */
export const levelHoldMinutes = (t: TargetPolicy): number =>
  Math.min(t.forecast?.refreshMinutes ?? FORECAST_SCHEDULE_MINUTES, FORECAST_SCHEDULE_MINUTES);

/**
 * Minutes after which a floor is stale: 2 x refreshMinutes, but never under two runs of the
 * hourly schedule (a refreshMinutes of 15 cannot be honoured by an hourly function, and its
 * floor must not lapse 30 minutes after each run). Default 60 -> 120.
 */
export const staleAfterMinutes = (refreshMinutes: number): number =>
  2 * Math.max(refreshMinutes, FORECAST_SCHEDULE_MINUTES);

export type FloorPick =
  | {
      kind: 'floor';
      capacity: number;
      quantile: string;
      computedAt: number;
      step: number;
      lead: FloorLead;
      /** forecast, or level (the last level plus its noise, before a forecast exists). */
      floorKind: 'forecast' | 'level';
      /** The simpler forecaster a forecast floor came from (ForecastFallback), when it fell back. */
      fallback?: 'recent-level' | 'naive-day';
      /** The step's forecast band, p90 / p50; null for a level floor or one stored without it. */
      bandRatio: number | null;
    }
  | { kind: 'none'; reason: 'ForecastDisabled' | 'NoFloor' | 'Stale' | 'NotStarted' | 'PastEnd' };

/** The lead a stored floor was planned over, and where it came from (older floors: configured). */
export interface FloorLead {
  minutes: number;
  configuredMinutes: number;
  samples: number;
  source: 'configured' | 'measured';
}

export const floorLead = (floor: ForecastFloor): FloorLead => ({
  minutes: floor.leadTimeMinutes,
  configuredMinutes: floor.configuredLeadTimeMinutes ?? floor.leadTimeMinutes,
  samples: floor.leadSamples ?? 0,
  source: floor.leadSource ?? 'configured',
});

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
  return {
    kind: 'floor',
    capacity,
    quantile: floor.quantile,
    computedAt: floor.computedAt,
    step,
    lead: floorLead(floor),
    floorKind: floor.kind ?? 'forecast',
    ...(floor.fallback ? { fallback: floor.fallback } : {}),
    bandRatio: floor.kind === 'level' ? null : (floor.bandRatios?.[step] ?? null),
  };
}

/** A floor younger than refreshMinutes less this is kept: the hourly run drifts by seconds. */
export const REFRESH_SLACK_MINUTES = 5;

/**
 * Whether a stored floor (raw attribute) is still fresh for this target: same quantile and
 * configured lead time as the policy asks, built over the lead that applies now (`leadMinutes`,
 * effectiveLead(...).minutes; the configured one by default), with the noise.floorSigmas the
 * policy asks for, and younger than refreshMinutes - 5 (a level floor: min(refreshMinutes, 60) - 5,
 * so every hourly run replaces it).
 * refreshMinutes 180 on the hourly schedule: forecasts at 00:00, 03:00, 06:00 (ages 60 and 120
 * are fresh, 180 is not). A floor built over a measured 14 minutes stays fresh while the samples
 * still say 14; when they say 16 it is due at the next run. A floor from before leads were
 * measured has no configuredLeadTimeMinutes: its leadTimeMinutes was the configured one.
 */
export function isFresh(t: TargetPolicy, stored: unknown, now: number, leadMinutes?: number): boolean {
  const f = t.forecast;
  const floor = ForecastFloorSchema.safeParse(stored);
  if (!f || !floor.success) return false;
  const built = floor.data;
  const refresh = built.kind === 'level' ? levelHoldMinutes(t) : f.refreshMinutes;
  return (
    built.quantile === f.quantile &&
    (built.configuredLeadTimeMinutes ?? built.leadTimeMinutes) === f.leadTimeMinutes &&
    built.leadTimeMinutes === (leadMinutes ?? f.leadTimeMinutes) &&
    (built.noise?.floorSigmas ?? 0) === noiseFloorSigmas(t) &&
    now - built.computedAt < (refresh - REFRESH_SLACK_MINUTES) * 60_000
  );
}

/**
 * The sigmas of noise a floor should cover under the policy (0: no noise term). A floor built
 * with other sigmas, or without a model while the policy asks for one, is due at the next run:
 * so a target whose noise could not be fitted yet is forecast hourly until it can.
 */
export const noiseFloorSigmas = (t: TargetPolicy): number => (t.noise?.enabled ? t.noise.floorSigmas : 0);

export interface BandPoint {
  /** Epoch ms of the step's start. */
  at: number;
  floor: number;
  /** The forecast's median and p90, requests a minute (absent for a level floor: no forecast). */
  p50?: number;
  p90?: number;
}

/**
 * The steps from now's step to now + minutes, for the dashboard's forecast band (CloudWatch
 * takes EMF timestamps at most 2 h ahead; one hourly run's worth is emitted, 60 minutes). A
 * level floor has no forecast: its points carry the floor alone.
 */
export function bandPoints(
  forecast: Forecast | null,
  floor: ForecastFloor,
  now: number,
  minutes = 60,
): BandPoint[] {
  const points: BandPoint[] = [];
  const from = Math.max(0, stepAt(floor, now));
  const to = stepAt(floor, now + minutes * 60_000);
  for (let i = from; i < to && i < floor.capacities.length; i++) {
    points.push({
      at: floor.startsAt + i * STEP_MS,
      floor: floor.capacities[i]!,
      ...(forecast ? { p50: forecast.quantiles.p50[i]!, p90: forecast.quantiles.p90[i]! } : {}),
    });
  }
  return points;
}
