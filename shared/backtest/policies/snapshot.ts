/**
 * What the governor policy reads each simulated minute (./governor.ts): the snapshot the Lambda
 * would build from what CloudWatch has delivered by then, each signal read off the newest
 * datapoint in the policy's units (request-based signals times k = requestsPerMinuteAtSlo / mu;
 * percentages and latencies as they are).
 */
import type { ActivationMetric, Reading, SignalSnapshot } from '../../engine/types.ts';
import type { MetricName, TargetPolicy } from '../../policy/schema.ts';
import { basisSource } from '../../signals/sources.ts';
import type { Datapoint } from '../metrics.ts';
import type { FleetView } from './types.ts';

/** How each engine metric reads off a datapoint, in the policy's units (k scales requests). */
const READERS: Partial<Record<MetricName, (d: Datapoint, k: number) => number>> = {
  invocationsPerInstance: (d, k) => d.invocationsPerInstance * k,
  gpuUtilization: (d) => d.gpuUtilization,
  queueDepthPerInstance: (d, k) => d.queueDepthPerInstance * k,
  concurrencyPerInstance: (d, k) => d.concurrencyPerInstance * k,
  p95LatencyMs: (d) => d.p95LatencyMs,
  p99LatencyMs: (d) => d.p99LatencyMs,
};

/** Metrics the simulator does not model: a policy using them reads them as missing. */
export const UNSIMULATED_METRICS: readonly MetricName[] = ['gpuMemoryUtilization'];

const ACTIVATION: Record<ActivationMetric, (d: Datapoint, k: number) => number> = {
  invocations: (d, k) => d.requests * k,
  queueDepth: (d, k) => d.queueDepth * k,
  concurrency: (d, k) => d.concurrencyPerInstance * d.ready * k,
};

function reading(value: number, d: Datapoint, basis: boolean): Reading | undefined {
  if (!Number.isFinite(value)) return undefined;
  return basis ? { value, timestamp: d.timestamp, basis: d.ready } : { value, timestamp: d.timestamp };
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
  signals: { metric: MetricName; read: (d: Datapoint, k: number) => number }[];
  activation: { metric: ActivationMetric; read: (d: Datapoint, k: number) => number } | null;
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
  const d = view.metrics.latest();
  if (!d) return snapshot;
  const basis = readsBasis && d.requests > 0 && d.ready > 0;
  for (const s of readers.signals) {
    const r = reading(s.read(d, k), d, basis);
    if (r) snapshot.readings[s.metric] = r;
  }
  const a = readers.activation;
  if (a) {
    const r = reading(a.read(d, k), d, false);
    if (r) snapshot.activation = { [a.metric]: r };
  }
  return snapshot;
}
