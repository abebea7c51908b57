/**
 * Static peak: provision for the busiest minute and never move (BACKTEST.md "Baselines": static
 * peak is peakInstances always). It starts at peakInstances, so its instance-minutes are exactly
 * peakInstances x minutes: 40 x 60 = 2400 for an hour-long trace (tests/backtest/oracle.test.ts).
 */
import type { Policy, PolicyContext } from './types.ts';

export function staticPeakPolicy(ctx: PolicyContext): Policy {
  const peak = ctx.scenario.peakInstances;
  return { name: 'static-peak', initialReady: peak, decide: () => peak };
}
