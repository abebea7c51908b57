/**
 * What `governor history` writes and says: the trace CSV (the format of traces/, read by
 * shared/backtest/trace.ts), the sidecar note in the style of traces/*.md, and the lines on
 * stderr. Pure: text in, text out.
 */

import type { TargetPolicy } from '../policy/schema.ts';
import { formatNumber as n } from '../report/format.ts';
import { describeSources } from '../signals/demand.ts';
import type { History } from './build.ts';
import { type Gap, IDLE_HINT_REQUESTS, likelyIdle } from './gaps.ts';
import { DAY_MS, MINUTE_MS, type PeriodSeconds, periodMinutes, spanMinutes } from './plan.ts';
import { type SpanSums, spreadExample } from './series.ts';

export const TRACE_HEADER = 'minute,requests,input_tokens,output_tokens';

/** The trace: every minute from 0, token columns empty (CloudWatch counts requests, not tokens). */
export function renderCsv(requests: readonly number[]): string {
  const lines = [TRACE_HEADER];
  for (let m = 0; m < requests.length; m++) lines.push(`${m},${requests[m]},,`);
  return `${lines.join('\n')}\n`;
}

/** 2025-05-20T12:05Z: minutes are all the resolution there is. */
export const utc = (t: number): string => `${new Date(t).toISOString().slice(0, 16)}Z`;

export const PERIOD_NAME: Record<PeriodSeconds, string> = { 60: '1-minute', 300: '5-minute', 3600: '1-hour' };
export const AGE: Record<PeriodSeconds, string> = {
  60: 'under 15 days old',
  300: '15 to 63 days old',
  3600: '63 to 455 days old',
};

export const plural = (count: number, one: string, many = `${one}s`) =>
  `${n(count)} ${count === 1 ? one : many}`;

/** "3 x 5-minute periods", "2 x 5-minute + 4 x 1-minute periods". */
export function describePeriods(periods: Gap['periods']): string {
  const parts = (Object.entries(periods) as [string, number][])
    .sort(([a], [b]) => Number(b) - Number(a))
    .map(([p, count]) => `${n(count)} x ${PERIOD_NAME[Number(p) as PeriodSeconds]}`);
  return `${parts.join(' + ')} period${Object.values(periods).reduce((a, b) => a + b, 0) === 1 ? '' : 's'}`;
}

export function howFilled(g: Gap): string {
  return g.fill === 'zero'
    ? 'filled with 0 (idle)'
    : `filled by interpolation between ${n(g.before)} and ${n(g.after)} (+${plural(g.added, 'request')})`;
}

/** How one coarse span was spread, with a worked example from its own data. */
export function spreadLine(read: SpanSums): string {
  const k = periodMinutes(read.span);
  const example = spreadExample(read);
  const shown = example
    ? `; for example ${utc(example.start)}: ${n(example.sum)} -> ${example.minutes
        .slice(0, 6)
        .map((v) => n(v))
        .join(', ')}${k > 6 ? ', ...' : ''}`
    : '';
  return `each ${PERIOD_NAME[read.span.periodSeconds]} Sum spread evenly over its ${k} minutes in whole requests, the remainder one request at a time over the first minutes, so every period keeps its total${shown}`;
}

function spanLine(read: SpanSums): string {
  const { span } = read;
  const head = `span ${utc(span.start)} to ${utc(span.end)}: ${PERIOD_NAME[span.periodSeconds]} periods (${AGE[span.periodSeconds]})`;
  if (span.periodSeconds === 60) return `${head}, ${plural(spanMinutes(span), 'minute')} as read`;
  return `${head}, ${plural(read.sums.length, 'period')}: ${spreadLine(read)}`;
}

function gapLine(g: Gap): string {
  return `gap at minute ${n(g.minute)} (${utc(g.start)}): ${plural(g.minutes, 'minute')} (${describePeriods(g.periods)}) without a datapoint, ${howFilled(g)}`;
}

/** "minute" or "12 minutes": the first minute, the last 12 minutes. */
const run = (minutes: number) => (minutes === 1 ? 'minute' : plural(minutes, 'minute'));

export function trimLines(h: History): string[] {
  const { leading, trailing } = h.filled.trimmed;
  const lines: string[] = [];
  if (leading > 0)
    lines.push(
      `trimmed: the first ${run(leading)} of the window had no datapoint (the target did not exist yet, or was idle): minute 0 is ${utc(h.filled.minuteZero)}`,
    );
  if (trailing > 0) {
    const after = h.filled.minuteZero + h.filled.requests.length * MINUTE_MS;
    lines.push(
      `trimmed: the last ${run(trailing)} of the window (from ${utc(after)}) had no datapoint (not published yet, or idle): the trace ends there`,
    );
  }
  return lines;
}

function idleHint(h: History): string[] {
  const idle = likelyIdle(h.filled.gaps);
  if (idle.length === 0) return [];
  return [
    `hint: ${n(idle.length)} of the ${plural(h.filled.gaps.length, 'gap')} ${idle.length === 1 ? 'sits' : 'sit'} between minutes under ${IDLE_HINT_REQUESTS} requests, where an idle minute is likely (SageMaker publishes no datapoint for a minute without requests): --gaps zero reads ${idle.length === 1 ? 'it' : 'them'} as 0`,
  ];
}

/** One line per fact worth knowing, for stderr: what was read, each span, each gap. */
export function reportLines(h: History, target: TargetPolicy, region: string): string[] {
  const { asked } = h.plan;
  return [
    `history ${target.id}: ${describeSources(target)}, Sum, in ${region}, ${utc(asked.start)} to ${utc(asked.end)} (${n((asked.end - asked.start) / DAY_MS)} days)`,
    ...h.reads.map(spanLine),
    ...h.filled.gaps.map(gapLine),
    ...trimLines(h),
    ...idleHint(h),
    ...(h.summary.fractional > 0
      ? [
          `warning: ${plural(h.summary.fractional, 'period')} had a Sum that is not a whole number (rounded): is the metric a request count?`,
        ]
      : []),
  ];
}

/** The line on stdout once both files are written. */
export function doneLine(h: History, csvName: string, noteName: string): string {
  const s = h.summary;
  return `wrote ${csvName} (${plural(s.minutes, 'minute')}, ${plural(s.requests, 'request')}, peak ${n(s.peak.requests)} at minute ${n(s.peak.minute)}; ${plural(h.filled.gaps.length, 'gap')} filled) and ${noteName}`;
}
