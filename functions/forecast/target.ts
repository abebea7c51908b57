/**
 * One target's forecast: demand history -> forecast() -> warm capacity (when warmPool is on) ->
 * floor schedule -> UpdateItem of the state item's forecastFloor -> band metrics -> scheduled
 * actions (SageMaker, when the policy asks) -> warm pool size (Auto Scaling groups). Warm
 * capacity is of the kind the target can keep (shared/forecast/warm-capacity.ts): a SageMaker
 * target's standby headroom is added to its floor; a group's warm pool is set with PutWarmPool.
 * Too little history is a result (no floor written, and a log line that says where the demand
 * was looked for); failed I/O is a failed outcome the run reports.
 */

import { type ScalableRef, scalableRef } from '../../shared/aws/scalable-target.ts';
import {
  type DemandHistory,
  describeSources,
  HISTORY_PERIOD_SECONDS,
  type HistoryWindow,
} from '../../shared/control/demand.ts';
import { bandPoints, floorSchedule, stepAt } from '../../shared/control/forecast-floor.ts';
import { type PlannedAction, planActions, reconcile } from '../../shared/control/scheduled-actions.ts';
import type { ForecastFloor } from '../../shared/control/state.ts';
import { forecast } from '../../shared/forecast/forecast.ts';
import type { Forecast } from '../../shared/forecast/types.ts';
import { planWarmCapacity, type WarmCapacityPlan } from '../../shared/forecast/warm-capacity.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '../../shared/policy/schema.ts';
import type { ForecastConfig } from './config.ts';
import type { ForecastPorts } from './ports.ts';
import type { ForecastTelemetry } from './telemetry.ts';

/** 48 h ahead: the floor can be used for up to 2 x refreshMinutes, and refreshMinutes is at most 1440. */
export const HORIZON_MINUTES = 2880;

/** Why this run writes nothing that changes capacity (shadow mode, or the kill switch). */
export type Withheld = 'shadow' | 'kill-switch';

export interface RunContext {
  config: ForecastConfig;
  ports: ForecastPorts;
  telemetry: ForecastTelemetry;
  now: number;
  /** Set: plan and log, but put no scheduled action and resize no warm pool. */
  withheld: Withheld | null;
}

/** Why a target's floor got no scheduled actions (the floor itself was written). */
export type ActionsSkipped = 'Disabled' | 'NotSageMaker' | 'OtherRegion' | 'NotRegistered';

export type ActionsOutcome =
  | { status: 'written'; planned: number; put: number; removed: number; threshold: number }
  | { status: 'skipped'; reason: ActionsSkipped }
  /** scheduledActions is off: Governor's earlier actions for the target were removed. */
  | { status: 'removed'; removed: number }
  /** Shadow or kill switch: planned but not put; Governor's earlier actions removed. */
  | { status: 'withheld'; why: Withheld; planned: number; removed: number }
  | { status: 'failed'; detail: string };

/** The warm capacity kept for a target with warmPool on, and what was done about it. */
export type WarmOutcome =
  /** SageMaker: instances added to every step of the floor. */
  | { kind: 'standby'; size: number; message: string }
  /** Auto Scaling group: PutWarmPool sent ('resized'), not needed, withheld, or failed. */
  | {
      kind: 'warm-pool';
      size: number;
      message: string;
      status: 'resized' | 'unchanged' | 'withheld' | 'failed';
      detail?: string;
    };

export type TargetOutcome = { targetId: string } & (
  | {
      outcome: 'written';
      model: 'daily' | 'weekly';
      historyDays: number;
      /** The floor for now and the highest of the schedule, instances. */
      floorNow: number | null;
      floorPeak: number;
      notes: string[];
      actions: ActionsOutcome;
      warm?: WarmOutcome;
    }
  | { outcome: 'fresh'; computedAt: number }
  | { outcome: 'no-floor'; reason: 'NoData' | 'InsufficientHistory' | 'Rejected'; message: string }
  | { outcome: 'failed'; detail: string }
);

export const warmFailed = (w: WarmOutcome | undefined): boolean =>
  w?.kind === 'warm-pool' && w.status === 'failed';

export const errorText = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** Puts the planned actions and removes Governor's others for the target; counts of each. */
async function apply(ctx: RunContext, t: TargetPolicy, ref: ScalableRef, planned: readonly PlannedAction[]) {
  const { put, remove } = reconcile(t.id, planned, await ctx.ports.actions.list(t.region, ref));
  // New and changed actions first, then the stale ones: a failure in between leaves extra
  // actions (removed next hour), never a ramp without one.
  for (const a of put) await ctx.ports.actions.put(t.region, ref, a);
  for (const name of remove) await ctx.ports.actions.remove(t.region, ref, name);
  return { put: put.length, removed: remove.length };
}

async function writeActions(ctx: RunContext, t: TargetPolicy, floor: ForecastFloor): Promise<ActionsOutcome> {
  const ref = scalableRef(t);
  if (!ref) return { status: 'skipped', reason: 'NotSageMaker' };
  // The role may write scheduled actions in the stack's region only, as the evaluator changes SageMaker there only.
  if (t.region !== ctx.config.AWS_REGION) return { status: 'skipped', reason: 'OtherRegion' };
  try {
    if (!t.forecast?.scheduledActions) {
      // Turned off: Governor's actions from when it was on are removed, so none fires later.
      const { removed } = await apply(ctx, t, ref, []);
      return removed > 0 ? { status: 'removed', removed } : { status: 'skipped', reason: 'Disabled' };
    }
    const live = await ctx.ports.actions.minCapacity(t.region, ref);
    if (live === null) return { status: 'skipped', reason: 'NotRegistered' };
    const { actions, threshold } = planActions({
      targetId: t.id,
      floor,
      baseline: t.scaling.minCapacity,
      maxCapacity: t.scaling.maxCapacity,
      liveMinCapacity: live,
      now: ctx.now,
    });
    if (ctx.withheld) {
      const { removed } = await apply(ctx, t, ref, []);
      return { status: 'withheld', why: ctx.withheld, planned: actions.length, removed };
    }
    return { status: 'written', planned: actions.length, ...(await apply(ctx, t, ref, actions)), threshold };
  } catch (error) {
    return { status: 'failed', detail: `scheduled actions: ${errorText(error)}` };
  }
}

/** Forecasts one target from its history (already read) and stores the floor. */
export async function forecastTarget(
  ctx: RunContext,
  t: TargetPolicy,
  demand: DemandHistory,
  window: HistoryWindow,
): Promise<TargetOutcome> {
  const f = t.forecast!;
  const where = `${describeSources(t)}, last ${f.historyDays} days`;
  if (!demand.ok)
    return {
      targetId: t.id,
      outcome: 'no-floor',
      reason: demand.reason,
      message: `${demand.message} (${where})`,
    };
  const result = forecast(demand.history, {
    stepMinutes: 5,
    origin: window.end / 60_000,
    horizonMinutes: HORIZON_MINUTES,
    dayStartMinute: f.dayStartMinute,
  });
  if (!result.ok)
    return {
      targetId: t.id,
      outcome: 'no-floor',
      reason: result.reason,
      message: `${result.message} (${where})`,
    };
  const warm = warmPlan(t, result, demand.history);
  const floor = withStandby(
    floorSchedule({
      forecast: result,
      quantile: f.quantile,
      leadTimeMinutes: f.leadTimeMinutes,
      requestsPerInstance: plannedRequestsPerInstance(t)!,
      scaling: t.scaling,
      computedAt: ctx.now,
    }),
    warm,
    t.scaling.maxCapacity,
  );
  await ctx.ports.floors.write(t.id, floor);
  ctx.telemetry.band(t.id, bandPoints(result, floor, ctx.now));
  return {
    targetId: t.id,
    outcome: 'written',
    model: result.model,
    historyDays: result.historyDays,
    floorNow: floor.capacities[stepAt(floor, ctx.now)] ?? null,
    floorPeak: Math.max(...floor.capacities),
    notes: result.notes,
    actions: await writeActions(ctx, t, floor),
    ...(warm ? { warm: await keepWarm(ctx, t, warm) } : {}),
  };
}

/**
 * Warm capacity from the forecast and the five-minute history (sums, so / 5 per minute). The
 * lead time stands for the cold start: it is cold start + metric delay, a minute or two more.
 */
function warmPlan(t: TargetPolicy, result: Forecast, history: readonly (number | null)[]) {
  if (!t.warmPool?.enabled) return undefined;
  const f = t.forecast!;
  return planWarmCapacity({
    kind: t.kind,
    pool: t.warmPool,
    forecast: result,
    demand: history.map((v) => (v === null ? Number.NaN : v / HISTORY_STEP_MINUTES)),
    demandStepMinutes: HISTORY_STEP_MINUTES,
    coldStartMinutes: f.leadTimeMinutes,
    leadMinutes: f.leadTimeMinutes,
    instanceCapacity: t.instanceCapacity?.requestsPerMinuteAtSlo ?? plannedRequestsPerInstance(t)!,
  });
}

const HISTORY_STEP_MINUTES = HISTORY_PERIOD_SECONDS / 60;

/** SageMaker's standby headroom rides on every step of the floor, within maxCapacity. */
function withStandby(floor: ForecastFloor, warm: WarmCapacityPlan | undefined, max: number): ForecastFloor {
  if (warm?.kind !== 'standby' || warm.size === 0) return floor;
  return {
    ...floor,
    capacities: floor.capacities.map((c) => Math.min(max, c + warm.size)),
    standby: warm.size,
  };
}

/** A group's warm pool set to the planned size (withheld in shadow or under the kill switch). */
async function keepWarm(ctx: RunContext, t: TargetPolicy, warm: WarmCapacityPlan): Promise<WarmOutcome> {
  const base = { size: warm.size, message: warm.message };
  if (warm.kind === 'standby' || t.kind !== 'ec2-asg') return { kind: 'standby', ...base };
  if (ctx.withheld) return { kind: 'warm-pool', ...base, status: 'withheld', detail: ctx.withheld };
  try {
    const resized = await ctx.ports.warmPools.resize(t.region, t.autoScalingGroupName, warm.size);
    return { kind: 'warm-pool', ...base, status: resized ? 'resized' : 'unchanged' };
  } catch (error) {
    return { kind: 'warm-pool', ...base, status: 'failed', detail: `warm pool: ${errorText(error)}` };
  }
}
