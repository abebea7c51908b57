/**
 * AWS target tracking as Application Auto Scaling runs it for a SageMaker variant, from its
 * documentation ("How target tracking scaling for Application Auto Scaling works", and
 * TargetTrackingScalingPolicyConfiguration's ScaleOutCooldown / ScaleInCooldown):
 *
 * - metric SageMakerVariantInvocationsPerInstance; AAS creates two alarms: high when 3 of 3
 *   consecutive datapoints are above the target, low when 15 of 15 are below 0.9 x target;
 * - while an alarm is in ALARM it invokes the policy every minute, which sets
 *   desired = ceil(capacity x metric / target), capacity being the instances in service now
 *   (the metric is averaged over instances in service, so capacity x metric is the load: right
 *   after new instances arrive a lagging datapoint over-counts it, as it does in AWS);
 * - 300 s cooldowns: after a scale-out, the capacity it added counts as part of desired
 *   capacity, so only a larger scale-out proceeds; after a scale-in, no scale-in for 300 s, but
 *   a scale-out proceeds at once and ends that cooldown;
 * - missing data never scales in: the low alarm needs all 15 datapoints present.
 *
 * The target AWS recommends for SageMaker is max RPS x 0.5 x 60 (their load-test guidance),
 * here 0.5 x muSat; `aws-target-tracking-at-slo` runs it at mu, as tight as the SLO allows.
 */
import type { Datapoint, MetricsView } from '../metrics.ts';
import type { FleetView, Policy } from './types.ts';

/** The per-instance metrics target tracking can track here (datapoint fields). */
export type TrackedMetric = 'invocationsPerInstance' | 'concurrencyPerInstance';

export interface TargetTrackingOptions {
  name: string;
  /** The metric's value to hold, per instance (requests per minute for InvocationsPerInstance). */
  target: number;
  /** Default invocationsPerInstance. */
  metric?: TrackedMetric;
  /**
   * The policy's own metric delay, when its metric arrives sooner than the scenario's one-minute
   * metrics (high-resolution metrics: ./aws-target-tracking-concurrency.ts). Default: the scenario's.
   */
  metricDelayMinutes?: number;
  /**
   * The low alarm reads datapoints this many minutes older than the newest one the policy sees:
   * a high-resolution policy scales in "at the same rate as standard metrics", so its low alarm
   * sees what a one-minute alarm would. Default 0.
   */
  lowAlarmLagMinutes?: number;
  highDatapoints: number;
  lowDatapoints: number;
  /** The low alarm's threshold as a fraction of target. */
  lowFraction: number;
  scaleOutCooldownMinutes: number;
  scaleInCooldownMinutes: number;
}

export const AWS_DEFAULTS = {
  highDatapoints: 3,
  lowDatapoints: 15,
  lowFraction: 0.9,
  scaleOutCooldownMinutes: 5,
  scaleInCooldownMinutes: 5,
} as const;

/**
 * M of M alarm: the newest `points` visible datapoints (skipping the newest `lag`) all present
 * and all breaching.
 */
export function alarmBreached(
  metrics: MetricsView,
  points: number,
  breaches: (v: number) => boolean,
  metric: TrackedMetric = 'invocationsPerInstance',
  lag = 0,
): boolean {
  const end = metrics.count - lag;
  if (end < points) return false;
  for (let i = end - points; i < end; i++) {
    const v = metrics.valueAt(i, metric);
    if (!Number.isFinite(v) || !breaches(v)) return false;
  }
  return true;
}

export function awsTargetTrackingPolicy(options: TargetTrackingOptions): Policy {
  const { target } = options;
  const metric = options.metric ?? 'invocationsPerInstance';
  const metricOf = (d: Datapoint): number => d[metric];
  const lag = options.lowAlarmLagMinutes ?? 0;
  let lastScaleOutAt: number | null = null;
  let lastScaleOutTo = 0;
  let lastScaleInAt: number | null = null;
  const decide = (view: FleetView, minute: number): number => {
    const current = view.ready + view.pending;
    const latest = view.metrics.latest();
    if (!latest || !Number.isFinite(metricOf(latest))) return current;
    const high = alarmBreached(view.metrics, options.highDatapoints, (v) => v > target, metric);
    const low =
      !high &&
      alarmBreached(
        view.metrics,
        options.lowDatapoints,
        (v) => v < options.lowFraction * target,
        metric,
        lag,
      );
    if (!high && !low) return current;
    const computed = Math.max(1, Math.ceil((view.ready * metricOf(latest)) / target - 1e-9));
    if (high && computed > current) {
      const inCooldown = lastScaleOutAt !== null && minute < lastScaleOutAt + options.scaleOutCooldownMinutes;
      if (inCooldown && computed <= lastScaleOutTo) return current;
      lastScaleOutAt = minute;
      lastScaleOutTo = computed;
      lastScaleInAt = null; // a scale-out ends the scale-in cooldown
      return computed;
    }
    if (low && computed < current) {
      if (lastScaleInAt !== null && minute < lastScaleInAt + options.scaleInCooldownMinutes) return current;
      lastScaleInAt = minute;
      return computed;
    }
    return current;
  };
  return {
    name: options.name,
    decide,
    ...(options.metricDelayMinutes !== undefined ? { metricDelayMinutes: options.metricDelayMinutes } : {}),
  };
}
