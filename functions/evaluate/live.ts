/**
 * Live capacity and the other scalers of the targets one evaluation reads, batched per region
 * and bounded in flight (the counts are in ./observe.ts and shared/invocation/tick-calls.ts):
 * groups described 50 a call with their policies, each endpoint described once for all its
 * variants, each component once, and the scalable targets' policies one by one for a few or
 * one sweep of the region for more. A failed read fails only the targets it concerns.
 */
import { type Conflict, type GroupPolicy, groupConflict } from '../../shared/apply/conflicts.ts';
import { refKey, type ScalableRef, scalableRef } from '../../shared/aws/app-autoscaling.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import { type EndpointReading, variantCapacityFrom } from '../../shared/aws/sagemaker.ts';
import { mapBounded } from '../../shared/invocation/pool.ts';
import { ONE_BY_ONE_MAX } from '../../shared/invocation/tick-calls.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { Ports } from './ports.ts';

/**
 * Describe calls (endpoints, components, one group's policies) in flight at once. SageMaker and
 * the Auto Scaling services throttle per account and region at rates they do not publish; 10
 * at about 50-100 ms each reads 500 endpoints in 2.5-5 s, and the SDK backs off on throttling.
 */
export const READS_IN_FLIGHT = 10;
export const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

type GroupTarget = Extract<TargetPolicy, { kind: 'ec2-asg' }>;
type VariantTarget = Extract<TargetPolicy, { kind: 'sagemaker-variant' }>;
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

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) out.set(key(t), [...(out.get(key(t)) ?? []), t]);
  return out;
}

export interface PerTarget {
  capacity: Map<string, Capacity | Error>;
  conflicts: Map<string, Conflict | null | Error>;
}

/**
 * Each group's policies: one sweep of the region for more than ONE_BY_ONE_MAX groups (a
 * failure fails them all), else one DescribePolicies per group (a failure fails that group).
 */
async function policiesOf(ports: Ports, region: string, names: readonly string[]) {
  const unique = [...new Set(names)];
  const out = new Map<string, GroupPolicy[] | Error>();
  if (unique.length > ONE_BY_ONE_MAX && ports.groupPolicies) {
    const all = await ports.groupPolicies.allGroupPolicies(region).catch(asError);
    for (const name of unique) out.set(name, all instanceof Error ? all : (all.get(name) ?? []));
    return out;
  }
  await mapBounded(unique, READS_IN_FLIGHT, async (name) => {
    out.set(name, await ports.groups.scalingPolicies(region, name).catch(asError));
  });
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

/** Policy names of the active refs: one by one for a few, one sweep of the region for more. */
async function policyNamesOf(ports: Ports, region: string, active: readonly ScalableRef[]) {
  const sweep = ports.scalers.policiesInNamespace;
  if (active.length > ONE_BY_ONE_MAX && sweep) {
    const all = await sweep.call(ports.scalers, region);
    return new Map(active.map((ref) => [refKey(ref), all.get(refKey(ref)) ?? []]));
  }
  const named = await mapBounded(active, READS_IN_FLIGHT, (ref) => ports.scalers.policyNames(region, ref));
  return new Map(active.map((ref, i) => [refKey(ref), named[i]!]));
}

async function conflictsIn(ports: Ports, region: string, refs: Map<string, ScalableRef>) {
  const active = await ports.scalers.activeScalableTargets(region, [...refs.values()]);
  const activeRefs = [...refs.values()].filter((ref) => active.has(ref.resourceId));
  const names = await policyNamesOf(ports, region, activeRefs);
  const out = new Map<string, Conflict | null>();
  for (const [id, ref] of refs) {
    const own = names.get(refKey(ref)) ?? [];
    out.set(
      id,
      own.length > 0
        ? {
            scaler: 'application-auto-scaling',
            resourceId: ref.resourceId,
            scalableDimension: ref.dimension,
            policyNames: own,
          }
        : null,
    );
  }
  return out;
}

/**
 * One read per endpoint (all its variant targets) or per component, READS_IN_FLIGHT at a time.
 * Without the endpoints port (in-memory fakes), one variantCapacity per variant.
 */
async function readSageMakerCapacity(ports: Ports, targets: readonly TargetPolicy[], into: PerTarget) {
  const endpoints = ports.endpoints;
  const shared = (t: TargetPolicy): t is VariantTarget => t.kind === 'sagemaker-variant' && !!endpoints;
  const byEndpoint = [...groupBy(targets.filter(shared), (t) => `${t.region}|${t.endpointName}`).values()];
  const alone = targets.filter((t) => !shared(t));
  const reads: (() => Promise<void>)[] = [
    ...byEndpoint.map((variants) => async () => {
      const { region, endpointName } = variants[0]!;
      const out: EndpointReading | Error = await endpoints!
        .describeEndpoint(region, endpointName)
        .catch(asError);
      for (const t of variants) {
        try {
          into.capacity.set(t.id, out instanceof Error ? out : variantCapacityFrom(out, t.variantName));
        } catch (error) {
          into.capacity.set(t.id, asError(error));
        }
      }
    }),
    ...alone.map((t) => async () => {
      into.capacity.set(t.id, await readCapacity(ports, t).catch(asError));
    }),
  ];
  await mapBounded(reads, READS_IN_FLIGHT, (read) => read());
}

async function readSageMaker(ports: Ports, targets: readonly TargetPolicy[], into: PerTarget) {
  await Promise.all([
    readSageMakerCapacity(ports, targets, into),
    ...[...groupBy(targets, (t) => t.region)].map(async ([region, list]) => {
      const refs = new Map(list.map((t) => [t.id, scalableRef(t)!]));
      try {
        for (const [id, c] of await conflictsIn(ports, region, refs)) into.conflicts.set(id, c);
      } catch (error) {
        for (const t of list) into.conflicts.set(t.id, asError(error));
      }
    }),
  ]);
}

export async function readTargets(ports: Ports, targets: readonly TargetPolicy[]): Promise<PerTarget> {
  const into: PerTarget = { capacity: new Map(), conflicts: new Map() };
  await Promise.all([
    ...[...groupBy(targets.filter(isGroup), (t) => t.region)].map(([region, list]) =>
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
