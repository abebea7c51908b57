/**
 * Gaps (shared/history/gaps.ts): periods without a datapoint are found, listed with what they
 * were made of, filled by a line between their neighbours or with 0 as the operator chose, and
 * the edges trimmed; a window mostly without data is refused when it would be interpolated.
 */
import { describe, expect, it } from 'vitest';
import { buildHistory } from '#shared/history/build.ts';
import { fillGaps, interpolate, likelyIdle, missingMinutes, mostlyGaps } from '#shared/history/gaps.ts';
import type { Span } from '#shared/history/plan.ts';

const MIN = 60_000;
const T0 = Date.parse('2025-06-01T00:00:00Z');
const oneMinute = (minutes: number): Span[] => [{ start: T0, end: T0 + minutes * MIN, periodSeconds: 60 }];
const _ = null;

describe('interpolate', () => {
  it.each([
    {
      case: 'the worked example: 10 to 20 over 4 minutes',
      before: 10,
      after: 20,
      minutes: 4,
      values: [12, 14, 16, 18],
    },
    { case: 'downhill', before: 20, after: 10, minutes: 4, values: [18, 16, 14, 12] },
    { case: 'flat', before: 7, after: 7, minutes: 3, values: [7, 7, 7] },
    { case: 'rounded to whole requests', before: 0, after: 1, minutes: 2, values: [0, 1] },
    { case: 'one minute: the midpoint', before: 100, after: 200, minutes: 1, values: [150] },
  ])('$case', ({ before, after, minutes, values }) => {
    expect(interpolate(before, after, minutes)).toEqual(values);
  });
});

describe('fillGaps', () => {
  it('fills an inner gap with a line between the minutes on either side and lists it', () => {
    const result = fillGaps([5, 10, _, _, _, _, 20, 6], oneMinute(8), 'interpolate');
    expect(result).toEqual({
      ok: true,
      history: {
        requests: [5, 10, 12, 14, 16, 18, 20, 6],
        minuteZero: T0,
        trimmed: { leading: 0, trailing: 0 },
        gaps: [
          {
            minute: 2,
            start: T0 + 2 * MIN,
            minutes: 4,
            periods: { 60: 4 },
            fill: 'interpolate',
            added: 60,
            before: 10,
            after: 20,
          },
        ],
      },
    });
  });

  it('with --gaps zero, reads every gap as idle minutes', () => {
    const result = fillGaps([5, _, _, 7, _, 9], oneMinute(6), 'zero');
    expect(result.ok && result.history.requests).toEqual([5, 0, 0, 7, 0, 9]);
    expect(result.ok && result.history.gaps.map((g) => [g.minute, g.minutes, g.fill, g.added])).toEqual([
      [1, 2, 'zero', 0],
      [4, 1, 'zero', 0],
    ]);
  });

  it('trims the edges instead of filling them: minute 0 is the first minute with data', () => {
    const result = fillGaps([_, _, 3, 4, _, 6, _, _, _], oneMinute(9), 'interpolate');
    expect(result.ok && result.history).toMatchObject({
      requests: [3, 4, 5, 6],
      minuteZero: T0 + 2 * MIN,
      trimmed: { leading: 2, trailing: 3 },
      gaps: [{ minute: 2, start: T0 + 4 * MIN, minutes: 1 }],
    });
  });

  it('names the periods a gap is made of across a change of period', () => {
    const spans: Span[] = [
      { start: T0, end: T0 + 15 * MIN, periodSeconds: 300 },
      { start: T0 + 15 * MIN, end: T0 + 20 * MIN, periodSeconds: 60 },
    ];
    // A 5-minute period with data, two without, then two 1-minute periods without, then data.
    const minutes = [1, 1, 1, 1, 1, _, _, _, _, _, _, _, _, _, _, _, _, 4, 4, 4];
    const result = fillGaps(minutes, spans, 'zero');
    expect(result.ok && result.history.gaps[0]).toMatchObject({
      minute: 5,
      minutes: 12,
      periods: { 300: 2, 60: 2 },
    });
  });

  it('has no history when no minute has a datapoint', () => {
    expect(fillGaps([_, _, _], oneMinute(3), 'zero')).toEqual({ ok: false, reason: 'NoData' });
  });
});

describe('mostlyGaps', () => {
  const history = (minutes: (number | null)[], fill: 'interpolate' | 'zero') => {
    const r = fillGaps(minutes, oneMinute(minutes.length), fill);
    if (!r.ok) throw new Error('no data');
    return r.history;
  };

  it.each([
    {
      case: 'half the window missing is still a trace',
      minutes: [1, _, _, 4],
      fill: 'interpolate' as const,
      refused: false,
    },
    {
      case: 'more than half missing, interpolated, is refused',
      minutes: [_, 1, _, _, 4, _],
      fill: 'interpolate' as const,
      refused: true,
    },
    {
      case: 'more than half missing, read as idle, is the operator’s call',
      minutes: [_, 1, _, _, 4, _],
      fill: 'zero' as const,
      refused: false,
    },
  ])('$case', ({ minutes, fill, refused }) => {
    const h = history(minutes, fill);
    const message = mostlyGaps(h, minutes.length, fill);
    expect(message !== null).toBe(refused);
    if (message)
      expect(message).toMatch(/^4 of the window's 6 minutes \(67 %\) have no datapoint.*--gaps zero/);
  });

  it('counts trimmed edges as missing minutes', () => {
    expect(missingMinutes(history([_, 1, _, 2, _, _], 'interpolate'))).toBe(4);
  });

  it('the whole build refuses a mostly-missing window and says why', () => {
    const span = oneMinute(6)[0]!;
    const read = { span, sums: [_, 1, _, _, 4, _], fractional: 0 };
    const built = buildHistory(
      { asked: { start: span.start, end: span.end }, spans: [span] },
      [read],
      'interpolate',
    );
    expect(built).toMatchObject({ ok: false, reason: 'MostlyGaps' });
  });
});

describe('likelyIdle', () => {
  it('counts interpolated gaps between minutes under 5 requests, where an idle minute is likely', () => {
    const r = fillGaps([2, _, 3, 40, _, 50, 4, _, 30], oneMinute(9), 'interpolate');
    if (!r.ok) throw new Error('no data');
    expect(likelyIdle(r.history.gaps).map((g) => g.minute)).toEqual([1]);
  });
});
