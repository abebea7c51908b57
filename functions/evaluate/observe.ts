/**
 * What one evaluation reads before deciding, batched across its targets and bounded in flight.
 * Per region and tick (shared/invocation/tick-calls.ts has the formula and the thresholds,
 * tests/scale/tick-calls.test.ts pins it):
 * - GetMetricData: ceil(queries / 500), every signal of every target, up to 4 calls at once;
 * - DescribeAutoScalingGroups: ceil(groups / 50);
 * - DescribeEndpoint: one per endpoint, shared by all its variants (SageMaker has no batch
 *   describe, and live capacity is what every decision starts from); DescribeInferenceComponent
 *   one per component; READS_IN_FLIGHT at a time;
 * - DescribeScalableTargets: ceil(SageMaker resources / 50);
 * - other scalers' policies, for the resources registered and scaling dynamically (A) and the
 *   groups (G): one by one while there are at most ONE_BY_ONE_MAX, else one sweep of the
 *   region's policies: ceil(P / 50) DescribeScalingPolicies, ceil(P / 100) DescribePolicies.
 * - the FAILOVER#<group> items of the failover groups with a member among the targets: one
 *   BatchGetItem per 100 groups (none without a failover block), for the failover floors.
 * - the state items and the PLAN items (MIX#<id>) of the targets with a capacityMix, together:
 *   ceil((targets + mix targets) / 100) BatchGetItem, for the mix floors and budget ceilings.
 * The same calls whatever the load: constant work in calm and storm.
 *
 * Failures are kept per target: a metrics failure leaves signals missing (the engine holds and
 * never scales in on missing data); a capacity or scaler failure fails the targets it concerns.
 */

import { type Conflict, type GroupPolicy, groupConflict } from '../../shared/apply/conflicts.ts';
import { refKey, type ScalableRef, scalableRef } from '../../shared/aws/app-autoscaling.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import { type EndpointReading, variantCapacityFrom } from '../../shared/aws/sagemaker.ts';
import type { ResolvedGroup } from '../../shared/failover/group.ts';
import { mapBounded } from '../../shared/invocation/pool.ts';
import { BATCH_STATE_FROM, ONE_BY_ONE_MAX } from '../../shared/invocation/tick-calls.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { batches, buildQueries, queryWindow } from '../../shared/signals/queries.ts';
import { convertResults, type RawMetricResult, type TargetReadings } from '../../shared/signals/readings.ts';
import { type FailoverFloorInput, failoverFloors } from './failover-floor.ts';
import { type HeldPlan, heldPlans, mixTargetIds } from './mix-plan.ts';
import type { Ports } from './ports.ts';

export interface Observation {
  readings: Map<string, TargetReadings>;
  capacity: Map<string, Capacity | Error>;
  conflicts: Map<string, Conflict | null | Error>;
  /**
   * State items read in batches, by target id (undefined: no item yet); a target absent from it
   * reads its own with GetItem before its claim.
   */
  stored: Map<string, Record<string, unknown> | undefined>;
  /** Each failover group member's floor, by target id (targets in no group are absent). */
  failover: Map<string, FailoverFloorInput>;
  /** Each target with a capacityMix: its plan in force and the budget's ceiling (others are absent). */
  mix: Map<string, HeldPlan>;
  /** Metric results rejected or unreadable, one line each (logged as warnings). */
  problems: string[];
  /** Why the batched state read failed (each target then reads its own), or null. */
  stateProblem: string | null;
}

/**
 * Describe calls (endpoints, components, one group's policies) in flight at once. SageMaker and
 * the Auto Scaling services throttle per account and region at rates they do not publish; 10
 * at about 50-100 ms each reads 500 endpoints in 2.5-5 s, and the SDK backs off on throttling.
 */
export const READS_IN_FLIGHT = 10;
/** GetMetricData calls in flight at once (each up to 500 queries; CloudWatch allows 50 a second). */
export const METRIC_CALLS_IN_FLIGHT = 4;

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));
const describe = (e: unknown) => `${asError(e).name}: ${asError(e).message}`;

async function readMetrics(ports: Ports, targets: readonly TargetPolicy[], now: number) {
  const queries = buildQueries(targets);
  const window = queryWindow(targets, now);
  const problems: string[] = [];
  const pages = await mapBounded(batches(queries), METRIC_CALLS_IN_FLIGHT, async (batch) => {
    try {
      return await ports.metrics.getMetricData(batch.region, batch.queries, window);
    } catch (error) {
      problems.push(
        `GetMetricData in ${batch.region} failed (${describe(error)}): its signals read as missing`,
      );
      return [] as RawMetricResult[];
    }
  });
  const activation = new Map(targets.map((t) => [t.id, t.scaling.activation?.metric]));
  const converted = convertResults(queries, pages.flat(), (id) => activation.get(id), now);
  return { readings: converted.byTarget, problems: [...problems, ...converted.problems] };
}

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

interface PerTarget {
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

async function readTargets(ports: Ports, targets: readonly TargetPolicy[]): Promise<PerTarget> {
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

/**
 * State items in batches, with the PLAN items of the targets with a capacityMix in the same
 * calls; a failed batch read leaves each target to read its own state, and no mix limits.
 */
async function readStates(ports: Ports, targets: readonly TargetPolicy[]) {
  const none = new Map<string, Record<string, unknown> | undefined>();
  const planIds = mixTargetIds(targets);
  const batch = ports.stateBatch;
  // Only in-memory fakes lack the batched read; with one target and no plan, GetItem reads its state.
  const unread = new Error('not read: this evaluator has no batched state read');
  if (!batch || targets.length + planIds.length < BATCH_STATE_FROM)
    return { stored: none, plans: unread, problem: null };
  const ids = targets.map((t) => t.id);
  try {
    if (planIds.length > 0 && batch.readTick) {
      const { states, plans } = await batch.readTick(ids, planIds);
      return { stored: states, plans, problem: null };
    }
    return { stored: await batch.readMany(ids), plans: unread, problem: null };
  } catch (error) {
    return {
      stored: none,
      plans: new Error(describe(error)),
      problem: `BatchGetItem of the state items failed (${describe(error)}): each target reads its own`,
    };
  }
}

/** The failover groups' items in one batch per 100 groups; a failure leaves every member without a floor. */
async function readFailover(ports: Ports, groups: readonly ResolvedGroup[]) {
  if (groups.length === 0 || !ports.failoverStates) return new Map<string, FailoverFloorInput>();
  const items = await ports.failoverStates.readGroups(groups.map((g) => g.id)).catch(asError);
  return failoverFloors(groups, items instanceof Error ? new Error(describe(items)) : items);
}

export async function observe(
  ports: Ports,
  targets: readonly TargetPolicy[],
  now: number,
  groups: readonly ResolvedGroup[] = [],
): Promise<Observation> {
  const [metrics, { capacity, conflicts }, states, failover] = await Promise.all([
    readMetrics(ports, targets, now),
    readTargets(ports, targets),
    readStates(ports, targets),
    readFailover(ports, groups),
  ]);
  return {
    readings: metrics.readings,
    capacity,
    conflicts,
    stored: states.stored,
    failover,
    mix: heldPlans(targets, states.plans),
    problems: metrics.problems,
    stateProblem: states.problem,
  };
}
