/**
 * The spans read, to the history the command writes: minutes, gaps filled, figures. Pure.
 */
import { type FilledHistory, fillGaps, type GapFill, mostlyGaps } from './gaps.ts';
import { type HistoryPlan, MINUTE_MS, type PeriodSeconds, spanMinutes } from './plan.ts';
import { type SpanSums, toMinutes } from './series.ts';

export interface HistorySummary {
  minutes: number;
  requests: number;
  /** Requests the gap fill put in. */
  added: number;
  peak: { requests: number; minute: number; start: number; periodSeconds: PeriodSeconds };
  /** Minutes of the trace by the period they were read at, finest first. */
  byPeriod: { periodSeconds: PeriodSeconds; minutes: number }[];
  /** Periods whose Sum was not a whole number (rounded to whole requests). */
  fractional: number;
}

export interface History {
  plan: HistoryPlan;
  reads: SpanSums[];
  fill: GapFill;
  filled: FilledHistory;
  summary: HistorySummary;
}

export type BuildResult =
  | { ok: true; history: History }
  | { ok: false; reason: 'NoData' | 'MostlyGaps'; message: string };

function summarize(plan: HistoryPlan, reads: readonly SpanSums[], filled: FilledHistory): HistorySummary {
  const { requests, minuteZero } = filled;
  const periodOf = (t: number) => plan.spans.find((s) => t >= s.start && t < s.end)!.periodSeconds;
  let peakMinute = 0;
  requests.forEach((r, m) => {
    if (r > requests[peakMinute]!) peakMinute = m;
  });
  const counts = new Map<PeriodSeconds, number>();
  requests.forEach((_, m) => {
    const p = periodOf(minuteZero + m * MINUTE_MS);
    counts.set(p, (counts.get(p) ?? 0) + 1);
  });
  const peakStart = minuteZero + peakMinute * MINUTE_MS;
  return {
    minutes: requests.length,
    requests: requests.reduce((a, b) => a + b, 0),
    added: filled.gaps.reduce((a, g) => a + g.added, 0),
    peak: {
      requests: requests[peakMinute]!,
      minute: peakMinute,
      start: peakStart,
      periodSeconds: periodOf(peakStart),
    },
    byPeriod: [...counts]
      .sort(([a], [b]) => a - b)
      .map(([periodSeconds, minutes]) => ({ periodSeconds, minutes })),
    fractional: reads.reduce((a, r) => a + r.fractional, 0),
  };
}

/**
 * The spans' sums to a complete per-minute history, or why there is none: no datapoint at all
 * (NoData), or, with interpolation, more than half the window without one (MostlyGaps).
 */
export function buildHistory(plan: HistoryPlan, reads: SpanSums[], fill: GapFill): BuildResult {
  const filledResult = fillGaps(toMinutes(reads), plan.spans, fill);
  if (!filledResult.ok) return { ok: false, reason: 'NoData', message: 'no datapoint in the window' };
  const filled = filledResult.history;
  const windowMinutes = plan.spans.reduce((a, s) => a + spanMinutes(s), 0);
  const thin = mostlyGaps(filled, windowMinutes, fill);
  if (thin) return { ok: false, reason: 'MostlyGaps', message: thin };
  return { ok: true, history: { plan, reads, fill, filled, summary: summarize(plan, reads, filled) } };
}
