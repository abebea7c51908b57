/**
 * Which warm capacity a target kind can keep, and what it costs. Pure, shared by the backtest
 * (shared/backtest/policies/lookahead.ts) and the hourly forecast function, so both size it
 * the same way.
 *
 * - EC2 Auto Scaling groups have a native warm pool: stopped, initialized instances that pay for
 *   their volumes only (the policy's idleCostFraction, 0.05 by default) and serve after
 *   warmStartMinutes. Governor sets its size with PutWarmPool.
 * - SageMaker endpoints (variants and inference components) have no warm pool. Governor keeps
 *   standby headroom instead: instances in service above the forecast floor, which serve at
 *   once (warm start 0) and are billed in full (idle cost 1). The newsvendor of
 *   shared/sizing/warm-pool.ts then covers the median rise within a cold start: a running
 *   spare saves no more minutes than it costs, so it is kept only for the rises that happen
 *   at least every other window.
 */

import type { Forecast } from '../forecast/types.ts';
import type { TargetKind, WarmPoolPolicy } from '../policy/schema.ts';
import { burstIncreases, leadTimeSpread, sizeWarmPool, type WarmPoolDecision } from './warm-pool.ts';

export type WarmCapacityKind = 'warm-pool' | 'standby';

function warmCapacityKind(kind: TargetKind): WarmCapacityKind {
  return kind === 'ec2-asg' ? 'warm-pool' : 'standby';
}

export interface WarmCosts {
  kind: WarmCapacityKind;
  /** Cost of one idle instance as a fraction of a running one. */
  idleCostFraction: number;
  /** Minutes from drawing on the capacity to serving. */
  warmStartMinutes: number;
}

export function warmCosts(kind: TargetKind, pool: WarmPoolPolicy): WarmCosts {
  return warmCapacityKind(kind) === 'warm-pool'
    ? { kind: 'warm-pool', idleCostFraction: pool.idleCostFraction, warmStartMinutes: pool.warmStartMinutes }
    : { kind: 'standby', idleCostFraction: 1, warmStartMinutes: 0 };
}

/** Burst history the sizing reads: the last two days are enough and keep each refit cheap. */
export const BURST_HISTORY_MINUTES = 2 * 1440;

export interface WarmCapacityInput {
  kind: TargetKind;
  pool: WarmPoolPolicy;
  forecast: Forecast;
  /** Demand in requests per minute, one value per `demandStepMinutes`, oldest first (NaN: a gap). */
  demand: readonly number[];
  demandStepMinutes: number;
  coldStartMinutes: number;
  /** Cold start + metric delay: the forecast spread is read over this. */
  leadMinutes: number;
  /** Requests per minute one instance serves at the SLO. */
  instanceCapacity: number;
}

export interface WarmCapacityPlan extends WarmPoolDecision {
  kind: WarmCapacityKind;
}

/**
 * How much warm capacity to keep, of the kind the target can keep: the newsvendor of
 * sizeWarmPool over the forecast's spread and the bursts of the last two days, at that kind's
 * costs. Bursts are rises within one cold start, measured at the demand's own resolution (the
 * forecast function reads five-minute sums, which smooth a one-minute spike; the backtest
 * reads minutes).
 */
export function planWarmCapacity(inp: WarmCapacityInput): WarmCapacityPlan {
  const costs = warmCosts(inp.kind, inp.pool);
  const recent = inp.demand.slice(-Math.ceil(BURST_HISTORY_MINUTES / inp.demandStepMinutes));
  const window = Math.max(1, Math.round(inp.coldStartMinutes / inp.demandStepMinutes));
  const decision = sizeWarmPool({
    forecastSpread: leadTimeSpread(inp.forecast, inp.leadMinutes),
    burstIncreases: burstIncreases(recent, window),
    instanceCapacity: inp.instanceCapacity,
    coldStartMinutes: inp.coldStartMinutes,
    warmStartMinutes: costs.warmStartMinutes,
    idleCostFraction: Math.max(1e-6, costs.idleCostFraction),
    minPool: inp.pool.minSize,
    maxPool: inp.pool.maxSize,
  });
  if (costs.kind === 'warm-pool') return { ...decision, kind: costs.kind };
  const message = decision.message.replace(
    /^keep (\d+) warm/,
    'keep $1 standby in service (no warm pool on SageMaker)',
  );
  return { ...decision, kind: costs.kind, message };
}
