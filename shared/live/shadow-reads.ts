/**
 * What `governor shadow-report` reads, reads only: the target's decision records in the window
 * (dynamodb:Query, shared/aws/decision-records.ts) and, from CloudWatch at one-minute periods
 * (GetMetricData through the forecast's history adapter, following NextToken), the capacity the
 * fleet ran and its latency. Where the capacity lives depends on the target's kind:
 *
 * - Auto Scaling group: AWS/AutoScaling GroupInServiceInstances (Maximum), published once group
 *   metrics collection is enabled on the group;
 * - SageMaker variant or inference component: SageMaker publishes no instance or copy count, so
 *   Governor's own CurrentCapacity (namespace Governor, TargetId; Maximum): the evaluate function
 *   writes it every minute from DescribeEndpoint / DescribeInferenceComponent, in shadow mode
 *   the fleet exactly as SageMaker reported it.
 *
 * The latency is the target's SLI signal (p95LatencyMs or p99LatencyMs) from its own source, read
 * in a call of its own: a percentile query that fails (moto computes none) costs only the latency.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decisionRecords } from '../aws/decision-records.ts';
import type { HistoryPort } from '../aws/demand-history.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import type { HistoryQuery } from '../signals/demand.ts';
import { type MetricSource, signalSource } from '../signals/sources.ts';
import { sloOf } from '../slo/objective.ts';
import type { ShadowDecision } from './shadow.ts';

/** The namespace of Governor's own metrics (template.yaml's MetricNamespace default). */
export const GOVERNOR_NAMESPACE = 'Governor';

export function capacitySource(t: TargetPolicy): MetricSource {
  const dimensions: Record<string, string> =
    t.kind === 'ec2-asg' ? { AutoScalingGroupName: t.autoScalingGroupName } : { TargetId: t.id };
  return t.kind === 'ec2-asg'
    ? {
        namespace: 'AWS/AutoScaling',
        metricName: 'GroupInServiceInstances',
        dimensions,
        statistic: 'Maximum',
        scale: 1,
      }
    : {
        namespace: GOVERNOR_NAMESPACE,
        metricName: 'CurrentCapacity',
        dimensions,
        statistic: 'Maximum',
        scale: 1,
      };
}

/** "AWS/AutoScaling GroupInServiceInstances (AutoScalingGroupName=batch-gpu)". */
export const describeSource = (s: MetricSource): string =>
  `${s.namespace} ${s.metricName} (${Object.entries(s.dimensions)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')})`;

/** The target's SLI and where it is read, or null without a latency signal with a source. */
export function latencySource(
  t: TargetPolicy,
): { source: MetricSource; metric: string; sloMs: number } | null {
  const sli = sloOf(t).sli;
  const signal = sli && t.signals.find((s) => s.metric === sli.metric);
  const source = signal ? signalSource(t, signal) : null;
  return sli && source ? { source, metric: sli.metric, sloMs: sli.sloMs } : null;
}

/** One query's datapoints by minute start, each times the source's scale. */
export async function minuteSeries(
  port: HistoryPort,
  region: string,
  source: MetricSource,
  window: { start: number; end: number },
): Promise<Map<number, number>> {
  const query: HistoryQuery = { id: 'q0', targetId: '', source, periodSeconds: 60 };
  const results = await port.demand(region, [query], window);
  const out = new Map<number, number>();
  for (const r of results) {
    const ts = r.Timestamps ?? [];
    const vs = r.Values ?? [];
    for (let i = 0; i < ts.length && i < vs.length; i++) {
      const at = Math.floor(ts[i]!.getTime() / 60_000) * 60_000;
      if (Number.isFinite(vs[i])) out.set(at, vs[i]! * source.scale);
    }
  }
  return out;
}

/** The decisions recorded in [start, end): time, desired capacity, mode; records without a decision are left out. */
export async function shadowDecisions(
  doc: DynamoDBDocumentClient,
  tableName: string,
  targetId: string,
  window: { start: number; end: number },
): Promise<ShadowDecision[]> {
  const items = await decisionRecords(
    doc,
    tableName,
    targetId,
    `DECISION#${new Date(window.start).toISOString()}`,
  );
  return items.flatMap((item) => {
    const at = typeof item.at === 'string' ? Date.parse(item.at) : Number.NaN;
    const decision = item.decision as { desiredCapacity?: unknown } | null | undefined;
    const desired = decision?.desiredCapacity;
    if (!Number.isFinite(at) || at >= window.end || typeof desired !== 'number') return [];
    return [{ at, desiredCapacity: desired, mode: typeof item.mode === 'string' ? item.mode : 'unknown' }];
  });
}
