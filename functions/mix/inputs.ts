/**
 * What the planner and the unit-cost metric are given, from what other parts of Governor already
 * stored or publish. Pure.
 *
 * The forecast: the forecast function's floor schedule in the target's state item
 * (forecastFloor: five-minute steps, already in instances: ceil(demand / requestsPerInstance) at
 * the policy's forecast.quantile, the noise term included, clamped to min and max, and each step
 * the most of the provisioning lead after it; shared/floors/forecast.ts). That is the
 * only forecast Governor stores, so each step is given to the planner as its p90 and its p50
 * alike: conservative where the quantile is above p90 or a lead is covered twice. A floor the
 * evaluator would not use (stale, not started, past its end, forecast off) is no forecast: the
 * planner keeps the plan in force (ForecastMissing).
 *
 * The unit cost: the last hour's requests (the same CloudWatch sources the forecast reads,
 * shared/signals/demand.ts), one GetMetricData per region for every target, and the plan's
 * USD per hour over them: 9.52 USD/h over 56,000 requests is 0.17 USD per 1,000.
 */

import { FLOOR_STEP_MINUTES, pickFloor } from '../../shared/floors/forecast.ts';
import type { ForecastFloor } from '../../shared/floors/stored.ts';
import type { ForecastPoint } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import {
  type DemandHistory,
  demandHistory,
  type HistoryQuery,
  PUBLICATION_DELAY_MS,
} from '../../shared/signals/demand.ts';
import type { RawMetricResult } from '../../shared/signals/readings.ts';

const STEP_MS = FLOOR_STEP_MINUTES * 60_000;

/** Where the forecast came from, for the record (null: none applied). */
export interface ForecastSource {
  quantile: string;
  computedAt: number;
  kind: 'forecast' | 'level';
  points: number;
}

/**
 * The floor schedule from now's step on as planner points: the step holding `now` is stamped
 * `now` (the planner reads points at or after now), later steps at their start.
 */
export function forecastFromFloor(
  t: TargetPolicy,
  floor: ForecastFloor | undefined,
  now: number,
): { points: ForecastPoint[]; source: ForecastSource } | null {
  const pick = pickFloor(t, floor, now);
  if (pick.kind !== 'floor' || !floor) return null;
  const points = floor.capacities.slice(pick.step).map((capacity, i) => ({
    at: Math.max(now, floor.startsAt + (pick.step + i) * STEP_MS),
    p50: capacity,
    p90: capacity,
  }));
  return {
    points,
    source: {
      quantile: pick.quantile,
      computedAt: pick.computedAt,
      kind: pick.floorKind,
      points: points.length,
    },
  };
}

/** The last whole hour of five-minute periods CloudWatch has published: 12:03:10 -> [10:55, 11:55). */
export function lastHour(now: number): { start: number; end: number } {
  const end = Math.floor((now - PUBLICATION_DELAY_MS) / STEP_MS) * STEP_MS;
  return { start: end - 3_600_000, end };
}

/** Requests of one target over the window, or null when CloudWatch has none or the result is rejected. */
export function requestsIn(
  queries: readonly HistoryQuery[],
  results: readonly RawMetricResult[],
  window: { start: number; end: number },
): number | null {
  const history: DemandHistory = demandHistory(queries, results, window);
  if (!history.ok) return null;
  return history.history.reduce<number>((sum, v) => sum + (v ?? 0), 0);
}

/** USD per 1,000 requests at `usdPerHour` over an hour of `requests`; null without requests. */
export const costPer1k = (usdPerHour: number, requests: number | null): number | null =>
  requests !== null && requests > 0 ? usdPerHour / (requests / 1000) : null;
