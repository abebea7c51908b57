/**
 * Span planning by age (shared/history/plan.ts): the window split where CloudWatch's retention
 * changes the finest period it keeps (15 days at 1 minute, 63 at 5, 455 at 1 hour), each
 * boundary 10 minutes inside the finer retention and on a whole coarser period, the window's
 * edges trimmed to whole periods; windows past 455 days or ending after now refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  MINUTE_MS,
  planHistory,
  RETENTION,
  type Span,
  TIER_MARGIN_MS,
} from '#shared/history/plan.ts';

const NOW = Date.parse('2025-06-09T12:00:10Z');
const END = Date.parse('2025-06-09T12:00:00Z');
const iso = (t: number) => new Date(t).toISOString().slice(0, 16);
const shape = (spans: Span[]) => spans.map((s) => `${iso(s.start)} .. ${iso(s.end)} @${s.periodSeconds}`);

describe('planHistory', () => {
  it.each([
    {
      case: 'one day is all 1-minute periods',
      days: 1,
      end: END,
      spans: ['2025-06-08T12:00 .. 2025-06-09T12:00 @60'],
    },
    {
      case: '14 days are still all 1-minute periods',
      days: 14,
      end: END,
      spans: ['2025-05-26T12:00 .. 2025-06-09T12:00 @60'],
    },
    {
      case: '15 days: the first 15 minutes are past the margin, so 5-minute',
      days: 15,
      end: END,
      spans: ['2025-05-25T12:00 .. 2025-05-25T12:15 @300', '2025-05-25T12:15 .. 2025-06-09T12:00 @60'],
    },
    {
      case: '20 days: the worked example (1,443 five-minute periods, then 21,585 minutes)',
      days: 20,
      end: END,
      spans: ['2025-05-20T12:00 .. 2025-05-25T12:15 @300', '2025-05-25T12:15 .. 2025-06-09T12:00 @60'],
    },
    {
      case: '100 days: hourly past 63 days, 5-minute past 15, 1-minute after',
      days: 100,
      end: END,
      spans: [
        '2025-03-01T12:00 .. 2025-04-07T13:00 @3600',
        '2025-04-07T13:00 .. 2025-05-25T12:15 @300',
        '2025-05-25T12:15 .. 2025-06-09T12:00 @60',
      ],
    },
    {
      case: 'an end 20 days ago has no 1-minute data left, and is trimmed to a whole 5 minutes',
      days: 1,
      end: Date.parse('2025-05-20T12:03:00Z'),
      spans: ['2025-05-19T12:05 .. 2025-05-20T12:00 @300'],
    },
    {
      case: 'a start off the hour in the hourly span is trimmed up to the next hour',
      days: 200,
      end: Date.parse('2025-06-09T11:37:00Z'),
      spans: [
        '2024-11-21T12:00 .. 2025-04-07T13:00 @3600',
        '2025-04-07T13:00 .. 2025-05-25T12:15 @300',
        '2025-05-25T12:15 .. 2025-06-09T11:37 @60',
      ],
    },
    {
      case: 'a start less than an hour before the 5-minute span has no whole hour: it is left out',
      days: 62,
      end: Date.parse('2025-06-08T12:30:00Z'),
      spans: ['2025-04-07T13:00 .. 2025-05-25T12:15 @300', '2025-05-25T12:15 .. 2025-06-08T12:30 @60'],
    },
    {
      case: '455 days, the most CloudWatch keeps',
      days: 455,
      end: END,
      spans: [
        '2024-03-11T12:00 .. 2025-04-07T13:00 @3600',
        '2025-04-07T13:00 .. 2025-05-25T12:15 @300',
        '2025-05-25T12:15 .. 2025-06-09T12:00 @60',
      ],
    },
  ])('$case', ({ days, end, spans }) => {
    const result = planHistory({ now: NOW, end, days });
    if (!result.ok) throw new Error(result.message);
    expect(shape(result.plan.spans)).toEqual(spans);
    expect(result.plan.asked).toEqual({
      start: Math.floor(end / MINUTE_MS) * MINUTE_MS - days * DAY_MS,
      end: Math.floor(end / MINUTE_MS) * MINUTE_MS,
    });
  });

  it.each([
    {
      case: '456 days reach past what CloudWatch keeps',
      days: 456,
      end: END,
      says: /reaches 456 days back; CloudWatch keeps 455 days/,
    },
    {
      case: '450 days ending 10 days ago reach 460 days back',
      days: 450,
      end: END - 10 * DAY_MS,
      says: /reaches 460 days back/,
    },
    { case: 'an end after now', days: 1, end: NOW + 5 * MINUTE_MS, says: /ends after now/ },
    { case: 'zero days', days: 0, end: END, says: /whole number of 1 or more/ },
    { case: 'half a day', days: 0.5, end: END, says: /whole number of 1 or more/ },
  ])('refuses $case', ({ days, end, says }) => {
    const result = planHistory({ now: NOW, end, days });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(says);
  });

  it('plans contiguous, aligned spans, each at a period CloudWatch still keeps for its whole age', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 * 365 * 1440 }),
        fc.integer({ min: 0, max: 59_999 }),
        fc.integer({ min: 0, max: 300 * 1440 }),
        fc.integer({ min: 1, max: 455 }),
        (nowMinute, ms, agoMinutes, days) => {
          const now = Date.parse('2020-01-01T00:00:00Z') + nowMinute * MINUTE_MS + ms;
          const end = now - agoMinutes * MINUTE_MS;
          const result = planHistory({ now, end, days });
          if (!result.ok) return;
          const { spans, asked } = result.plan;
          spans.forEach((s, i) => {
            const period = s.periodSeconds * 1000;
            expect(s.start % period).toBe(0);
            expect(s.end % period).toBe(0);
            expect(s.end).toBeGreaterThan(s.start);
            if (i > 0) expect(s.start).toBe(spans[i - 1]!.end);
            // 1- and 5-minute spans end their age 10 minutes short of their retention; the hourly
            // one may start up to a minute past 455 days (the window is counted from the minute).
            const kept = RETENTION.find((r) => r.periodSeconds === s.periodSeconds)!.keptDays * DAY_MS;
            const slack = s.periodSeconds === 3600 ? MINUTE_MS : -TIER_MARGIN_MS;
            expect(now - s.start).toBeLessThanOrEqual(kept + slack);
          });
          // Inside the window asked for, and short of it by less than an hour at each edge (less
          // than a period of the span at the edge, unless that span had no whole period left).
          expect(spans[0]!.start).toBeGreaterThanOrEqual(asked.start);
          expect(spans[0]!.start - asked.start).toBeLessThan(3_600_000);
          expect(spans.at(-1)!.end).toBeLessThanOrEqual(asked.end);
          expect(asked.end - spans.at(-1)!.end).toBeLessThan(3_600_000);
          if (spans.at(-1)!.periodSeconds === 60) expect(spans.at(-1)!.end).toBe(asked.end);
          // Finer periods are younger.
          const periods = spans.map((s) => s.periodSeconds);
          expect([...periods].sort((a, b) => b - a)).toEqual(periods);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
