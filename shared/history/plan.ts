/**
 * Which GetMetricData calls read a window of history: the window split into spans by age, each
 * span at the finest period CloudWatch still keeps for that age. Pure: the clock is an argument.
 *
 * CloudWatch keeps (GetMetricData and GetMetricStatistics API reference, "Amazon CloudWatch
 * retains metric data as follows"): 1-minute datapoints for 15 days, 5-minute for 63 days,
 * 1-hour for 455 days (15 months); shorter periods are aggregated into longer ones as they age.
 * And (MetricStat.Period, same reference): when StartTime is more than 15 days ago the period
 * must be a multiple of 300 s, past 63 days of 3600 s, "or no data points in that time range is
 * returned". A call's StartTime and EndTime hold for every query in it: so one call per span.
 *
 * Ages are measured from `now`, the moment of the call, not from the window's end: a window that
 * ends 10 days ago has only 5 days left at one minute, whatever `--end` says.
 *
 * Each boundary between two spans sits TIER_MARGIN_MS inside the finer span's retention and on a
 * whole period of the coarser one. Worked example (pinned in tests/history/plan.test.ts), now
 * 2025-06-09T12:00:10Z, end 12:00, 20 days:
 *   15 days before now, plus 10 min, is 2025-05-25T12:10:10; up to five minutes: 12:15.
 *   span 1: 2025-05-20T12:00 .. 2025-05-25T12:15, 300 s, 1,443 periods (7,215 minutes)
 *   span 2: 2025-05-25T12:15 .. 2025-06-09T12:00, 60 s, 21,585 minutes
 * The window's own edges are trimmed inward to whole periods of their span, so every coarse
 * period read lies inside the window: a 5-minute span asked to start at 12:03 starts at 12:05.
 * A window that starts less than an hour before its 5-minute span loses that part, which holds
 * no whole hour (62 days ending 2025-06-08T12:30 start at 2025-04-07T12:30; the 5-minute span
 * starts at 13:00).
 */

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** CloudWatch's retention, finest first. */
export const RETENTION = [
  { periodSeconds: 60, keptDays: 15 },
  { periodSeconds: 300, keptDays: 63 },
  { periodSeconds: 3600, keptDays: 455 },
] as const;

export type PeriodSeconds = (typeof RETENTION)[number]['periodSeconds'];

/** The most days of history CloudWatch keeps (at one-hour periods). */
export const MAX_HISTORY_DAYS = 455;

/**
 * How far inside a finer period's retention a span boundary sits. A call that reaches
 * CloudWatch a few seconds after it was planned (or from a machine whose clock is a few minutes
 * off) would otherwise ask for 1-minute periods from a start more than 15 days ago and get
 * nothing back for the whole span. 10 minutes costs 0.05 % of the 1-minute span.
 */
export const TIER_MARGIN_MS = 10 * MINUTE_MS;

export interface Span {
  /** Epoch ms, inclusive, a whole period. */
  start: number;
  /** Epoch ms, exclusive, a whole period. */
  end: number;
  periodSeconds: PeriodSeconds;
}

export interface HistoryPlan {
  /** The window asked for: [end - days, end). */
  asked: { start: number; end: number };
  /** Spans oldest first, contiguous: the window read is [spans[0].start, spans.at(-1).end). */
  spans: Span[];
}

/** Refused: why, and the most days that do fit before `end` (0 when none does). */
export type PlanResult = { ok: true; plan: HistoryPlan } | { ok: false; message: string; maxDays: number };

export const floorTo = (t: number, stepMs: number) => Math.floor(t / stepMs) * stepMs;
export const ceilTo = (t: number, stepMs: number) => Math.ceil(t / stepMs) * stepMs;

/** Boundary i: younger than it, tier i's period is still kept (with the margin). */
function boundaries(now: number): number[] {
  return RETENTION.slice(0, -1).map((tier, i) =>
    ceilTo(now - tier.keptDays * DAY_MS + TIER_MARGIN_MS, RETENTION[i + 1]!.periodSeconds * 1000),
  );
}

/**
 * The spans that read [end - days, end) at `now`, or why they cannot: an end after now, or a
 * start older than CloudWatch keeps (455 days back from now, floored to the minute).
 */
export function planHistory(input: { now: number; end: number; days: number }): PlanResult {
  const { now, days } = input;
  const end = floorTo(input.end, MINUTE_MS);
  const maxDays = Math.max(0, Math.floor(MAX_HISTORY_DAYS - (floorTo(now, MINUTE_MS) - end) / DAY_MS));
  if (!Number.isInteger(days) || days < 1)
    return { ok: false, message: `days must be a whole number of 1 or more, got ${days}`, maxDays };
  if (end > now)
    return { ok: false, message: 'the window ends after now: history cannot be read ahead', maxDays: 0 };
  const start = end - days * DAY_MS;
  const reach = (floorTo(now, MINUTE_MS) - start) / DAY_MS;
  if (reach > MAX_HISTORY_DAYS) {
    return {
      ok: false,
      message: `the window reaches ${Math.ceil(reach)} days back; CloudWatch keeps ${MAX_HISTORY_DAYS} days (at one-hour periods)`,
      maxDays,
    };
  }
  const b = boundaries(now);
  const spans: Span[] = [];
  for (let i = RETENTION.length - 1; i >= 0; i--) {
    const { periodSeconds } = RETENTION[i]!;
    const periodMs = periodSeconds * 1000;
    const lo = i === RETENTION.length - 1 ? start : Math.max(start, b[i]!);
    const hi = i === 0 ? end : Math.min(end, b[i - 1]!);
    const s = ceilTo(lo, periodMs);
    const e = floorTo(hi, periodMs);
    if (e > s) spans.push({ start: s, end: e, periodSeconds });
  }
  return { ok: true, plan: { asked: { start, end }, spans } };
}

/** Minutes in one period of a span. */
export const periodMinutes = (s: Span) => s.periodSeconds / 60;

/** Minutes a span covers. */
export const spanMinutes = (s: Span) => (s.end - s.start) / MINUTE_MS;
