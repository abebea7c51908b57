/**
 * The Kubernetes HorizontalPodAutoscaler (autoscaling/v2) with its default behaviour, from the
 * HPA documentation ("Algorithm details", "Default Behavior") and
 * pkg/controller/podautoscaler/replica_calculator.go and horizontal.go:
 *
 * - desired = ceil(readyPods x metric / target); nothing moves while |metric / target - 1|
 *   <= 0.1 (the 10 % tolerance);
 * - pods still starting count as using 0 on a scale-up, and ready pods without a metric yet
 *   count as 0 on a scale-up and as the target on a scale-down (at exactly the target they are
 *   left out); if that flips the direction or lands within tolerance, nothing moves;
 * - scale-down stabilization 300 s: the highest recommendation of the last five minutes wins;
 *   scale-up: no stabilization, at most max(100 %, 4 pods) more per 15 s period;
 * - the 15 s sync loop is folded to one evaluation a minute, so each evaluation may at most
 *   double the replicas or add 4, whichever is more.
 *
 * The metric is InvocationsPerInstance at AWS's recommended target (0.5 x muSat), so the
 * comparison with target tracking is about the algorithm, not the target.
 */
import type { FleetView, Policy } from './types.ts';

export interface HpaOptions {
  name: string;
  target: number;
  tolerance: number;
  scaleDownStabilizationMinutes: number;
  /** Scale-up policies: Percent 100 and Pods 4, selectPolicy Max. */
  scaleUpPercent: number;
  scaleUpPods: number;
}

export const HPA_DEFAULTS = {
  tolerance: 0.1,
  scaleDownStabilizationMinutes: 5,
  scaleUpPercent: 100,
  scaleUpPods: 4,
} as const;

/** replica_calculator.go's calcPlainMetricReplicas for one averaged per-pod value. */
export function hpaReplicas(view: FleetView, options: HpaOptions): number | null {
  const current = view.ready + view.pending;
  const latest = view.metrics.latest();
  if (!latest || !Number.isFinite(latest.invocationsPerInstance) || view.ready === 0) return null;
  const value = latest.invocationsPerInstance;
  const withMetrics = Math.min(latest.ready, view.ready);
  const missing = view.ready - withMetrics;
  const ratio = value / options.target;
  const within = (r: number) => Math.abs(1 - r) <= options.tolerance;
  const upWithUnready = view.pending > 0 && ratio > 1;
  if (!upWithUnready && missing === 0) {
    return within(ratio) ? current : Math.ceil(ratio * withMetrics - 1e-9);
  }
  let total = value * withMetrics;
  let pods = withMetrics;
  // Scale-down: missing pods are assumed at the target (or the usage, if higher); scale-up: at 0.
  // At exactly the target Kubernetes assumes nothing and leaves them out (replica_calculator.go:
  // neither branch runs), so the ratio stays 1 and it holds; counting them at 0 would scale 12
  // pods at target down to 10 (TestReplicaCalcMissingMetricsNoChangeEq, pinned in
  // tests/backtest/k8s-hpa.test.ts).
  if (missing > 0 && ratio < 1) {
    total += missing * Math.max(options.target, value);
    pods += missing;
  } else if (missing > 0 && ratio > 1) pods += missing;
  if (upWithUnready) pods += view.pending;
  const next = total / pods / options.target;
  if (within(next) || (ratio > 1 && next < 1) || (ratio < 1 && next > 1)) return current;
  const replicas = Math.ceil(next * pods - 1e-9);
  if ((next < 1 && replicas > current) || (next > 1 && replicas < current)) return current;
  return replicas;
}

/**
 * `initialReplicas` seeds the stabilization window as if the HPA had been recommending the
 * initial fleet until the trace began: without it, the first minute of a trace that starts
 * mid-ramp (a partial first minute) would scale the fleet down at once, which a running HPA
 * with five minutes of history would not do.
 */
export function k8sHpaPolicy(options: HpaOptions, initialReplicas: number): Policy {
  const window: [number, number][] = [[-1, initialReplicas]];
  const decide = (view: FleetView, minute: number): number => {
    const current = view.ready + view.pending;
    const raw = hpaReplicas(view, options);
    if (raw === null) return current;
    // Stabilization (horizontal.go stabilizeRecommendationWithBehaviors): scale-down goes only to
    // the highest recommendation of the window; scale-up's window is 0, so it is this minute's.
    while (window.length > 0 && window[0]![0] <= minute - options.scaleDownStabilizationMinutes)
      window.shift();
    window.push([minute, raw]);
    let down = raw;
    for (const [, r] of window) if (r > down) down = r;
    let desired = Math.min(Math.max(current, raw), down);
    // Scale-up limit per period: the larger of +100 % and +4 pods.
    const limit = Math.max(
      Math.ceil(current * (1 + options.scaleUpPercent / 100)),
      current + options.scaleUpPods,
    );
    if (desired > limit) desired = limit;
    return desired;
  };
  return { name: options.name, decide };
}
