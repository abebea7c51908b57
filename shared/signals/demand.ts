/**
 * Demand history for the forecast: where each target's request count lives in CloudWatch, the
 * window to read (five-minute periods), and GetMetricData results to the forecaster's history
 * (requests per five minutes, oldest first, null for a gap). Pure.
 *
 * Sources (Sum per five minutes = requests in that step):
 * - endpoint variant: AWS/SageMaker Invocations by EndpointName, VariantName;
 * - inference component: AWS/SageMaker Invocations + NoCapacityInvocationFailures by
 *   InferenceComponentName (requests turned away at zero copies are demand too);
 * - Auto Scaling group: no AWS metric counts its requests, so the operator publishes one:
 *   Governor/Demand Requests by AutoScalingGroupName (docs/forecast-aws.md).
 */
import { historyStart } from '../forecast/series.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import type { RawMetricResult } from './readings.ts';
import { type MetricSource, sumSource as sum } from './sources.ts';

export const HISTORY_PERIOD_SECONDS = 300;
const PERIOD_MS = HISTORY_PERIOD_SECONDS * 1000;
const DAY_MS = 86_400_000;
/**
 * SageMaker publishes a minute's counts about a minute after it ends; the last five-minute
 * period read must be complete, so the window ends at the last boundary 3 minutes back.
 * Example: now 12:00:10 -> end 11:55 (11:57:10 rounded down to five minutes).
 */
export const PUBLICATION_DELAY_MS = 180_000;
/** Custom metric an Auto Scaling group's demand is read from (the operator publishes it). */
export const GROUP_DEMAND_NAMESPACE = 'Governor/Demand';
export const GROUP_DEMAND_METRIC = 'Requests';

/** The metrics whose Sum, added per period, is the target's demand. */
export function demandSources(t: TargetPolicy): MetricSource[] {
  switch (t.kind) {
    case 'sagemaker-variant':
      return [
        sum('AWS/SageMaker', 'Invocations', { EndpointName: t.endpointName, VariantName: t.variantName }),
      ];
    case 'sagemaker-inference-component': {
      const dims = { InferenceComponentName: t.inferenceComponentName };
      return [
        sum('AWS/SageMaker', 'Invocations', dims),
        sum('AWS/SageMaker', 'NoCapacityInvocationFailures', dims),
      ];
    }
    case 'ec2-asg':
      return [
        sum(GROUP_DEMAND_NAMESPACE, GROUP_DEMAND_METRIC, { AutoScalingGroupName: t.autoScalingGroupName }),
      ];
  }
}

/** One line naming where a target's demand was looked for (for "no history" logs). */
export const describeSources = (t: TargetPolicy): string =>
  demandSources(t)
    .map((s) => {
      const dims = Object.entries(s.dimensions).map(([k, v]) => `${k}=${v}`);
      return `${s.namespace} ${s.metricName} (${dims.join(', ')})`;
    })
    .join(' + ');

export interface HistoryWindow {
  /** Epoch ms, inclusive; a five-minute boundary. */
  start: number;
  /** Epoch ms, exclusive; a five-minute boundary: the forecast's origin. */
  end: number;
}

/** [end - days, end), end the last five-minute boundary PUBLICATION_DELAY_MS before now. */
export function historyWindow(now: number, historyDays: number): HistoryWindow {
  const end = Math.floor((now - PUBLICATION_DELAY_MS) / PERIOD_MS) * PERIOD_MS;
  return { start: end - historyDays * DAY_MS, end };
}

/**
 * A forecast's history: from the start of the day (at dayStartMinute, UTC) historyDays whole
 * days before today's, to the same end as historyWindow. So every forecast of one day reads the
 * same whole days, as the backtest's look-ahead does (shared/forecast/series.ts historyStart),
 * and a warm function reuses their fit. Between historyDays and historyDays + 1 days long.
 */
export function forecastHistoryWindow(
  now: number,
  historyDays: number,
  dayStartMinute: number,
): HistoryWindow {
  const { end } = historyWindow(now, 0);
  return { start: historyStart(end / 60_000, historyDays, dayStartMinute) * 60_000, end };
}

export interface HistoryQuery {
  /** Unique within a call; CloudWatch wants [a-z][a-zA-Z0-9_]*. */
  id: string;
  targetId: string;
  source: MetricSource;
  /** Seconds per datapoint: 300 (the forecast's history, the default) or 60 (the noise's). */
  periodSeconds?: number;
}

/**
 * Queries for the targets' demand, ids d0, d1, ... in target order at five minutes; the noise's
 * one-minute queries are m0, m1, ... (periodSeconds 60, prefix 'm'), so both fit one call.
 */
export function demandQueries(
  targets: readonly TargetPolicy[],
  periodSeconds = HISTORY_PERIOD_SECONDS,
  prefix = 'd',
): HistoryQuery[] {
  return targets
    .flatMap((t) => demandSources(t).map((source) => ({ targetId: t.id, source })))
    .map((q, i) => ({
      id: `${prefix}${i}`,
      ...q,
      ...(periodSeconds === HISTORY_PERIOD_SECONDS ? {} : { periodSeconds }),
    }));
}

/**
 * The history from its first present period: leading gaps are a target that did not exist yet,
 * not a week the forecaster should fit through (half a day of data in a 7-day window must read
 * as half a day: InsufficientHistory, not a weekly model over 93 % gaps).
 */
export function fromFirstPresent(history: readonly (number | null)[]): (number | null)[] {
  const first = history.findIndex((v) => v !== null);
  return first < 0 ? [] : history.slice(first);
}

export type DemandHistory =
  | { ok: true; history: (number | null)[]; presentBins: number; firstPresent: number }
  | { ok: false; reason: 'NoData' | 'Rejected'; message: string };

/** Adds one result's points into per-bin sums; a string when the result cannot be trusted. */
function addPoints(sums: Map<number, number>, r: RawMetricResult, q: HistoryQuery): string | null {
  if (r.StatusCode === 'InternalError' || r.StatusCode === 'Forbidden')
    return `${q.source.metricName}: status ${r.StatusCode}`;
  const ts = r.Timestamps ?? [];
  const vs = r.Values ?? [];
  if (ts.length !== vs.length)
    return `${q.source.metricName}: ${ts.length} timestamps but ${vs.length} values`;
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i] instanceof Date ? ts[i]!.getTime() : Number.NaN;
    const v = vs[i];
    if (!Number.isFinite(t) || typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      return `${q.source.metricName}: point ${i} is not a time and a count of 0 or more`;
    sums.set(t, (sums.get(t) ?? 0) + v * q.source.scale);
  }
  return null;
}

/**
 * One target's results (every page, every part) to a history over the window, one bin per
 * `periodSeconds` (five minutes for the forecast, one for the noise). CloudWatch has no
 * datapoint for a period without requests, so a missing period after the first datapoint is 0
 * requests; before it, the target had no metric yet (or the window reaches past its life), so
 * those periods are gaps (null) the forecaster skips.
 */
export function demandHistory(
  queries: readonly HistoryQuery[],
  results: readonly RawMetricResult[],
  window: HistoryWindow,
  periodSeconds = HISTORY_PERIOD_SECONDS,
): DemandHistory {
  const periodMs = periodSeconds * 1000;
  const byId = new Map(queries.map((q) => [q.id, q]));
  const sums = new Map<number, number>();
  for (const r of results) {
    const q = r.Id === undefined ? undefined : byId.get(r.Id);
    if (!q) continue;
    const problem = addPoints(sums, r, q);
    if (problem)
      return { ok: false, reason: 'Rejected', message: `GetMetricData result rejected: ${problem}` };
  }
  const bins = Math.round((window.end - window.start) / periodMs);
  const history: (number | null)[] = new Array(bins).fill(null);
  let first = bins;
  for (const [t, v] of sums) {
    const i = Math.floor((t - window.start) / periodMs);
    if (i < 0 || i >= bins) continue;
    history[i] = (history[i] ?? 0) + v;
    first = Math.min(first, i);
  }
  if (first === bins) return { ok: false, reason: 'NoData', message: 'no datapoint in the window' };
  let present = 0;
  for (let i = first; i < bins; i++) {
    if (history[i] === null) history[i] = 0;
    else present++;
  }
  return { ok: true, history, presentBins: present, firstPresent: first };
}
