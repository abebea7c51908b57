/**
 * AWS target tracking on SageMaker's high-resolution concurrency metric: the predefined metric
 * SageMakerVariantConcurrentRequestsPerModelHighResolution (per copy for an inference component:
 * SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution). AWS's fastest option.
 *
 * What AWS documents, and where:
 * - https://docs.aws.amazon.com/sagemaker/latest/dg/endpoint-auto-scaling-add-code-define.html
 *   ("Specify a high-resolution predefined metric"): ConcurrentRequestsPerModel counts the
 *   requests a model container holds, those queued inside it included; the metric is emitted
 *   every 10 seconds where InvocationsPerInstance is emitted once a minute, so the policy scales
 *   out much faster as concurrency rises, and scales in at the same rate as standard metrics.
 *   The example there holds 5 concurrent requests per model (an example, not a recommendation).
 * - https://docs.aws.amazon.com/autoscaling/application/userguide/target-tracking-scaling-policy-overview.html:
 *   AAS creates the alarms; desired = capacity x metric / target rounded up; scale-in only when
 *   the metric is sufficiently below target (the low alarm at 0.9 x target); cooldowns.
 * - https://docs.aws.amazon.com/autoscaling/ec2/userguide/policy-creating-high-resolution-metrics.html:
 *   target tracking on high-resolution metrics evaluates datapoints of the metric's own period
 *   (10, 30 or 60 s), so the scale-out alarm reacts within seconds of a breach.
 * - SageMaker variants' default cooldowns are 300 s each (ScaleOutCooldown, ScaleInCooldown).
 *
 * Folded into the per-minute simulator:
 * - scale-out: the high alarm's 3 datapoints of 10 s (30 s of breach) fit inside one minute, so a
 *   minute whose mean concurrency is above target raises it (1 of 1 minute datapoint), and the
 *   datapoints arrive within seconds: the policy sees a minute one minute sooner than a
 *   one-minute metric (effective metric delay max(0, delay - 1): with the reference delay of 1,
 *   the decision at minute 10 sees minute 9, not 8). Averaging six 10-s points into the minute
 *   hides a 30-s spike that a minute's mean does not show; the simulator has nothing finer.
 * - scale-in: 15 of 15 one-minute datapoints below 0.9 x target, read as a one-minute alarm would
 *   (one minute older than the scale-out side): "the same rate as standard metrics".
 * - concurrency per instance is the simulator's Little's-law figure (metrics.ts): arrivals per
 *   second per instance x mean time in system, backlog wait included, as the container's queue is.
 * - the target: AWS's load-test guidance for InvocationsPerInstance (max RPS x 0.5) carried over
 *   to concurrency: the concurrency an instance holds at half its saturation rate. With the
 *   reference curve (sloMs 2000, SLO at u = 0.8, muSat = mu / 0.8): at u = 0.5 the mean time in
 *   system is 2000 x 0.2 / 0.5 / ln 20 = 267 ms, so target = 0.5 x muSat / 60 x 0.267 s.
 */
import { p95CurveMs } from '../metrics.ts';
import type { ResolvedScenario } from '../scenario.ts';
import { AWS_DEFAULTS, awsTargetTrackingPolicy } from './aws-target-tracking.ts';
import type { Policy } from './types.ts';

export const CONCURRENCY_POLICY = 'aws-target-tracking-concurrency';

/** The 10-s metric's 3 datapoints fit in one minute: one minute datapoint raises the high alarm. */
const HIGH_DATAPOINTS = 1;

/**
 * Mean requests in flight per instance at utilization u of its saturation rate, no backlog:
 * arrivals per second x mean time in system (the M/M/1 mean is p95 / ln 20).
 */
export function concurrencyAt(
  u: number,
  s: Pick<ResolvedScenario, 'muSat' | 'sloMs' | 'sloUtilization'>,
): number {
  const meanSeconds = p95CurveMs(u, s.sloMs, s.sloUtilization) / Math.log(20) / 1000;
  return ((u * s.muSat) / 60) * meanSeconds;
}

/** The high-resolution metric's effective delay in whole minutes of the per-minute simulator. */
export const highResolutionDelay = (metricDelayMinutes: number): number =>
  Math.max(0, metricDelayMinutes - 1);

export function awsConcurrencyTrackingPolicy(scenario: ResolvedScenario, fractionOfSaturation = 0.5): Policy {
  const delay = highResolutionDelay(scenario.metricDelayMinutes);
  return awsTargetTrackingPolicy({
    name: CONCURRENCY_POLICY,
    target: concurrencyAt(fractionOfSaturation, scenario),
    metric: 'concurrencyPerInstance',
    metricDelayMinutes: delay,
    lowAlarmLagMinutes: scenario.metricDelayMinutes - delay,
    ...AWS_DEFAULTS,
    highDatapoints: HIGH_DATAPOINTS,
  });
}
