import { describe, expect, it } from 'vitest';
import {
  busiestDay,
  DAY,
  dayWindow,
  describeSpan,
  firstForecastMinute,
  mostViolationsDay,
  shownAtStart,
} from '#shared/report/view.ts';

/** Per-minute requests: `perDay[d]` every minute of day d, for `minutes` minutes. */
const daily = (perDay: number[], minutes = perDay.length * DAY) =>
  Array.from({ length: minutes }, (_, m) => perDay[Math.floor(m / DAY)] ?? 0);

describe('dayWindow', () => {
  it.each([
    { case: 'spans a whole day, ending at the next midnight', day: 1, minutes: 4320, want: [1440, 2880] },
    { case: 'ends at the last minute on the last day', day: 2, minutes: 4320, want: [2880, 4319] },
    { case: 'is cut short on a partial last day', day: 27, minutes: 39_693, want: [38_880, 39_692] },
    { case: 'is the whole trace when the trace is shorter than a day', day: 0, minutes: 90, want: [0, 89] },
  ])('$case', ({ day, minutes, want }) => {
    expect(dayWindow(day, minutes)).toEqual(want);
  });
});

describe('busiestDay', () => {
  it.each([
    { case: 'is the day with the most requests', requests: daily([10, 30, 20]), want: [1440, 2880] },
    {
      case: 'is not the day of a one-minute burst on a quiet day',
      requests: daily([10, 30, 20]).map((r, m) => (m === 100 ? 5000 : r)),
      want: [1440, 2880],
    },
    { case: 'is the earliest of days that tie', requests: daily([20, 30, 30]), want: [1440, 2880] },
    { case: 'is the whole trace when it is shorter than a day', requests: daily([5], 600), want: [0, 599] },
    {
      case: 'can be a partial last day',
      requests: daily([1, 1, 100], 2 * DAY + 60),
      want: [2880, 2939],
    },
  ])('$case', ({ requests, want }) => {
    expect(busiestDay(requests)).toEqual(want);
  });
});

describe('mostViolationsDay', () => {
  it.each([
    {
      case: 'is the day with the most violating minutes',
      violations: [5, 6, 1500, 1501, 1502],
      want: [1440, 2880],
    },
    { case: 'is null when the policy never violated', violations: [], want: null },
  ])('$case', ({ violations, want }) => {
    expect(mostViolationsDay(violations, 4320)).toEqual(want);
  });
});

describe('firstForecastMinute', () => {
  it.each([
    {
      case: 'is the first minute any quantile is above zero (the look-ahead records 0 before)',
      series: [
        [0, 0, 0, 4, 5],
        [0, 0, 7, 9, 9],
      ],
      want: 2,
    },
    {
      case: 'is 0 when the band starts with the trace',
      series: [
        [3, 4],
        [5, 6],
      ],
      want: 0,
    },
    {
      case: 'is null when the band never rises above zero',
      series: [
        [0, 0],
        [0, 0],
      ],
      want: null,
    },
    { case: 'keeps a zero forecast after the first one as a forecast', series: [[0, 2, 0, 0, 3]], want: 1 },
  ])('$case', ({ series, want }) => {
    expect(firstForecastMinute(series)).toBe(want);
  });
});

describe('shownAtStart', () => {
  it.each([
    {
      case: 'shows governor and AWS target tracking of a full backtest run, the others off',
      names: [
        'governor',
        'governor-reactive',
        'aws-target-tracking',
        'aws-target-tracking-at-slo',
        'k8s-hpa',
        'static-peak',
      ],
      want: [true, false, true, false, false, false],
    },
    {
      case: 'shows the first two policies of a run without AWS target tracking',
      names: ['governor', 'k8s-hpa', 'static-peak'],
      want: [true, true, false],
    },
    { case: 'shows a lone policy', names: ['k8s-hpa'], want: [true] },
    {
      case: 'shows AWS target tracking listed first once',
      names: ['aws-target-tracking', 'k8s-hpa'],
      want: [true, true],
    },
  ])('$case', ({ names, want }) => {
    expect(shownAtStart(names)).toEqual(want);
  });
});

describe('describeSpan', () => {
  it.each([
    {
      case: 'a day, to the next midnight',
      min: 17_280,
      max: 18_720,
      want: 'day 13 00:00 to day 14 00:00 (1 d)',
    },
    {
      case: 'two hours inside one day, naming the day once',
      min: 2960,
      max: 3080,
      want: 'day 3 01:20 to 03:20 (2 h)',
    },
    {
      case: 'a dragged span, rounded to minutes',
      min: 100.4,
      max: 250.6,
      want: 'day 1 01:40 to 04:11 (2 h 31 min)',
    },
  ])('$case', ({ min, max, want }) => {
    expect(describeSpan(min, max)).toBe(want);
  });
});
