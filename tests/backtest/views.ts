/** Test helpers: a metrics view and a fleet view from a list of per-instance values. */
import type { Datapoint, MetricsView } from '#shared/backtest/metrics.ts';
import type { FleetView } from '#shared/backtest/policies/types.ts';

/** Datapoints of minutes 0.. with the given InvocationsPerInstance, averaged over `basis` instances. */
export function datapoints(values: readonly number[], basis: number): Datapoint[] {
  return values.map((v, minute) => ({
    minute,
    timestamp: minute * 60_000,
    requests: v * basis,
    ready: basis,
    invocationsPerInstance: v,
    gpuUtilization: 0,
    queueDepth: 0,
    queueDepthPerInstance: 0,
    concurrencyPerInstance: 0,
    p95LatencyMs: 0,
    p99LatencyMs: 0,
  }));
}

export function metricsOf(points: readonly Datapoint[]): MetricsView {
  return {
    count: points.length,
    at: (i) => points[i]!,
    valueAt: (i, field) => points[i]![field],
    latest: () => points.at(-1),
  };
}

/** The view at the minute after the last datapoint, with `ready` and `pending` instances now. */
export function viewOf(values: readonly number[], ready: number, pending = 0, basis = ready): FleetView {
  return {
    now: values.length * 60_000,
    ready,
    pending,
    warmIdle: 0,
    metrics: metricsOf(datapoints(values, basis)),
  };
}

export const repeat = (value: number, times: number): number[] => Array.from({ length: times }, () => value);
