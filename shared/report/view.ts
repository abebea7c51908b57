/**
 * What the report's chart shows when it opens, and the windows its zoom buttons go to. Pure;
 * bundled into the page and unit-tested (tests/report/view.test.ts).
 *
 * The page opens on the busiest day (the most requests), not on the whole trace: 27 days of
 * six stepped lines are a smear, one day of three reads. The day is chosen from the demand
 * alone, so the same trace opens on the same day whatever the policies did, and two reports of
 * one trace (before and after a tuning) can be compared side by side. The day the policies broke
 * the SLO most is one button away. docs/report.md says why.
 */
import type { PolicyName } from '../backtest/policies/index.ts';
import { formatDuration } from './format.ts';
import { formatMinute } from './time.ts';

export const DAY = 1440;

/** A span of trace minutes, first and last included. */
export type Span = [number, number];

/**
 * Day `day` (0 is the first; days count from the trace's first minute, which carries no wall
 * clock) as [its first minute, the next day's first minute], cut at the trace's last minute,
 * so the axis ends at "day N+1 00:00". Example: day 2 of 4,320 minutes -> [2880, 4319].
 */
export function dayWindow(day: number, minutes: number): Span {
  const start = day * DAY;
  return [start, Math.min(minutes - 1, start + DAY)];
}

/** The index of the day with the largest sum of `perMinute`, the earliest on a tie. */
function heaviestDay(perMinute: (day: number) => number, days: number): number {
  let best = 0;
  let bestSum = Number.NEGATIVE_INFINITY;
  for (let d = 0; d < days; d++) {
    const sum = perMinute(d);
    if (sum > bestSum) [best, bestSum] = [d, sum];
  }
  return best;
}

/**
 * The day with the most requests (not the day of the busiest minute: a one-minute burst on a
 * quiet day would win that). NASA July 1995: day 13, the shuttle launch, 134,203 requests and
 * the busiest minute too. A trace of a day or less is its own busiest day.
 */
export function busiestDay(requests: ArrayLike<number>): Span {
  const days = Math.ceil(requests.length / DAY);
  const sums = new Float64Array(days);
  for (let m = 0; m < requests.length; m++) sums[Math.floor(m / DAY)]! += requests[m]!;
  return dayWindow(
    heaviestDay((d) => sums[d]!, days),
    requests.length,
  );
}

/** The day with the most of these (ascending) violating minutes, or null when there are none. */
export function mostViolationsDay(violations: ArrayLike<number>, minutes: number): Span | null {
  if (violations.length === 0) return null;
  const days = Math.ceil(minutes / DAY);
  const counts = new Float64Array(days);
  for (let i = 0; i < violations.length; i++) counts[Math.floor(violations[i]! / DAY)]! += 1;
  return dayWindow(
    heaviestDay((d) => counts[d]!, days),
    minutes,
  );
}

/**
 * The first minute any of the forecast's series is above zero, or null when none ever is. The
 * backtest's look-ahead records p50 and p90 as 0 before its first forecast (a day of history
 * in), so the minutes before this one have no forecast and the page draws no band there.
 */
export function firstForecastMinute(series: readonly ArrayLike<number>[]): number | null {
  let first: number | null = null;
  for (const values of series) {
    const end = first ?? values.length;
    for (let m = 0; m < end; m++) {
      if (values[m]! > 0) {
        first = m;
        break;
      }
    }
  }
  return first;
}

/** AWS's own target tracking at its recommended target: the baseline an operator knows. */
const AWS_DEFAULT: PolicyName = 'aws-target-tracking';

/**
 * The policies drawn when the page opens: the first (Governor, as the backtest lists it) and
 * AWS target tracking, or the first two when the run has no AWS target tracking. The others
 * start off; their toggles bring them in. With the oracle's floor and the demand that is four
 * lines, not eight.
 */
export function shownAtStart(names: readonly string[]): boolean[] {
  const aws = names.indexOf(AWS_DEFAULT);
  const second = aws > 0 ? aws : 1;
  return names.map((_, i) => i === 0 || i === second);
}

/**
 * The window in words for the line above the chart: "day 13 00:00 to day 14 00:00 (1 d)". A
 * window inside one day names the day once: "day 3 13:20 to 15:20 (2 h)".
 */
export function describeSpan(min: number, max: number): string {
  const from = formatMinute(min);
  const to = formatMinute(max);
  const sameDay = from.split(' ')[1] === to.split(' ')[1];
  return `${from} to ${sameDay ? to.split(' ')[2] : to} (${formatDuration(Math.round(max) - Math.round(min))})`;
}
