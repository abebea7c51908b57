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
 *   shared/forecast/warm-pool.ts then covers the median rise within a cold start: a running
 *   spare saves no more minutes than it costs, so it is kept only for the rises that happen
 *   at least every other window.
 */
import type { TargetKind, WarmPoolPolicy } from '../policy/schema.ts';

export type WarmCapacityKind = 'warm-pool' | 'standby';

export function warmCapacityKind(kind: TargetKind): WarmCapacityKind {
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
