/**
 * Demand history of the due targets: per region, the calls shared/signals/history-plan.ts plans
 * (five-minute history for forecasts, one-minute for the noise and the burst floor's demand, in
 * one GetMetricData where CloudWatch allows), each paged by the adapter; then each target's own
 * slice of the results: one one-minute query a target, cut to each measurement's own window.
 * A failed call fails every target it carried (the run reports them); other calls go on.
 */

import { NOISE_PERIOD_SECONDS, noiseHistoryMinutes } from '../../shared/floors/noise.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import {
  type DemandHistory,
  demandHistory,
  forecastHistoryWindow,
  fromFirstPresent,
  HISTORY_PERIOD_SECONDS,
  type HistoryWindow,
} from '../../shared/signals/demand.ts';
import { type HistoryCall, type HistoryNeed, planRegionHistory } from '../../shared/signals/history-plan.ts';
import { burstMeasureOf } from '../../shared/state/burst-demand.ts';
import type { ForecastPorts } from './ports.ts';

export interface TargetHistory {
  /** Five-minute history over the target's historyDays; null when its forecast is not read. */
  fiveMinute: { demand: DemandHistory; window: HistoryWindow } | null;
  /** One-minute history over its noise.historyMinutes; null when its noise is not read. */
  oneMinute: { demand: DemandHistory; historyMinutes: number; clamped: string | null } | null;
  /** One-minute history over its burstFloor.windowMinutes; null when its burst demand is not read. */
  burst: { demand: DemandHistory; windowMinutes: number } | null;
}

export type Histories = Map<string, TargetHistory | Error>;

/** The last `bins` periods of a region's history (the windows end together), from its first datapoint (none: NoData). */
function lastBins(demand: DemandHistory, bins: number): DemandHistory {
  if (!demand.ok) return demand;
  const history = fromFirstPresent(demand.history.slice(-bins));
  if (history.length === 0) return { ok: false, reason: 'NoData', message: 'no datapoint in the window' };
  return { ...demand, history };
}

/** One target's part of one call's results (the call may carry its five-minute, one-minute or both). */
function ownPart(
  t: TargetPolicy,
  call: HistoryCall,
  results: Awaited<ReturnType<ForecastPorts['history']['demand']>>,
  now: number,
) {
  const own = call.queries.filter((q) => q.targetId === t.id);
  const five = own.filter((q) => (q.periodSeconds ?? HISTORY_PERIOD_SECONDS) === HISTORY_PERIOD_SECONDS);
  const one = own.filter((q) => q.periodSeconds === NOISE_PERIOD_SECONDS);
  const part: Partial<TargetHistory> = {};
  if (five.length > 0) {
    const window = forecastHistoryWindow(now, t.forecast!.historyDays, t.forecast!.dayStartMinute);
    const bins = Math.round((window.end - window.start) / (HISTORY_PERIOD_SECONDS * 1000));
    part.fiveMinute = { demand: lastBins(demandHistory(five, results, call.window), bins), window };
  }
  if (one.length > 0) {
    // One query over the longer window: each measurement takes its own last minutes of it.
    const all = demandHistory(one, results, call.window, NOISE_PERIOD_SECONDS);
    if (t.noise?.enabled) {
      const { minutes, clamped } = noiseHistoryMinutes(t.noise);
      part.oneMinute = { demand: lastBins(all, minutes), historyMinutes: minutes, clamped };
    }
    const burst = burstMeasureOf(t);
    if (burst)
      part.burst = { demand: lastBins(all, burst.windowMinutes), windowMinutes: burst.windowMinutes };
  }
  return part;
}

export async function readHistories(
  ports: ForecastPorts,
  needs: readonly HistoryNeed[],
  now: number,
): Promise<Histories> {
  const out: Histories = new Map();
  for (const n of needs) out.set(n.target.id, { fiveMinute: null, oneMinute: null, burst: null });
  for (const region of [...new Set(needs.map((n) => n.target.region))]) {
    const inRegion = needs.filter((n) => n.target.region === region);
    for (const call of planRegionHistory(inRegion, now).calls) {
      const carried = inRegion
        .map((n) => n.target)
        .filter((t) => call.queries.some((q) => q.targetId === t.id));
      try {
        const results = await ports.history.demand(region, call.queries, call.window);
        for (const t of carried) {
          const sofar = out.get(t.id);
          if (!(sofar instanceof Error)) out.set(t.id, { ...sofar!, ...ownPart(t, call, results, now) });
        }
      } catch (error) {
        for (const t of carried) out.set(t.id, error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
  return out;
}
