/**
 * GetMetricData results to the engine's readings, per target. A result that is malformed (no
 * id, an unknown id, timestamps and values of different lengths, a value that is not a finite
 * number, a bad date, an error status) is rejected with a problem line and its signal reads as
 * missing, never as zero: the engine never scales in on data it does not have.
 *
 * Reading.timestamp is the END of the datapoint's minute (CloudWatch stamps a period with its
 * start): the 12:05 datapoint describes 12:05-12:06, so at 12:07:10 it is 70 s old.
 *
 * A SageMaker target's readings carry the instances they were averaged over (Reading.basis,
 * withBasis), from the Invocations of the same minute, as the backtest gives the engine the
 * ready count of the reading's minute.
 *
 * A datapoint whose minute ends after now (beyond FUTURE_SKEW_MS of clock skew) is not fresh, it
 * is wrong: a publisher's bad clock, or a custom metric put ahead of time. It is dropped with a
 * problem line, so an older datapoint (judged by its own age) or none stands for the signal:
 * a future stamp would otherwise read as age 0 and count as fresh for as long as it is ahead.
 */
import type { ActivationMetric, Reading } from '../engine/types.ts';
import type { MetricName } from '../policy/schema.ts';
import { type MetricQuery, PERIOD_SECONDS } from './queries.ts';

/** The fields of a GetMetricData MetricDataResult this code reads (SDK shape, all optional). */
export interface RawMetricResult {
  Id?: string;
  Timestamps?: Date[];
  Values?: number[];
  StatusCode?: string;
}

export interface TargetReadings {
  readings: Partial<Record<MetricName, Reading>>;
  activation?: Partial<Record<ActivationMetric, Reading>>;
}

export interface Converted {
  byTarget: Map<string, TargetReadings>;
  problems: string[];
}

type Points = Map<number, number>;

/**
 * How far past now a datapoint's minute may end and still be read: 10 s of clock skew. The
 * query window ends at the start of the current minute, so every honest datapoint ends by now.
 */
export const FUTURE_SKEW_MS = 10_000;

/** Datapoints of one result as [period start ms, value], or a problem. */
function pointsOf(r: RawMetricResult, q: MetricQuery, notAfter: number, problems: string[]): Points | string {
  const label = `result ${r.Id} (${q.targetId} ${q.source.metricName})`;
  if (r.StatusCode === 'InternalError' || r.StatusCode === 'Forbidden') {
    return `${label}: status ${r.StatusCode}, read as missing`;
  }
  const ts = r.Timestamps ?? [];
  const vs = r.Values ?? [];
  if (ts.length !== vs.length) return `${label}: ${ts.length} timestamps but ${vs.length} values, rejected`;
  const points: Points = new Map();
  let future = 0;
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i] instanceof Date ? ts[i]!.getTime() : Number.NaN;
    const v = vs[i];
    if (!Number.isFinite(t)) return `${label}: timestamp ${i} is not a date, rejected`;
    if (typeof v !== 'number' || !Number.isFinite(v))
      return `${label}: value ${i} is not a finite number, rejected`;
    if (t + PERIOD_SECONDS * 1000 > notAfter) future++;
    else points.set(t, v * q.source.scale);
  }
  if (future > 0)
    problems.push(
      `${label}: ${future} datapoint(s) stamped after now (beyond ${FUTURE_SKEW_MS / 1000} s of clock skew), ignored`,
    );
  return points;
}

/** Sums the parts of one role per minute and keeps the newest minute (Reading or undefined). */
function newest(parts: Points[]): Reading | undefined {
  const sums: Points = new Map();
  for (const p of parts) for (const [t, v] of p) sums.set(t, (sums.get(t) ?? 0) + v);
  let best: number | undefined;
  for (const t of sums.keys()) if (best === undefined || t > best) best = t;
  return best === undefined ? undefined : { value: sums.get(best)!, timestamp: best + PERIOD_SECONDS * 1000 };
}

const roleKey = (q: MetricQuery) =>
  `${q.targetId}\u0000${q.role.kind === 'signal' ? q.role.metric : q.role.kind}`;

/**
 * The basis of the target's readings (Reading.basis): the minute of its invocationsPerInstance
 * reading, Invocations / InvocationsPerInstance of that minute, set on every reading of the same
 * minute. None when either is missing for that minute or the per-instance value is 0 (the
 * engine then falls back to the ready count). Worked example: 600 requests in the 12:05 minute,
 * InvocationsPerInstance 150: 4 instances served it, so at 12:07, with 8 ready after a
 * scale-out, the engine reads 600 requests (150 x 4), not 1,200 (150 x 8).
 */
function withBasis(entry: TargetReadings, invocations: Points | undefined): void {
  const perInstance = entry.readings.invocationsPerInstance;
  if (!perInstance || !invocations || !(perInstance.value > 0)) return;
  const requests = invocations.get(perInstance.timestamp - PERIOD_SECONDS * 1000);
  if (requests === undefined || !(requests > 0)) return;
  const basis = requests / perInstance.value;
  for (const [metric, r] of Object.entries(entry.readings))
    if (r && r.timestamp === perInstance.timestamp) entry.readings[metric as MetricName] = { ...r, basis };
}

/**
 * Results (possibly several pages for one id) to readings per target. `activationMetric` names
 * each target's activation metric, so its total lands under the engine's key. `now` (epoch ms)
 * drops future-stamped datapoints; without it (callers replaying old results) none is dropped.
 */
export function convertResults(
  queries: readonly MetricQuery[],
  results: readonly RawMetricResult[],
  activationMetric: (targetId: string) => ActivationMetric | undefined,
  now: number = Number.POSITIVE_INFINITY,
): Converted {
  const byId = new Map(queries.map((q) => [q.id, q]));
  const problems: string[] = [];
  const merged = new Map<string, Points | null>();
  for (const r of results) {
    const q = r.Id === undefined ? undefined : byId.get(r.Id);
    if (!q) {
      problems.push(`result with ${r.Id === undefined ? 'no Id' : `unknown Id "${r.Id}"`}, ignored`);
      continue;
    }
    const points = pointsOf(r, q, now + FUTURE_SKEW_MS, problems);
    const previous = merged.get(q.id);
    if (typeof points === 'string') {
      problems.push(points);
      merged.set(q.id, null);
    } else if (previous !== null) {
      merged.set(q.id, new Map([...(previous ?? []), ...points]));
    }
  }
  const parts = new Map<string, { q: MetricQuery; points: Points[]; rejected: boolean }>();
  for (const q of queries) {
    const key = roleKey(q);
    const entry = parts.get(key) ?? { q, points: [], rejected: false };
    const points = merged.get(q.id);
    if (points === null) entry.rejected = true;
    else if (points) entry.points.push(points);
    parts.set(key, entry);
  }
  const byTarget = new Map<string, TargetReadings>();
  const bases = new Map<string, Points>();
  for (const { q, points, rejected } of parts.values()) {
    const entry = byTarget.get(q.targetId) ?? { readings: {} };
    byTarget.set(q.targetId, entry);
    if (q.role.kind === 'basis') {
      if (!rejected && points.length === 1) bases.set(q.targetId, points[0]!);
      continue;
    }
    const reading = rejected ? undefined : newest(points);
    if (!reading) continue;
    if (q.role.kind === 'signal') entry.readings[q.role.metric] = reading;
    else {
      const metric = activationMetric(q.targetId);
      if (metric) entry.activation = { [metric]: reading };
    }
  }
  for (const [targetId, entry] of byTarget) withBasis(entry, bases.get(targetId));
  return { byTarget, problems };
}
