/**
 * Which GetMetricData calls read one region's demand history for the forecast function. Pure.
 *
 * - Five-minute demand for the targets whose forecast is due, from the earliest start of their
 *   forecast windows (forecastHistoryWindow: historyDays whole days before today's start).
 * - One-minute demand for the targets whose noise is due (noise.enabled), over the longest
 *   noise.historyMinutes: the noise model's input (shared/floors/noise.ts); and for those whose
 *   burst floor's demand is due, over its burstFloor.windowMinutes (shared/state/burst-demand.ts;
 *   the caller says how many, this room reads no SLO). A target with both reads one query over
 *   the longer of the two (2,880 minutes of noise cover the burst floor's default 1,440).
 * Both end at the same five-minute boundary (historyWindow). A GetMetricData call has one
 * window, but each query its own period, so the one-minute queries ride in the five-minute call
 * when CloudWatch still has one-minute data at the window's start (it keeps it 15 days: 14 whole
 * days and today qualify but in the minutes after midnight while the window still ends the day
 * before, 28 days never do) and that costs no more pages than a second,
 * shorter call. A page holds 100,800 datapoints. Example, the window ending at 11:55: one
 * variant, 14 days and 715 minutes, 2,880 minutes of noise: 4,175 five-minute + 20,875
 * one-minute points, one page in one call instead of two calls. Twelve variants: 300,600
 * points, three pages, against 50,100 + 34,560 in two calls: two calls.
 */
import { appendAll, maxOf, minOf } from '../arrays/extent.ts';
import { NOISE_PERIOD_SECONDS, noiseHistoryMinutes, ONE_MINUTE_RETENTION_MINUTES } from '../floors/noise.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import {
  demandQueries,
  forecastHistoryWindow,
  HISTORY_PERIOD_SECONDS,
  type HistoryQuery,
  type HistoryWindow,
  historyWindow,
} from './demand.ts';

/** GetMetricData returns at most this many datapoints a page (then a NextToken). */
export const POINTS_PER_PAGE = 100_800;
/** GetMetricData takes at most 500 queries per call. */
export const MAX_QUERIES_PER_CALL = 500;

/** One target's part of the reads: five-minute history for its forecast, one-minute for its noise and burst floor. */
export interface HistoryNeed {
  target: TargetPolicy;
  forecast: boolean;
  noise: boolean;
  /** Minutes of one-minute demand the burst floor's measurement reads (burstFloor.windowMinutes); absent: none. */
  burstMinutes?: number;
}

export interface HistoryCall {
  window: HistoryWindow;
  queries: HistoryQuery[];
}

export interface RegionPlan {
  calls: HistoryCall[];
  /** The five-minute window (null: no forecast due) and the one-minute one (null: no noise due). */
  fiveMinute: HistoryWindow | null;
  oneMinute: HistoryWindow | null;
  /** Whether the one-minute queries ride in the five-minute call. */
  shared: boolean;
}

const minutesOf = (w: HistoryWindow) => (w.end - w.start) / 60_000;

/**
 * Minutes of one-minute demand a target reads: its noise's historyMinutes (noiseHistoryMinutes,
 * within CloudWatch's 15 days), or its burst floor's window, the longer; 0: none.
 */
export function oneMinuteMinutes(n: HistoryNeed): number {
  const noise = n.noise && n.target.noise?.enabled ? noiseHistoryMinutes(n.target.noise).minutes : 0;
  return Math.max(noise, Math.min(n.burstMinutes ?? 0, ONE_MINUTE_RETENTION_MINUTES));
}
const pages = (points: number) => Math.ceil(points / POINTS_PER_PAGE);

/** Splits queries into calls of at most 500, never splitting one target's queries. */
function chunked(window: HistoryWindow, queries: HistoryQuery[]): HistoryCall[] {
  const calls: HistoryCall[] = [];
  let current: HistoryQuery[] = [];
  for (const id of [...new Set(queries.map((q) => q.targetId))]) {
    const own = queries.filter((q) => q.targetId === id);
    if (current.length + own.length > MAX_QUERIES_PER_CALL && current.length > 0) {
      calls.push({ window, queries: current });
      current = [];
    }
    appendAll(current, own);
  }
  if (current.length > 0) calls.push({ window, queries: current });
  return calls;
}

/** The calls for one region's due targets at `now`. */
export function planRegionHistory(needs: readonly HistoryNeed[], now: number): RegionPlan {
  const forecastTargets = needs.filter((n) => n.forecast && n.target.forecast).map((n) => n.target);
  const minuteNeeds = needs.filter((n) => oneMinuteMinutes(n) > 0);
  const five = demandQueries(forecastTargets);
  const one = demandQueries(
    minuteNeeds.map((n) => n.target),
    NOISE_PERIOD_SECONDS,
    'm',
  );
  // Both windows end at the same five-minute boundary; the five-minute one starts at its earliest target's.
  const { end } = historyWindow(now, 0);
  const starts = forecastTargets.map(
    (t) => forecastHistoryWindow(now, t.forecast!.historyDays, t.forecast!.dayStartMinute).start,
  );
  const fiveMinute = five.length > 0 ? { start: minOf(starts), end } : null;
  const oneMinutes = maxOf(minuteNeeds.map(oneMinuteMinutes), 0);
  const short = one.length > 0 ? { start: end - oneMinutes * 60_000, end } : null;
  const fivePoints = fiveMinute ? five.length * (minutesOf(fiveMinute) / (HISTORY_PERIOD_SECONDS / 60)) : 0;
  // The five-minute window must also reach back as far as the one-minute one: historyDays 1 reads
  // one day and today (1,440 to 2,880 minutes), less than a burst floor's window of up to 10,080.
  const canShare =
    fiveMinute !== null &&
    short !== null &&
    fiveMinute.start <= short.start &&
    now - fiveMinute.start <= ONE_MINUTE_RETENTION_MINUTES * 60_000;
  const shared =
    canShare &&
    pages(fivePoints + one.length * minutesOf(fiveMinute)) <=
      pages(fivePoints) + pages(one.length * minutesOf(short));
  if (shared) {
    return {
      calls: chunked(fiveMinute, interleave(five, one)),
      fiveMinute,
      oneMinute: fiveMinute,
      shared: true,
    };
  }
  return {
    calls: [...(fiveMinute ? chunked(fiveMinute, five) : []), ...(short ? chunked(short, one) : [])],
    fiveMinute,
    oneMinute: short,
    shared: false,
  };
}

/** Each target's five-minute queries, then its one-minute ones, target by target. */
function interleave(five: HistoryQuery[], one: HistoryQuery[]): HistoryQuery[] {
  const ids = [...new Set([...five, ...one].map((q) => q.targetId))];
  return ids.flatMap((id) => [...five, ...one].filter((q) => q.targetId === id));
}
