/**
 * The oracle (BACKTEST.md "The oracle"): the least capacity that meets the SLO each minute,
 * knowing the future, with start-up delays no obstacle: oracle(m) =
 * max(minCapacity, ceil(r(m) x peakInstances / max(r) - 1e-9)). It provisions with no start-up
 * delay, so its instance-minutes are the sum of oracle(m): the floor for every other policy.
 */
import { oracleCapacity } from '../scenario.ts';
import type { Policy, PolicyContext } from './types.ts';

export function oraclePolicy(ctx: PolicyContext): Policy {
  const { peakInstances, minCapacity } = ctx.scenario;
  const capacity = oracleCapacity(ctx.work, peakInstances, minCapacity);
  return {
    name: 'oracle',
    startDelayMinutes: 0,
    initialReady: capacity[0] ?? minCapacity,
    decide: (_view, minute) => capacity[minute]!,
  };
}
