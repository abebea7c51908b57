/**
 * What the governor policy reads each simulated minute (./governor.ts): the snapshot the Lambda
 * would build from what CloudWatch has delivered by then, each signal read off the newest
 * datapoint in the policy's units (request-based signals times k = requestsPerMinuteAtSlo / mu;
 * percentages and latencies as they are).
 */
import type { ActivationMetric, Reading, SignalSnapshot } from '../../engine/types.ts';
import type { MetricName, TargetPolicy } from '../../policy/schema.ts';
import { basisSource } from '../../signals/sources.ts';
import type { MetricsView } from '../metrics.ts';
import type { FleetView } from './types.ts';

/**
 * How each engine metric reads off datapoint i of the feed, in the policy's units (k scales
 * requests): one field at a time, no datapoint object built per simulated minute.
 */
type Read = (m: MetricsView, i: number, k: number) => number;
const READERS: Partial<Record<MetricName, Read>> = {
  invocationsPerInstance: (m, i, k) => m.valueAt(i, 'invocationsPerInstance') * k,
  gpuUtilization: (m, i) => m.valueAt(i, 'gpuUtilization'),
  queueDepthPerInstance: (m, i, k) => m.valueAt(i, 'queueDepthPerInstance') * k,
  concurrencyPerInstance: (m, i, k) => m.valueAt(i, 'concurrencyPerInstance') * k,
  p95LatencyMs: (m, i) => m.valueAt(i, 'p95LatencyMs'),
  p99LatencyMs: (m, i) => m.valueAt(i, 'p99LatencyMs'),
};

/** Metrics the simulator does not model: a policy using them reads them as missing. */
export const UNSIMULATED_METRICS: readonly MetricName[] = ['gpuMemoryUtilization'];

const ACTIVATION: Record<ActivationMetric, Read> = {
  invocations: (m, i, k) => m.valueAt(i, 'requests') * k,
  queueDepth: (m, i, k) => m.valueAt(i, 'queueDepth') * k,
  concurrency: (m, i, k) => m.valueAt(i, 'concurrencyPerInstance') * m.valueAt(i, 'ready') * k,
};

/** A reading of the datapoint at `timestamp`; with a basis, the ready count of its minute. */
function reading(value: number, timestamp: number, basis: number | null): Reading | undefined {
  if (!Number.isFinite(value)) return undefined;
  return basis !== null ? { value, timestamp, basis } : { value, timestamp };
}

/**
 * The snapshot the Lambda would build at this minute from what CloudWatch has delivered. Its
 * readings carry the ready count of their minute (Reading.basis) where the evaluator can read
 * one: a SageMaker target with invocationsPerInstance (shared/signals/sources.ts basisSource),
 * in a minute with requests (CloudWatch has no Invocations datapoint for a minute without).
 */
export function snapshotFrom(
  view: FleetView,
  target: TargetPolicy,
  k: number,
  readsBasis: boolean = basisSource(target) !== null,
): SignalSnapshot {
  return snapshotWith(view, readersOf(target), k, readsBasis);
}

/** How a target's signals and activation read off a datapoint: the same for every minute of a run. */
export interface Readers {
  signals: { metric: MetricName; read: Read }[];
  activation: { metric: ActivationMetric; read: Read } | null;
}

export function readersOf(target: TargetPolicy): Readers {
  const a = target.scaling.activation;
  return {
    signals: target.signals.flatMap((s) => {
      const read = READERS[s.metric];
      return read ? [{ metric: s.metric, read }] : [];
    }),
    activation: a ? { metric: a.metric, read: ACTIVATION[a.metric] } : null,
  };
}

export function snapshotWith(
  view: FleetView,
  readers: Readers,
  k: number,
  readsBasis: boolean,
): SignalSnapshot {
  const snapshot: SignalSnapshot = {
    capacity: { desired: view.ready + view.pending, ready: view.ready },
    readings: {},
  };
  const m = view.metrics;
  if (m.count === 0) return snapshot;
  const i = m.count - 1;
  const timestamp = m.valueAt(i, 'timestamp');
  const ready = m.valueAt(i, 'ready');
  const basis = readsBasis && m.valueAt(i, 'requests') > 0 && ready > 0 ? ready : null;
  for (const s of readers.signals) {
    const r = reading(s.read(m, i, k), timestamp, basis);
    if (r) snapshot.readings[s.metric] = r;
  }
  const a = readers.activation;
  if (a) {
    const r = reading(a.read(m, i, k), timestamp, null);
    if (r) snapshot.activation = { [a.metric]: r };
  }
  return snapshot;
}
