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
import type { MetricsView } from '../metrics.ts';
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
 * The two M of M alarms, kept as datapoints arrive: for each visible datapoint, how many
 * consecutive datapoints up to it (itself included) are present and breaching, high and low. The
 * high alarm is in ALARM when the newest `highDatapoints` all breach: the streak at the newest
 * reaches that many; the low one when the `lowDatapoints` before the newest `lag` do. Counting
 * once per datapoint replaces reading the last 15 of them every simulated minute (a quarter of a
 * target tracking run), with the same answer: a missing datapoint ends a streak as it keeps an
 * alarm out of ALARM.
 */
export class AlarmStreaks {
  readonly #metric: TrackedMetric;
  readonly #above: (v: number) => boolean;
  readonly #below: (v: number) => boolean;
  /** Streaks ending at each datapoint seen so far, by index. */
  readonly #high: number[] = [];
  readonly #low: number[] = [];

  constructor(metric: TrackedMetric, above: (v: number) => boolean, below: (v: number) => boolean) {
    this.#metric = metric;
    this.#above = above;
    this.#below = below;
  }

  /** Counts the datapoints delivered since the last call (a view that shrank is counted afresh). */
  update(metrics: MetricsView): void {
    if (metrics.count < this.#high.length) {
      this.#high.length = 0;
      this.#low.length = 0;
    }
    for (let i = this.#high.length; i < metrics.count; i++) {
      const v = metrics.valueAt(i, this.#metric);
      const ok = Number.isFinite(v);
      this.#high.push(ok && this.#above(v) ? (this.#high[i - 1] ?? 0) + 1 : 0);
      this.#low.push(ok && this.#below(v) ? (this.#low[i - 1] ?? 0) + 1 : 0);
    }
  }

  /** The newest `points` datapoints all breach high. */
  high(points: number): boolean {
    return (this.#high[this.#high.length - 1] ?? 0) >= points;
  }

  /** The `points` datapoints before the newest `lag` all breach low. */
  low(points: number, lag = 0): boolean {
    return (this.#low[this.#low.length - 1 - lag] ?? 0) >= points;
  }
}

export function awsTargetTrackingPolicy(options: TargetTrackingOptions): Policy {
  const { target } = options;
  const metric = options.metric ?? 'invocationsPerInstance';
  const lag = options.lowAlarmLagMinutes ?? 0;
  let lastScaleOutAt: number | null = null;
  let lastScaleOutTo = 0;
  let lastScaleInAt: number | null = null;
  // Made once: decide() runs every simulated minute, 20 times over in the best-target sweep.
  const above = (v: number) => v > target;
  const below = (v: number) => v < options.lowFraction * target;
  const alarms = new AlarmStreaks(metric, above, below);
  const decide = (view: FleetView, minute: number): number => {
    const current = view.ready + view.pending;
    const { metrics } = view;
    alarms.update(metrics);
    // The newest datapoint's value, read off the feed without building the datapoint.
    const value = metrics.count > 0 ? metrics.valueAt(metrics.count - 1, metric) : Number.NaN;
    if (!Number.isFinite(value)) return current;
    const high = alarms.high(options.highDatapoints);
    const low = !high && alarms.low(options.lowDatapoints, lag);
    if (!high && !low) return current;
    const computed = Math.max(1, Math.ceil((view.ready * value) / target - 1e-9));
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
