/**
 * Gaps: periods CloudWatch has no datapoint for. Found, filled so the trace is complete (every
 * minute from 0 to the last), and reported one by one. Pure.
 *
 * Why a gap is not simply 0: SageMaker sends a sample per request (the SageMaker API reference,
 * ScalingPolicyMetric, documents InvocationsPerInstance as "1/numberOfInstances is sent as the
 * value on each request"; Invocations has SampleCount among its statistics), so CloudWatch
 * stores no datapoint for a minute without requests. A gap is therefore either an idle minute (truly 0) or a hole in the metrics (the
 * endpoint was updating, CloudWatch or the publisher missed it), and the data cannot tell
 * which. The operator chooses:
 *
 * - `interpolate` (the default): a straight line between the minute before the gap and the
 *   minute after it, rounded to whole requests, as the bundled Twitter trace's capture holes
 *   were repaired. Right for busy traffic, where a minute without any request is next to
 *   impossible: at 10 requests a minute a Poisson stream has one once in 22,000 minutes
 *   (e^-10). Before 10, after 20, a gap of 4 minutes: 12, 14, 16, 18 (+60 requests).
 * - `zero`: every gap is an idle minute. Right for services that publish nothing when idle
 *   and go quiet for real (a scale-to-zero inference component at night).
 *
 * With `interpolate`, a gap between minutes under IDLE_HINT_REQUESTS is counted apart: at 5
 * requests a minute a stream has an empty minute every 150 minutes or so (e^-5 = 0.7 %), so such
 * a gap is as likely idle as a hole, and the command says `--gaps zero` would read it as idle.
 *
 * The edges are trimmed, not filled: before the first datapoint there is nothing to draw a line
 * from (the target did not exist yet, or was idle), and after the last one there is nothing to
 * draw it to (usually the minute or two SageMaker has not published yet). The trace runs from
 * the first minute with data to the last, and the note says what was trimmed.
 */
import { appendAll } from '../arrays/extent.ts';
import { MINUTE_MS, type PeriodSeconds, type Span } from './plan.ts';

export const GAP_FILLS = ['interpolate', 'zero'] as const;
export type GapFill = (typeof GAP_FILLS)[number];

/** Below this many requests a minute on both sides, a gap may well be an idle minute. */
export const IDLE_HINT_REQUESTS = 5;
/** Over this share of the window without data, interpolation would make up most of the trace. */
export const MOSTLY_GAPS = 0.5;

export interface Gap {
  /** The trace's minute where the gap starts (after trimming). */
  minute: number;
  /** Epoch ms of that minute. */
  start: number;
  minutes: number;
  /** Periods without a datapoint, by period: { 300: 3 } is three 5-minute periods. */
  periods: Partial<Record<PeriodSeconds, number>>;
  fill: GapFill;
  /** Requests the fill put in. */
  added: number;
  /** Requests in the minute before and the minute after. */
  before: number;
  after: number;
}

export interface FilledHistory {
  /** Requests per minute, complete: the trace. */
  requests: number[];
  /** Epoch ms of the trace's minute 0. */
  minuteZero: number;
  /** Minutes without data cut from the window's start and end. */
  trimmed: { leading: number; trailing: number };
  gaps: Gap[];
}

export type FillResult = { ok: true; history: FilledHistory } | { ok: false; reason: 'NoData' };

/** The span (and so the period) each minute of the window belongs to. */
function periodAt(spans: readonly Span[], t: number): PeriodSeconds {
  const span = spans.find((s) => t >= s.start && t < s.end);
  if (!span) throw new Error(`minute ${new Date(t).toISOString()} is in no span`);
  return span.periodSeconds;
}

function composition(spans: readonly Span[], start: number, minutes: number) {
  const periods: Partial<Record<PeriodSeconds, number>> = {};
  for (let m = 0; m < minutes; ) {
    const p = periodAt(spans, start + m * MINUTE_MS);
    periods[p] = (periods[p] ?? 0) + 1;
    m += p / 60;
  }
  return periods;
}

/** Linear between `before` and `after`, rounded: before 10, after 20, 4 minutes -> 12, 14, 16, 18. */
export function interpolate(before: number, after: number, minutes: number): number[] {
  return Array.from({ length: minutes }, (_, i) =>
    Math.round(before + ((after - before) * (i + 1)) / (minutes + 1)),
  );
}

/**
 * The window's minutes (null: no datapoint), starting at the first span's start, to a complete
 * trace: edges trimmed, inner gaps filled as `fill` says and listed.
 */
export function fillGaps(
  minutes: readonly (number | null)[],
  spans: readonly Span[],
  fill: GapFill,
): FillResult {
  const first = minutes.findIndex((v) => v !== null);
  if (first < 0) return { ok: false, reason: 'NoData' };
  let last = minutes.length - 1;
  while (minutes[last] === null) last--;
  const windowStart = spans[0]!.start;
  const minuteZero = windowStart + first * MINUTE_MS;
  const requests: number[] = [];
  const gaps: Gap[] = [];
  for (let m = first; m <= last; ) {
    const v = minutes[m];
    if (v !== null && v !== undefined) {
      requests.push(v);
      m++;
      continue;
    }
    let end = m;
    while (minutes[end] === null) end++;
    const length = end - m;
    const before = requests.at(-1)!;
    const after = minutes[end]!;
    const values = fill === 'zero' ? new Array<number>(length).fill(0) : interpolate(before, after, length);
    const start = windowStart + m * MINUTE_MS;
    gaps.push({
      minute: requests.length,
      start,
      minutes: length,
      periods: composition(spans, start, length),
      fill,
      added: values.reduce((a, b) => a + b, 0),
      before,
      after,
    });
    appendAll(requests, values);
    m = end;
  }
  return {
    ok: true,
    history: { requests, minuteZero, trimmed: { leading: first, trailing: minutes.length - 1 - last }, gaps },
  };
}

/** Minutes of the window without a datapoint: the gaps and the trimmed edges. */
export const missingMinutes = (h: FilledHistory): number =>
  h.trimmed.leading + h.trimmed.trailing + h.gaps.reduce((a, g) => a + g.minutes, 0);

/**
 * Why the history is too thin to be a trace, or null. With `interpolate`, more than half the
 * window without data would be a trace made up more than read. With `zero` the operator has said
 * missing minutes are idle ones, so only a window without any datapoint fails (fillGaps).
 */
export function mostlyGaps(h: FilledHistory, windowMinutes: number, fill: GapFill): string | null {
  const missing = missingMinutes(h);
  if (fill !== 'interpolate' || missing <= MOSTLY_GAPS * windowMinutes) return null;
  const pct = Math.round((100 * missing) / windowMinutes);
  return `${missing.toLocaleString('en-US')} of the window's ${windowMinutes.toLocaleString('en-US')} minutes (${pct} %) have no datapoint: a trace interpolated across them would be mostly made up. Read a window the target was busy in (--days, --end), or pass --gaps zero if it publishes nothing when idle`;
}

/** Gaps filled by interpolation whose neighbours were both under IDLE_HINT_REQUESTS. */
export const likelyIdle = (gaps: readonly Gap[]): Gap[] =>
  gaps.filter((g) => g.fill === 'interpolate' && Math.max(g.before, g.after) < IDLE_HINT_REQUESTS);
