/**
 * The sidecar note beside the trace (history.csv -> history.md), in the style of traces/*.md:
 * where the numbers came from, at what period, what was spread, what was missing and how it
 * was filled, and the figures. The backtest never reads it; the operator keeps it with the file.
 * Pure.
 */

import type { TargetPolicy } from '../policy/schema.ts';
import { formatNumber as n } from '../report/format.ts';
import { demandSources } from '../signals/demand.ts';
import type { History } from './build.ts';
import { IDLE_HINT_REQUESTS, likelyIdle } from './gaps.ts';
import { DAY_MS, MINUTE_MS } from './plan.ts';
import {
  AGE,
  describePeriods,
  howFilled,
  PERIOD_NAME,
  plural,
  spreadLine,
  trimLines,
  utc,
} from './render.ts';

export interface NoteContext {
  csvName: string;
  policyFile: string;
  target: TargetPolicy;
  region: string;
  /** When the history was read (epoch ms). */
  now: number;
}

const resourceOf = (t: TargetPolicy): string => {
  switch (t.kind) {
    case 'sagemaker-variant':
      return `endpoint \`${t.endpointName}\`, variant \`${t.variantName}\``;
    case 'sagemaker-inference-component':
      return `inference component \`${t.inferenceComponentName}\` on endpoint \`${t.endpointName}\``;
    case 'ec2-asg':
      return `Auto Scaling group \`${t.autoScalingGroupName}\``;
  }
};

function sourceSection(h: History, c: NoteContext): string[] {
  const sources = demandSources(c.target);
  const start = h.plan.spans[0]!.start;
  const end = h.plan.spans.at(-1)!.end;
  return [
    '## Source',
    `- Target: \`${c.target.id}\` (${c.target.kind}: ${resourceOf(c.target)}) of the policy file \`${c.policyFile}\`.`,
    ...sources.map(
      (s) =>
        `- Metric: \`${s.namespace}\` \`${s.metricName}\`, statistic ${s.statistic}, dimensions ${Object.entries(
          s.dimensions,
        )
          .map(([k, v]) => `\`${k}=${v}\``)
          .join(
            ', ',
          )}${sources.length > 1 ? ' (the sources are added per period: together they are the demand)' : ''}.`,
    ),
    `- Region: ${c.region}. Read at ${new Date(c.now).toISOString()} with ${plural(h.plan.spans.length, 'GetMetricData call')} (one per span, each following NextToken to its last page).`,
    `- Window asked for: ${utc(h.plan.asked.start)} to ${utc(h.plan.asked.end)} (${n((h.plan.asked.end - h.plan.asked.start) / DAY_MS)} days, UTC, end exclusive).`,
    `- Window read: ${utc(start)} to ${utc(end)} (its edges on whole periods of their span).`,
    `- Minute 0: **${utc(h.filled.minuteZero)}** (UTC). Minute \`m\` is the minute that starts \`m\` minutes later; \`minute % 1440\` is the UTC minute of the day only when minute 0 is at 00:00.`,
    '- `input_tokens` and `output_tokens` are empty: CloudWatch counts requests, not tokens.',
  ];
}

function spanSection(h: History): string[] {
  const rows = h.reads.map((r) => {
    const present = r.sums.filter((s) => s !== null).length;
    return `| ${utc(r.span.start)} to ${utc(r.span.end)} | ${AGE[r.span.periodSeconds]} | ${PERIOD_NAME[r.span.periodSeconds]} | ${n(r.sums.length)} | ${n(present)} | ${n((r.span.end - r.span.start) / MINUTE_MS)} |`;
  });
  const coarse = h.reads.filter((r) => r.span.periodSeconds > 60);
  return [
    '## Spans and periods',
    'CloudWatch keeps 1-minute datapoints for 15 days, 5-minute ones for 63 days and 1-hour ones for 455 days; each span was read at the finest period still kept for its age (at the time of the read).',
    '',
    '| span (UTC) | age | period | periods | periods with data | minutes |',
    '|---|---|---|---:|---:|---:|',
    ...rows,
    '',
    '## How coarse spans were spread',
    ...(coarse.length === 0
      ? ['- None: every minute was read at 1-minute periods.']
      : coarse.map((r) => `- ${utc(r.span.start)} to ${utc(r.span.end)}: ${spreadLine(r)}.`)),
  ];
}

function gapSection(h: History): string[] {
  const { gaps } = h.filled;
  const how =
    h.fill === 'zero'
      ? '- Filled with 0 (`--gaps zero`): every period without a datapoint was read as idle.'
      : '- Filled by linear interpolation (`--gaps interpolate`) between the minute before each gap and the minute after it, rounded to whole requests.';
  const idle = likelyIdle(gaps);
  const table =
    gaps.length === 0
      ? ['- None: every period between the first datapoint and the last had one.']
      : [
          how,
          ...(idle.length > 0
            ? [
                `- ${plural(idle.length, 'gap')} ${idle.length === 1 ? 'sits' : 'sit'} between minutes under ${IDLE_HINT_REQUESTS} requests, where an idle minute is likely (SageMaker publishes no datapoint for a minute without requests); \`--gaps zero\` reads ${idle.length === 1 ? 'it' : 'them'} as 0.`,
              ]
            : []),
          '',
          '| minute | start (UTC) | minutes | periods without data | filled |',
          '|---:|---|---:|---|---|',
          ...gaps.map(
            (g) =>
              `| ${n(g.minute)} | ${utc(g.start)} | ${n(g.minutes)} | ${describePeriods(g.periods)} | ${howFilled(g)} |`,
          ),
        ];
  const trimmed = trimLines(h).map((l) => `- ${l[0]!.toUpperCase()}${l.slice(1)}.`);
  return ['## Gaps', ...table, ...(trimmed.length > 0 ? ['', ...trimmed] : [])];
}

function numbersSection(h: History): string[] {
  const s = h.summary;
  const mean = s.requests / s.minutes;
  const spreadRows = s.byPeriod.map((p) =>
    p.periodSeconds === 60
      ? `| minutes read at 1-minute periods | ${n(p.minutes)} |`
      : `| minutes spread from ${PERIOD_NAME[p.periodSeconds]} sums | ${n(p.minutes)} |`,
  );
  return [
    '## Numbers',
    '| item | value |',
    '|---|---|',
    `| rows (minutes) | ${n(s.minutes)} (${n(s.minutes / 1440, 2)} days) |`,
    `| total requests | ${n(s.requests)}${s.added > 0 ? ` (${n(s.added)} of them filled into gaps)` : ''} |`,
    `| mean requests / minute | ${n(mean, 1)} |`,
    `| peak requests / minute | ${n(s.peak.requests)} (minute ${n(s.peak.minute)}, ${utc(s.peak.start)}, ${s.peak.periodSeconds === 60 ? 'read at 1 minute' : `spread from a ${PERIOD_NAME[s.peak.periodSeconds]} sum`}) |`,
    ...spreadRows,
    `| minutes in gaps (filled) | ${n(h.filled.gaps.reduce((a, g) => a + g.minutes, 0))} |`,
  ];
}

const CAVEATS = [
  '## Caveats',
  '- Minutes spread from a coarse sum are flat within their period: a burst shorter than the period is averaged over it, so a policy looks better there than it will be. Judge it on the 1-minute part.',
  '- A filled gap is a guess, listed above: interpolation where the service was probably busy, 0 where it was probably idle. Neither is what happened.',
  '- This is the demand CloudWatch counted: requests the service answered or refused. Requests that never reached it are not in it.',
];

/** The note, as markdown. */
export function renderNote(h: History, c: NoteContext): string {
  const intro = `Per-minute demand of target \`${c.target.id}\`, read from CloudWatch by \`governor history\`, in the trace format of traces/ (\`minute,requests,input_tokens,output_tokens\`). \`governor backtest --trace ${c.csvName}\` reads the CSV and ignores this note.`;
  return `${[
    `# ${c.csvName}`,
    '',
    intro,
    '',
    ...sourceSection(h, c),
    '',
    ...spanSection(h),
    '',
    ...gapSection(h),
    '',
    ...numbersSection(h),
    '',
    ...CAVEATS,
  ].join('\n')}\n`;
}
