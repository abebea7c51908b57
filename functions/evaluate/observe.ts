/**
 * What one evaluation reads before deciding, batched across its targets: one GetMetricData per
 * region (every signal of every target), one DescribeAutoScalingGroups per region, one
 * DescribeEndpoint or DescribeInferenceComponent per SageMaker target, one
 * DescribeScalableTargets per region (then DescribeScalingPolicies only where Application Auto
 * Scaling is active). The same calls whatever the load: constant work in calm and storm.
 *
 * Failures are kept per target: a metrics failure leaves signals missing (the engine holds and
 * never scales in on missing data); a capacity or scaler failure fails that target only.
 */
import { type ScalableRef, scalableRef } from '../../shared/aws/app-autoscaling.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import type { Conflict } from '../../shared/control/plan.ts';
import { batches, buildQueries, queryWindow } from '../../shared/control/queries.ts';
import { convertResults, type RawMetricResult, type TargetReadings } from '../../shared/control/readings.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { Ports } from './ports.ts';

export interface Observation {
  readings: Map<string, TargetReadings>;
  capacity: Map<string, Capacity | Error>;
  conflicts: Map<string, Conflict | null | Error>;
  /** Metric results rejected or unreadable, one line each (logged as warnings). */
  problems: string[];
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
const describe = (e: unknown) => `${asError(e).name}: ${asError(e).message}`;

async function readMetrics(ports: Ports, targets: readonly TargetPolicy[], now: number) {
  const queries = buildQueries(targets);
  const window = queryWindow(targets, now);
  const results: RawMetricResult[] = [];
  const problems: string[] = [];
  for (const batch of batches(queries)) {
    try {
      results.push(...(await ports.metrics.getMetricData(batch.region, batch.queries, window)));
    } catch (error) {
      problems.push(
        `GetMetricData in ${batch.region} failed (${describe(error)}): its signals read as missing`,
      );
    }
  }
  const activation = new Map(targets.map((t) => [t.id, t.scaling.activation?.metric]));
  const converted = convertResults(queries, results, (id) => activation.get(id));
  return { readings: converted.byTarget, problems: [...problems, ...converted.problems] };
}

/** Live capacity of one target (also used to re-read after losing a conditional write). */
export async function readCapacity(ports: Ports, t: TargetPolicy): Promise<Capacity> {
  switch (t.kind) {
    case 'sagemaker-variant':
      return ports.sageMaker.variantCapacity(t.region, t.endpointName, t.variantName);
    case 'sagemaker-inference-component':
      return ports.sageMaker.componentCapacity(t.region, t.inferenceComponentName);
    case 'ec2-asg': {
      const found = await ports.groups.groupCapacities(t.region, [t.autoScalingGroupName]);
      const capacity = found.get(t.autoScalingGroupName);
      if (!capacity)
        throw new Error(`Auto Scaling group "${t.autoScalingGroupName}" does not exist in ${t.region}`);
      return capacity;
    }
  }
}

function byRegion<T extends TargetPolicy>(targets: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of targets) out.set(t.region, [...(out.get(t.region) ?? []), t]);
  return out;
}

async function readCapacities(ports: Ports, targets: readonly TargetPolicy[]) {
  const capacity = new Map<string, Capacity | Error>();
  const groups = targets.filter((t) => t.kind === 'ec2-asg');
  await Promise.all([
    ...[...byRegion(groups)].map(async ([region, list]) => {
      try {
        const found = await ports.groups.groupCapacities(
          region,
          list.map((g) => g.autoScalingGroupName),
        );
        for (const g of list) {
          capacity.set(
            g.id,
            found.get(g.autoScalingGroupName) ??
              new Error(`Auto Scaling group "${g.autoScalingGroupName}" does not exist in ${region}`),
          );
        }
      } catch (error) {
        for (const g of list) capacity.set(g.id, asError(error));
      }
    }),
    ...targets
      .filter((t) => t.kind !== 'ec2-asg')
      .map(async (t) => {
        capacity.set(t.id, await readCapacity(ports, t).catch(asError));
      }),
  ]);
  return capacity;
}

async function conflictsIn(ports: Ports, region: string, refs: Map<string, ScalableRef>) {
  const active = await ports.scalers.activeScalableTargets(region, [...refs.values()]);
  const out = new Map<string, Conflict | null>();
  for (const [id, ref] of refs) {
    const names = active.has(ref.resourceId) ? await ports.scalers.policyNames(region, ref) : [];
    out.set(
      id,
      names.length > 0
        ? { resourceId: ref.resourceId, scalableDimension: ref.dimension, policyNames: names }
        : null,
    );
  }
  return out;
}

async function readConflicts(ports: Ports, targets: readonly TargetPolicy[]) {
  const conflicts = new Map<string, Conflict | null | Error>();
  for (const t of targets) if (t.kind === 'ec2-asg') conflicts.set(t.id, null);
  const sageMaker = targets.filter((t) => t.kind !== 'ec2-asg');
  await Promise.all(
    [...byRegion(sageMaker)].map(async ([region, list]) => {
      const refs = new Map(list.map((t) => [t.id, scalableRef(t)!]));
      try {
        for (const [id, c] of await conflictsIn(ports, region, refs)) conflicts.set(id, c);
      } catch (error) {
        for (const t of list) conflicts.set(t.id, asError(error));
      }
    }),
  );
  return conflicts;
}

export async function observe(
  ports: Ports,
  targets: readonly TargetPolicy[],
  now: number,
): Promise<Observation> {
  const [metrics, capacity, conflicts] = await Promise.all([
    readMetrics(ports, targets, now),
    readCapacities(ports, targets),
    readConflicts(ports, targets),
  ]);
  return { readings: metrics.readings, capacity, conflicts, problems: metrics.problems };
}
