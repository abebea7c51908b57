/**
 * Warm capacity of a target with warmPool on, of the kind it can keep (shared/forecast/
 * warm-capacity.ts): a SageMaker target's standby headroom rides on its floor; a group's warm
 * pool is set with PutWarmPool (withheld in shadow mode and under the kill switch).
 */

import type { ForecastFloor } from '../../shared/floors/stored.ts';
import type { Forecast } from '../../shared/forecast/types.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import { plannedRequestsPerInstance, type TargetPolicy } from '../../shared/policy/schema.ts';
import { HISTORY_PERIOD_SECONDS } from '../../shared/signals/demand.ts';
import { planWarmCapacity, type WarmCapacityPlan } from '../../shared/sizing/warm-capacity.ts';
import type { RunContext } from './context.ts';
import type { WarmOutcome } from './outcomes.ts';

/**
 * Warm capacity from the forecast and the five-minute history (sums, so / 5 per minute). The
 * lead time (configured or measured) stands for the cold start: it is cold start + metric delay,
 * a minute or two more.
 */
export function warmPlan(
  t: TargetPolicy,
  result: Forecast,
  history: readonly (number | null)[],
  leadMinutes: number,
) {
  if (!t.warmPool?.enabled) return undefined;
  return planWarmCapacity({
    kind: t.kind,
    pool: t.warmPool,
    forecast: result,
    demand: history.map((v) => (v === null ? Number.NaN : v / HISTORY_STEP_MINUTES)),
    demandStepMinutes: HISTORY_STEP_MINUTES,
    coldStartMinutes: leadMinutes,
    leadMinutes,
    instanceCapacity: t.instanceCapacity?.requestsPerMinuteAtSlo ?? plannedRequestsPerInstance(t)!,
  });
}

const HISTORY_STEP_MINUTES = HISTORY_PERIOD_SECONDS / 60;

/** SageMaker's standby headroom rides on every step of the floor, within maxCapacity. */
export function withStandby(
  floor: ForecastFloor,
  warm: WarmCapacityPlan | undefined,
  max: number,
): ForecastFloor {
  if (warm?.kind !== 'standby' || warm.size === 0) return floor;
  return {
    ...floor,
    capacities: floor.capacities.map((c) => Math.min(max, c + warm.size)),
    standby: warm.size,
  };
}

/** A group's warm pool set to the planned size (withheld in shadow or under the kill switch). */
export async function keepWarm(
  ctx: RunContext,
  t: TargetPolicy,
  warm: WarmCapacityPlan,
): Promise<WarmOutcome> {
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
