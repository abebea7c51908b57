/**
 * A year of history (issue 18, "Any length"): 365 days planned as CloudWatch keeps them (15 of
 * 1-minute, 48 of 5-minute, the rest of 1-hour periods), read back with a 120-day hole in the
 * hourly part. The hole fills 172,800 minutes at once; filling it with push(...values) threw
 * "Maximum call stack size exceeded" past about 125,000.
 */
import { describe, expect, it } from 'vitest';
import { buildHistory } from '#shared/history/build.ts';
import { DAY_MS, planHistory } from '#shared/history/plan.ts';
import type { SpanSums } from '#shared/history/series.ts';

const NOW = Date.parse('2025-06-01T00:00:00Z');
const HOLE_DAYS = 120;

function yearOfReads(): SpanSums[] {
  const planned = planHistory({ now: NOW, end: NOW, days: 365 });
  if (!planned.ok) throw new Error(planned.message);
  return planned.plan.spans.map((span) => {
    const periodMs = span.periodSeconds * 1000;
    const sums = Array.from({ length: (span.end - span.start) / periodMs }, (_, i) => {
      const t = span.start + i * periodMs;
      const inHole = span.periodSeconds === 3600 && t >= span.start + 30 * DAY_MS;
      return inHole && t < span.start + (30 + HOLE_DAYS) * DAY_MS ? null : 100 * (span.periodSeconds / 60);
    });
    return { span, sums, fractional: 0 };
  });
}

describe('a year of history', () => {
  it('fills a 120-day hole and returns every minute of the year', () => {
    const planned = planHistory({ now: NOW, end: NOW, days: 365 });
    if (!planned.ok) throw new Error(planned.message);
    const built = buildHistory(planned.plan, yearOfReads(), 'interpolate');
    if (!built.ok) throw new Error(built.message);
    const { filled, summary } = built.history;
    expect(filled.requests.length).toBeGreaterThanOrEqual(364 * 1440);
    expect(filled.gaps.map((g) => g.minutes)).toEqual([HOLE_DAYS * 1440]);
    // 100 a minute on both sides: the line between them is flat.
    expect(filled.gaps[0]!.added).toBe(HOLE_DAYS * 1440 * 100);
    expect(summary.peak.requests).toBe(100);
  });
});
