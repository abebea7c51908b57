/**
 * One batched GetMetricData per region per evaluation: a query for every signal (and activation
 * part, and the basis of per-instance readings) of every target evaluated, each with an id that
 * maps its result back. The window ends
 * at the start of the current minute, so the in-progress minute (a partial Sum that would read
 * as a drop in load) is never seen.
 */
import type { MetricName, TargetPolicy } from '../policy/schema.ts';
import { activationSources, basisSource, type MetricSource, signalSource } from './sources.ts';

/** CloudWatch's standard resolution; every signal is read per minute. */
export const PERIOD_SECONDS = 60;
/** GetMetricData takes at most 500 queries per call. */
export const MAX_QUERIES_PER_CALL = 500;

/**
 * What a query's result is for: a signal's reading, a part of the activation total, or the basis
 * of the target's per-instance readings (basisSource: requests, to divide by requests per instance).
 */
export type QueryRole = { kind: 'signal'; metric: MetricName } | { kind: 'activation' } | { kind: 'basis' };

export interface MetricQuery {
  /** Unique within the batch; CloudWatch wants [a-z][a-zA-Z0-9_]*. */
  id: string;
  targetId: string;
  region: string;
  role: QueryRole;
  source: MetricSource;
}

export interface QueryWindow {
  start: number;
  end: number;
}

/** Queries for the targets, in policy order; ids are q0, q1, ... */
export function buildQueries(targets: readonly TargetPolicy[]): MetricQuery[] {
  const queries: MetricQuery[] = [];
  const add = (t: TargetPolicy, role: QueryRole, source: MetricSource) =>
    queries.push({ id: `q${queries.length}`, targetId: t.id, region: t.region, role, source });
  for (const t of targets) {
    for (const s of t.signals) {
      const source = signalSource(t, s);
      if (source) add(t, { kind: 'signal', metric: s.metric }, source);
    }
    for (const source of activationSources(t) ?? []) add(t, { kind: 'activation' }, source);
  }
  // After every other query, so the ids of the signals and activation parts stay as they were.
  for (const t of targets) {
    const source = basisSource(t);
    if (source) add(t, { kind: 'basis' }, source);
  }
  return queries;
}

/**
 * [start, end) in epoch ms: end is the current minute's start; start reaches back over the
 * longest staleAfterSeconds of the targets (a datapoint older than that is missing anyway).
 * Example: now 12:07:30, staleAfterSeconds 180 -> [12:03:00, 12:07:00).
 */
export function queryWindow(targets: readonly TargetPolicy[], now: number): QueryWindow {
  const periodMs = PERIOD_SECONDS * 1000;
  const end = Math.floor(now / periodMs) * periodMs;
  let stale = PERIOD_SECONDS;
  for (const t of targets) {
    for (const s of t.signals) stale = Math.max(stale, s.staleAfterSeconds);
    if (t.scaling.activation) stale = Math.max(stale, t.scaling.activation.staleAfterSeconds);
  }
  return { start: end - Math.ceil(stale / PERIOD_SECONDS) * periodMs - periodMs, end };
}

/** Queries grouped by region, each group in chunks of at most 500. */
export function batches(queries: readonly MetricQuery[]): { region: string; queries: MetricQuery[] }[] {
  const byRegion = new Map<string, MetricQuery[]>();
  for (const q of queries) byRegion.set(q.region, [...(byRegion.get(q.region) ?? []), q]);
  const out: { region: string; queries: MetricQuery[] }[] = [];
  for (const [region, list] of byRegion) {
    for (let i = 0; i < list.length; i += MAX_QUERIES_PER_CALL) {
      out.push({ region, queries: list.slice(i, i + MAX_QUERIES_PER_CALL) });
    }
  }
  return out;
}
