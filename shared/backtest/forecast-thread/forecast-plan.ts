/**
 * The forecasts a backtest run of the governor policy will ask for, known before it runs: the
 * look-ahead refits on a schedule set by the minute, the delivered count and the lead time
 * (./lookahead.ts update), and a forecast reads only the delivered history and its options. So
 * a dry run of the same Lookahead over the trace's requests, with fits that record what they are
 * asked and compute nothing, lists every forecast in the order the real run asks for them
 * (./parallel-fits.ts computes them on another thread while the run goes on).
 *
 * One thing is a guess: the lead. The governor policy plans over the configured lead until three
 * measured scale-outs say they take longer (shared/floors/lead-time.ts); in the simulator every
 * cold start takes the scenario's coldStartMinutes, so the plan assumes that lead from the start.
 * A forecast asked for with another lead is not in the plan and is computed where it is asked.
 */
import { effectiveLead, LEAD_MIN_SAMPLES } from '../../floors/lead-time.ts';
import { forecast } from '../../forecast/forecast.ts';
import type { ForecastOptions, ForecastResult } from '../../forecast/types.ts';
import type { MetricsView } from '../metrics.ts';
import {
  Lookahead,
  type LookaheadFits,
  type LookaheadMemo,
  type LookaheadOptions,
} from '../policies/lookahead.ts';

/** One forecast of the plan: the delivered minutes [from, to) it reads, and its options. */
export interface PlannedForecast {
  from: number;
  to: number;
  options: ForecastOptions;
}

/** The key a forecast request is found by: the same window and options are the same forecast. */
export const forecastKey = (from: number, to: number, o: ForecastOptions): string =>
  `${from}|${to}|${o.origin}|${o.horizonMinutes}|${o.dayStartMinute}|${o.stepMinutes}`;

/**
 * The lead the plan assumes: what the governor's own rule (effectiveLead) makes of scale-outs that
 * each take the scenario's cold start, as every one does in the simulator.
 */
export function plannedLead(configuredMinutes: number, coldStartMinutes: number): number {
  const samples = Array.from({ length: LEAD_MIN_SAMPLES }, (_, i) => ({
    requestedAt: i * 3_600_000,
    servingAt: i * 3_600_000 + coldStartMinutes * 60_000,
  }));
  return effectiveLead(configuredMinutes, samples).minutes;
}

/**
 * The forecasts, in order, that a Lookahead with these options asks for over `requests` (the
 * demand the metrics feed delivers, one value a minute), with the metric delay the governor
 * policy's feed has and the lead held at `leadMinutes`.
 */
export function plannedForecasts(
  options: LookaheadOptions,
  requests: ArrayLike<number>,
  metricDelayMinutes: number,
  leadMinutes: number,
): PlannedForecast[] {
  const plan: PlannedForecast[] = [];
  const recording: LookaheadFits = {
    forecast: (history, o) => {
      plan.push({ from: history.from, to: history.to, options: o });
      return { ok: false, reason: 'NoData', message: 'planning only' };
    },
    levelNoise: () => null,
  };
  // Noise is refitted on a schedule of its own and changes no forecast: left out of the dry run.
  const { noise: _noise, ...rest } = options;
  const dry = new Lookahead({ ...rest, fits: recording });
  let count = 0;
  const readsRequestsOnly = (): never => {
    throw new Error('the forecast plan has only the requests of each minute');
  };
  const view: MetricsView = {
    get count() {
      return count;
    },
    valueAt: (i, field) => (field === 'requests' ? requests[i]! : readsRequestsOnly()),
    at: readsRequestsOnly,
    latest: readsRequestsOnly,
  };
  for (let m = 0; m < requests.length; m++) {
    // As the feed (../metrics.ts advanceTo): minute m sees the datapoints of minutes before m - delay.
    count = Math.min(m, Math.max(0, m - metricDelayMinutes));
    dry.setLeadMinutes(leadMinutes);
    dry.update(view, m);
  }
  return plan;
}

/**
 * Forecasts of a plan to compute, on these requests: a share of one (`governor tune`'s threads
 * split the starting policy's among them, shared/tune/pool.ts).
 */
export interface ForecastShare {
  plan: PlannedForecast[];
  requests: number[];
}

/** Forecasts of the plan, computed: a null result threw (the run meets the same error where it asks). */
export type Fitted = { plan: PlannedForecast; result: ForecastResult | null }[];

/** The share's forecasts, each as the memo computes it (forecast() of the same minutes). */
export const prefetched = ({ plan, requests }: ForecastShare): Fitted =>
  plan.map((p) => {
    try {
      return { plan: p, result: forecast(requests.slice(p.from, p.to), p.options) };
    } catch {
      return { plan: p, result: null };
    }
  });

/** Puts forecasts computed elsewhere in a memo (one that threw is left to the run). */
export function seedMemo(memo: LookaheadMemo, fitted: Fitted): void {
  for (const { plan, result } of fitted)
    if (result) memo.seedForecast(plan.to - plan.from, plan.options, result);
}
