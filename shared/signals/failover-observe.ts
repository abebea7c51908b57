/**
 * What the health evaluation reads for one failover group, and how raw answers become the
 * planner's RegionObservation. Pure. Per member target, in its own region (one GetMetricData per
 * region): 5xx errors and invocations (error rate = 100 x 5xx / invocations), p95 latency (the
 * target's p95LatencyMs signal source, else SageMaker's ModelLatency p95), and Governor's own
 * CapacityErrors count (published by the scale-target state machine, by TargetId).
 *
 * Counters read as 0 only where a successful read with no datapoint means "no event": 5xx
 * beside a present invocation count, and CapacityErrors. Invocations, latency and a failed read
 * are never filled: the signal is missing and the planner calls the period unknown.
 */
import type { ResolvedGroup } from '../failover/group.ts';
import type { FailoverObservation, RegionObservation } from '../failover/types.ts';
import { LatencySignalSchema, type TargetPolicy } from '../policy/schema.ts';
import type { MetricQuery } from './queries.ts';
import type { RawMetricResult } from './readings.ts';
import { type MetricSource, signalSource, sumSource as sum } from './sources.ts';

export type HealthSeries = 'errors5xx' | 'invocations' | 'p95' | 'capacityErrors';
export interface HealthQuery extends MetricQuery {
  series: HealthSeries;
}

function invocationDims(t: TargetPolicy): Record<string, string> | null {
  if (t.kind === 'sagemaker-variant') return { EndpointName: t.endpointName, VariantName: t.variantName };
  if (t.kind === 'sagemaker-inference-component') return { InferenceComponentName: t.inferenceComponentName };
  return null;
}

/** The queries of every member, ids h0, h1, ...; `metricNamespace` is Governor's own. */
export function healthQueries(
  group: ResolvedGroup,
  targets: readonly TargetPolicy[],
  metricNamespace: string,
): HealthQuery[] {
  const out: HealthQuery[] = [];
  const add = (t: TargetPolicy, series: HealthSeries, source: MetricSource | null) => {
    if (source)
      out.push({
        id: `h${out.length}`,
        targetId: t.id,
        region: t.region,
        role: { kind: 'activation' },
        source,
        series,
      });
  };
  for (const m of group.members) {
    const t = targets.find((x) => x.id === m.targetId);
    if (!t) continue;
    const dims = invocationDims(t);
    if (dims) {
      add(t, 'errors5xx', sum('AWS/SageMaker', 'Invocation5XXErrors', dims));
      add(t, 'invocations', sum('AWS/SageMaker', 'Invocations', dims));
    }
    const own = t.signals.find((s) => s.metric === 'p95LatencyMs');
    add(t, 'p95', signalSource(t, own ?? LatencySignalSchema.parse({ metric: 'p95LatencyMs', sloMs: 1 })));
    add(t, 'capacityErrors', sum(metricNamespace, 'CapacityErrors', { TargetId: t.id }));
  }
  return out;
}

/** The newest datapoint of a result: [timestamp ms, value], or null. */
function newest(r: RawMetricResult | undefined): [number, number] | null {
  if (!r?.Timestamps || !r.Values) return null;
  let best: [number, number] | null = null;
  r.Timestamps.forEach((t, i) => {
    const v = r.Values?.[i];
    const ms = new Date(t).getTime();
    if (v !== undefined && Number.isFinite(ms) && (best === null || ms > best[0])) best = [ms, v];
  });
  return best;
}

export interface RegionRead {
  /** null: the region's GetMetricData failed (every signal there is missing). */
  results: RawMetricResult[] | null;
  capacity?: { desired: number; ready: number };
  /** Epoch ms of the region's Governor's last successful evaluation, or undefined. */
  lastBeatAt?: number;
}

/** Raw reads to the planner's observation. A region without a read has an empty observation (unknown). */
export function observation(
  group: ResolvedGroup,
  queries: readonly HealthQuery[],
  reads: Readonly<Record<string, RegionRead>>,
  now: number,
): FailoverObservation {
  const regions: Record<string, RegionObservation> = {};
  for (const m of group.members) {
    const read = reads[m.region];
    const obs: RegionObservation = {};
    if (read?.capacity) {
      obs.capacity = read.capacity;
      obs.demand = { recentPeakInstances: read.capacity.desired };
    }
    if (read?.lastBeatAt !== undefined) obs.heartbeat = { lastBeatAt: read.lastBeatAt, readAt: now };
    if (read?.results) {
      const of = (series: HealthSeries) => {
        const q = queries.find((x) => x.targetId === m.targetId && x.series === series);
        return q ? { q, point: newest(read.results?.find((r) => r.Id === q.id)) } : null;
      };
      const inv = of('invocations');
      const errs = of('errors5xx');
      if (inv?.point) {
        const [at, count] = inv.point;
        const errors = errs?.point && errs.point[0] === at ? errs.point[1] : 0;
        obs.errorRatePercent = { value: count > 0 ? (100 * errors) / count : 0, timestamp: at };
      }
      const p95 = of('p95');
      if (p95?.point)
        obs.p95LatencyMs = { value: p95.point[1] * p95.q.source.scale, timestamp: p95.point[0] };
      const cap = of('capacityErrors');
      if (cap)
        obs.capacityErrors = cap.point
          ? { value: cap.point[1], timestamp: cap.point[0] }
          : { value: 0, timestamp: now };
    }
    regions[m.region] = obs;
  }
  return { regions };
}
