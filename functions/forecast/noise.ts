/**
 * A target's measured noise in one forecast run: the fit from its one-minute demand (stored next
 * to the floor as `noise`), the noise term of its forecast floor, and the level floor that stands
 * in for a forecast before a day of history (shared/floors/level.ts). No I/O here.
 */

import { type FloorNoise, levelHoldMinutes } from '../../shared/floors/forecast.ts';
import { levelFloorSchedule } from '../../shared/floors/level.ts';
import { fitStoredNoise, perMinute } from '../../shared/floors/noise.ts';
import type { ForecastFloor, StoredNoise } from '../../shared/floors/stored.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '../../shared/policy/schema.ts';
import { describeSources } from '../../shared/signals/demand.ts';
import { levelFloor } from '../../shared/sizing/floor-needs.ts';
import type { TargetHistory } from './history.ts';
import type { NoiseOutcome, TargetLead } from './outcomes.ts';

export interface MeasuredNoise {
  /** The attribute to store (null: nothing measured, the stored one is left as it was). */
  stored: StoredNoise | null;
  outcome: NoiseOutcome;
  /** The one-minute demand it was fitted on (NaN: a gap), for the level floor. */
  demand: number[];
}

/** Fits the target's noise; null when noise is off or its one-minute demand was not read. */
export function measureNoise(
  t: TargetPolicy,
  h: TargetHistory['oneMinute'],
  now: number,
): MeasuredNoise | null {
  const n = t.noise;
  if (!n?.enabled || !h) return null;
  const where = `${describeSources(t)} at one minute, last ${h.historyMinutes} minutes`;
  if (!h.demand.ok)
    return {
      stored: null,
      outcome: { status: 'unmeasured', why: `${h.demand.reason}: ${h.demand.message} (${where})` },
      demand: [],
    };
  const demand = perMinute(h.demand.history);
  const stored = fitStoredNoise(demand, n, h.historyMinutes, now);
  if (!stored)
    return {
      stored: null,
      outcome: {
        status: 'unmeasured',
        why: `${demand.length} minutes read, fewer than 20 with a level above 0 after the first ${n.levelMinutes} (${where})`,
      },
      demand,
    };
  const { a, b, samples, levelMinutes, historyMinutes } = stored;
  return {
    stored,
    outcome: {
      status: 'measured',
      a,
      b,
      samples,
      levelMinutes,
      historyMinutes,
      ...(h.clamped ? { clamped: h.clamped } : {}),
    },
    demand,
  };
}

/** Requests a minute one instance serves at the SLO: what the noise term is planned at. */
const sloCapacity = (t: TargetPolicy): number =>
  t.instanceCapacity?.requestsPerMinuteAtSlo ?? plannedRequestsPerInstance(t) ?? 1;

/** The noise term of the target's floors (none: noise off, floorSigmas 0, or nothing measured this run). */
export function floorNoise(t: TargetPolicy, m: MeasuredNoise | null): FloorNoise | undefined {
  if (!t.noise?.enabled || t.noise.floorSigmas === 0 || !m?.stored) return undefined;
  const { a, b, samples } = m.stored;
  return { model: { a, b, samples }, floorSigmas: t.noise.floorSigmas, instanceCapacity: sloCapacity(t) };
}

/** levelFloor's level: the median (upper, for an even count) of the last levelMinutes minutes. */
function lastLevel(demand: readonly number[], levelMinutes: number): number {
  const last = demand
    .slice(-levelMinutes)
    .filter(Number.isFinite)
    .sort((x, y) => x - y);
  return last[last.length >> 1] ?? 0;
}

/**
 * The level floor, when the forecast is unavailable for lack of history: the last level plus
 * noise.floorSigmas of its noise at the SLO capacity, every five minutes until the next run.
 * Null without a noise term or without levelMinutes of unbroken minutes at the end.
 */
export function planLevelFloor(
  t: TargetPolicy,
  m: MeasuredNoise | null,
  lead: TargetLead,
  startsAt: number,
  now: number,
): ForecastFloor | null {
  const noise = floorNoise(t, m);
  if (!noise || !m || !t.forecast) return null;
  const levelMinutes = t.noise!.levelMinutes;
  const need = levelFloor(m.demand, levelMinutes, {
    requestsPerInstance: plannedRequestsPerInstance(t) ?? noise.instanceCapacity,
    instanceCapacity: noise.instanceCapacity,
    floorSigmas: noise.floorSigmas,
    noise: noise.model,
  });
  if (need === null) return null;
  return levelFloorSchedule({
    need,
    level: lastLevel(m.demand, levelMinutes),
    noise,
    quantile: t.forecast.quantile,
    leadTimeMinutes: lead.minutes,
    lead: { source: lead.source, configuredMinutes: lead.configuredMinutes, samples: lead.samples },
    startsAt,
    holdMinutes: levelHoldMinutes(t),
    scaling: t.scaling,
    computedAt: now,
  });
}
