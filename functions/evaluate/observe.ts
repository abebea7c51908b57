/**
 * What one evaluation reads before deciding, batched across its targets and bounded in flight.
 * Per region and tick (shared/invocation/tick-calls.ts has the formula and the thresholds,
 * tests/scale/tick-calls.test.ts pins it):
 * - GetMetricData: ceil(queries / 500), every signal of every target, up to 4 calls at once;
 * - DescribeAutoScalingGroups: ceil(groups / 50);
 * - DescribeEndpoint: one per endpoint, shared by all its variants (SageMaker has no batch
 *   describe, and live capacity is what every decision starts from); DescribeInferenceComponent
 *   one per component; READS_IN_FLIGHT (./live.ts) at a time;
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

import type { Conflict } from '../../shared/apply/conflicts.ts';
import type { Capacity } from '../../shared/aws/capacity.ts';
import type { ResolvedGroup } from '../../shared/failover/group.ts';
import { mapBounded } from '../../shared/invocation/pool.ts';
import { BATCH_STATE_FROM } from '../../shared/invocation/tick-calls.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { batches, buildQueries, queryWindow } from '../../shared/signals/queries.ts';
import { convertResults, type RawMetricResult, type TargetReadings } from '../../shared/signals/readings.ts';
import { type FailoverFloorInput, failoverFloors } from './failover-floor.ts';
import { asError, readTargets } from './live.ts';
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

/** GetMetricData calls in flight at once (each up to 500 queries; CloudWatch allows 50 a second). */
export const METRIC_CALLS_IN_FLIGHT = 4;

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
