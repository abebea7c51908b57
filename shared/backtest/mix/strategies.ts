/**
 * The strategies of a mix backtest (run.ts), in table order: Governor with the mix planner and the
 * commitment; Governor with the commitment and on-demand only, when there is one; Governor all
 * on-demand, the baseline every saving is measured from; SpotHedge on Governor's capacity
 * (spothedge.ts); and target tracking as many teams run it, all on-demand and a fixed 70/30
 * on-demand/spot split over the same pools, neither with a commitment.
 */
import type { MixPolicy } from '../../mix/types.ts';
import { DEFAULT_LEAD_TIME_MINUTES } from '../../policy/forecast-schema.ts';
import type { TargetPolicy } from '../../policy/schema.ts';
import type { LookaheadFits } from '../policies/lookahead.ts';
import { MixController } from './controller.ts';
import { ALL_ON_DEMAND, type GroupMix } from './fleet.ts';
import type { BacktestPool } from './pools.ts';
import type { MixStrategy } from './simulate.ts';
import { spotHedge } from './spothedge.ts';

/** The all on-demand Governor run every saving is measured from. */
export const MIX_BASELINE = 'governor, all on-demand';
/** The fixed split of the baseline: 70 % on-demand, 30 % spot. */
export const FIXED_SPLIT_ON_DEMAND_PERCENT = 70;

/**
 * The rows after the all on-demand baseline, in table order: Governor with the mix (and the
 * commitment), Governor with the commitment alone when there is one, SpotHedge on Governor's
 * capacity, and target tracking as many teams run it (no commitment).
 */
export function mixStrategies(c: {
  policy: MixPolicy;
  /** The simulated (type, zone) pools. */
  pools: readonly BacktestPool[];
  eligible: number[];
  fresh: (name: string) => MixStrategy['capacity'];
  scenario: { mu: number };
  target: TargetPolicy;
  committed: number;
  fits: LookaheadFits;
  /** Governor all on-demand, already run (the commitment is planned on its fleet). */
  baseline: MixStrategy;
}): MixStrategy[] {
  const fixedSplit: GroupMix = {
    onDemandBase: 0,
    onDemandPercentAboveBase: FIXED_SPLIT_ON_DEMAND_PERCENT,
    spotPools: c.eligible,
  };
  return [
    {
      name: 'governor + mix',
      capacity: c.fresh('governor'),
      controller: new MixController({
        policy: c.policy,
        instanceCapacity: c.scenario.mu,
        fits: c.fits,
        forecastLeadMinutes: c.target.forecast?.leadTimeMinutes ?? DEFAULT_LEAD_TIME_MINUTES,
        pools: c.pools,
      }),
      fixedMix: ALL_ON_DEMAND,
      detachOnWarning: true,
    },
    ...(c.committed > 0
      ? [
          {
            name: 'governor, committed + on-demand',
            capacity: c.fresh('governor'),
            fixedMix: ALL_ON_DEMAND,
            detachOnWarning: true,
            floor: c.committed,
          },
        ]
      : []),
    c.baseline,
    spotHedge(c.fresh('governor'), c.committed, c.eligible, c.policy.mix.spot?.maxPercent ?? 0),
    {
      name: 'target tracking 70/30',
      capacity: c.fresh('aws-target-tracking'),
      fixedMix: fixedSplit,
      detachOnWarning: false,
      committed: false,
    },
    {
      name: 'target tracking, all on-demand',
      capacity: c.fresh('aws-target-tracking'),
      fixedMix: ALL_ON_DEMAND,
      detachOnWarning: false,
      committed: false,
    },
  ];
}
