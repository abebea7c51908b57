/**
 * GetMetricData results to requests per minute. Pure.
 *
 * 1. binSpan: one span's results (every page, every demand source) to one sum per period, null
 *    where no source has a datapoint: a gap, never a 0 (shared/history/gaps.ts decides what
 *    fills it). Sums are rounded to whole requests; a fractional Sum is counted, since a
 *    request count never has one.
 * 2. spreadEvenly: a coarse period's sum over its minutes, in whole requests that add up to
 *    it exactly: evenly, and the remainder one request at a time over the first minutes.
 *      503 over 5 minutes  -> 101, 101, 101, 100, 100
 *      3 over 5 minutes    -> 1, 1, 1, 0, 0
 *      7,205 over 60       -> 121 x 5, then 120 x 55
 * 3. toMinutes: the spans, oldest first, to one value per minute (null in a gap).
 */
import type { HistoryQuery } from '../signals/demand.ts';
import type { RawMetricResult } from '../signals/readings.ts';
import { MINUTE_MS, periodMinutes, type Span } from './plan.ts';

export interface SpanSums {
  span: Span;
  /** Requests per period, oldest first; null: no datapoint in the period. */
  sums: (number | null)[];
  /** Periods whose Sum was not a whole number (rounded). */
  fractional: number;
}

export type BinResult = { ok: true; read: SpanSums } | { ok: false; message: string };

/** Adds one result's points into per-period sums; a string when it cannot be trusted. */
function addResult(sums: (number | null)[], r: RawMetricResult, q: HistoryQuery, span: Span): string | null {
  const name = q.source.metricName;
  if (r.StatusCode === 'InternalError' || r.StatusCode === 'Forbidden')
    return `${name}: status ${r.StatusCode}`;
  const ts = r.Timestamps ?? [];
  const vs = r.Values ?? [];
  if (ts.length !== vs.length) return `${name}: ${ts.length} timestamps but ${vs.length} values`;
  const periodMs = span.periodSeconds * 1000;
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i] instanceof Date ? ts[i]!.getTime() : Number.NaN;
    const v = vs[i];
    if (!Number.isFinite(t) || typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      return `${name}: point ${i} is not a time and a count of 0 or more`;
    // A point outside the span (CloudWatch can answer a period starting at EndTime) is not ours.
    const bin = Math.floor((t - span.start) / periodMs);
    if (bin < 0 || bin >= sums.length) continue;
    sums[bin] = (sums[bin] ?? 0) + v * q.source.scale;
  }
  return null;
}

/** One span's results to per-period sums; results whose Id is not one of `queries` are ignored. */
export function binSpan(
  span: Span,
  queries: readonly HistoryQuery[],
  results: readonly RawMetricResult[],
): BinResult {
  const byId = new Map(queries.map((q) => [q.id, q]));
  const raw: (number | null)[] = new Array((span.end - span.start) / (span.periodSeconds * 1000)).fill(null);
  for (const r of results) {
    const q = r.Id === undefined ? undefined : byId.get(r.Id);
    if (!q) continue;
    const problem = addResult(raw, r, q, span);
    if (problem) return { ok: false, message: `GetMetricData result rejected: ${problem}` };
  }
  let fractional = 0;
  const sums = raw.map((v) => {
    if (v === null) return null;
    const whole = Math.round(v);
    if (Math.abs(v - whole) > 1e-9) fractional++;
    return whole;
  });
  return { ok: true, read: { span, sums, fractional } };
}

/** `total` whole requests over `minutes` minutes, adding up exactly (see the examples above). */
export function spreadEvenly(total: number, minutes: number): number[] {
  if (!Number.isSafeInteger(total) || total < 0) throw new RangeError(`cannot spread ${total} requests`);
  if (!Number.isInteger(minutes) || minutes < 1)
    throw new RangeError(`cannot spread over ${minutes} minutes`);
  const base = Math.floor(total / minutes);
  const rest = total - base * minutes;
  return Array.from({ length: minutes }, (_, i) => base + (i < rest ? 1 : 0));
}

/** The spans' sums, oldest first, to one value per minute from the first span's start. */
export function toMinutes(reads: readonly SpanSums[]): (number | null)[] {
  const minutes: (number | null)[] = [];
  for (const { span, sums } of reads) {
    if (minutes.length > 0 && reads[0]!.span.start + minutes.length * MINUTE_MS !== span.start)
      throw new Error('spans must be contiguous, oldest first');
    const n = periodMinutes(span);
    for (const sum of sums) {
      if (sum === null) for (let i = 0; i < n; i++) minutes.push(null);
      else for (const v of spreadEvenly(sum, n)) minutes.push(v);
    }
  }
  return minutes;
}

/** The first period of a coarse span whose sum does not divide evenly, as a worked example. */
export function spreadExample(read: SpanSums): { start: number; sum: number; minutes: number[] } | null {
  const n = periodMinutes(read.span);
  const i = read.sums.findIndex((s) => s !== null && s % n !== 0);
  if (i < 0) return null;
  const sum = read.sums[i]!;
  return { start: read.span.start + i * n * MINUTE_MS, sum, minutes: spreadEvenly(sum, n) };
}
