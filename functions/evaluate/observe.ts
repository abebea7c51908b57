/**
 * What one evaluation reads before deciding, batched across its targets: one GetMetricData per
 * region (every signal of every target), one DescribeAutoScalingGroups per region, one
 * DescribeEndpoint or DescribeInferenceComponent per SageMaker target, one
 * DescribeScalableTargets per region (then DescribeScalingPolicies only where Application Auto
 * Scaling is active), and one DescribePolicies per group (the call takes one group name). The
 * same calls whatever the load: constant work in calm and storm.
 *
 * Failures are kept per target: a metrics failure leaves signals missing (the engine holds and
 * never scales in on missing data); a capacity or scaler failure fails that target only.
 */
import { type ScalableRef, scalableRef } from '../../shared/aws/app-autoscaling.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import { type Conflict, type GroupPolicy, groupConflict } from '../../shared/control/conflicts.ts';
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
  const converted = convertResults(queries, results, (id) => activation.get(id), now);
  return { readings: converted.byTarget, problems: [...problems, ...converted.problems] };
}

type GroupTarget = Extract<TargetPolicy, { kind: 'ec2-asg' }>;
const isGroup = (t: TargetPolicy): t is GroupTarget => t.kind === 'ec2-asg';
const missingGroup = (name: string, region: string) =>
  new Error(`Auto Scaling group "${name}" does not exist in ${region}`);

/** Live capacity of one target (also used to re-read after losing a conditional write). */
export async function readCapacity(ports: Ports, t: TargetPolicy): Promise<Capacity> {
  switch (t.kind) {
    case 'sagemaker-variant':
      return ports.sageMaker.variantCapacity(t.region, t.endpointName, t.variantName);
    case 'sagemaker-inference-component':
      return ports.sageMaker.componentCapacity(t.region, t.inferenceComponentName);
    case 'ec2-asg': {
      const found = await ports.groups.describeGroups(t.region, [t.autoScalingGroupName]);
      const group = found.get(t.autoScalingGroupName);
      if (!group) throw missingGroup(t.autoScalingGroupName, t.region);
      return group.capacity;
    }
  }
}

function byRegion<T extends TargetPolicy>(targets: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of targets) out.set(t.region, [...(out.get(t.region) ?? []), t]);
  return out;
}

interface PerTarget {
  capacity: Map<string, Capacity | Error>;
  conflicts: Map<string, Conflict | null | Error>;
}

/** Each group's policies, one DescribePolicies after the other; a failure fails that group only. */
async function policiesOf(ports: Ports, region: string, names: readonly string[]) {
  const out = new Map<string, GroupPolicy[] | Error>();
  for (const name of new Set(names)) {
    out.set(name, await ports.groups.scalingPolicies(region, name).catch(asError));
  }
  return out;
}

/** Capacity and other scalers of the groups in one region; the two reads run side by side. */
async function readGroupsIn(ports: Ports, region: string, list: readonly GroupTarget[], into: PerTarget) {
  const names = list.map((g) => g.autoScalingGroupName);
  const [groups, policies] = await Promise.all([
    ports.groups.describeGroups(region, names).catch(asError),
    policiesOf(ports, region, names),
  ]);
  for (const g of list) {
    const name = g.autoScalingGroupName;
    const group = groups instanceof Error ? groups : (groups.get(name) ?? missingGroup(name, region));
    const own = policies.get(name)!;
    if (group instanceof Error) {
      into.capacity.set(g.id, group);
      into.conflicts.set(g.id, group);
      continue;
    }
    into.capacity.set(g.id, group.capacity);
    into.conflicts.set(g.id, own instanceof Error ? own : groupConflict(name, own, group.alarmsSuspended));
  }
}

async function conflictsIn(ports: Ports, region: string, refs: Map<string, ScalableRef>) {
  const active = await ports.scalers.activeScalableTargets(region, [...refs.values()]);
  const out = new Map<string, Conflict | null>();
  for (const [id, ref] of refs) {
    const names = active.has(ref.resourceId) ? await ports.scalers.policyNames(region, ref) : [];
    out.set(
      id,
      names.length > 0
        ? {
            scaler: 'application-auto-scaling',
            resourceId: ref.resourceId,
            scalableDimension: ref.dimension,
            policyNames: names,
          }
        : null,
    );
  }
  return out;
}

async function readSageMaker(ports: Ports, targets: readonly TargetPolicy[], into: PerTarget) {
  await Promise.all([
    ...targets.map(async (t) => {
      into.capacity.set(t.id, await readCapacity(ports, t).catch(asError));
    }),
    ...[...byRegion(targets)].map(async ([region, list]) => {
      const refs = new Map(list.map((t) => [t.id, scalableRef(t)!]));
      try {
        for (const [id, c] of await conflictsIn(ports, region, refs)) into.conflicts.set(id, c);
      } catch (error) {
        for (const t of list) into.conflicts.set(t.id, asError(error));
      }
    }),
  ]);
}

async function readTargets(ports: Ports, targets: readonly TargetPolicy[]): Promise<PerTarget> {
  const into: PerTarget = { capacity: new Map(), conflicts: new Map() };
  await Promise.all([
    ...[...byRegion(targets.filter(isGroup))].map(([region, list]) =>
      readGroupsIn(ports, region, list, into),
    ),
    readSageMaker(
      ports,
      targets.filter((t) => !isGroup(t)),
      into,
    ),
  ]);
  return into;
}

export async function observe(
  ports: Ports,
  targets: readonly TargetPolicy[],
  now: number,
): Promise<Observation> {
  const [metrics, { capacity, conflicts }] = await Promise.all([
    readMetrics(ports, targets, now),
    readTargets(ports, targets),
  ]);
  return { readings: metrics.readings, capacity, conflicts, problems: metrics.problems };
}
