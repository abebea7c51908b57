/**
 * `governor backtest --spot`: the capacity mix on one trace (docs/capacity-mix.md, "The
 * backtest"). Every strategy meets the same spot weather (hazard.ts) and the same demand:
 *   - governor, all on-demand: the governor policy, every instance on-demand;
 *   - governor + mix: the same policy with the mix planner's floor and MixedInstancesPolicy and
 *     the interruption handler's shifts (controller.ts);
 *   - aws-target-tracking, all on-demand, and with a fixed 70/30 on-demand/spot split over the
 *     same pools (what many teams run): a group left to itself, replacing a reclaimed instance
 *     when it terminates and retrying spot in dry pools;
 *   - the oracle with the cheapest feasible mix: the least capacity each minute, spot up to the
 *     policy's maxPercent at the cheapest pool's price, nothing lost to interruptions.
 * A target without a capacityMix gets the reference one: three instance types at the scenario's
 * price in three Availability Zones (nine spot pools), spot at `spotFraction` of it, all in one
 * interruption band, maxPercent 70, nothing committed unless asked. Every (type, zone) pair is a
 * pool of its own (pools.ts): its own reclaims, its own spot count.
 */
import type { CommitPlan } from '../../commit/plan.ts';
import { spotPools } from '../../mix/optimize.ts';
import { type MixPolicy, replacementLeadMinutes } from '../../mix/types.ts';
import {
  CapacityMixSchema,
  type InterruptionBand,
  type SpotLossDomain,
} from '../../policy/capacity-mix-schema.ts';
import type { TargetPolicy } from '../../policy/schema.ts';
import { buildPolicies } from '../policies/index.ts';
import { type LookaheadFits, lookaheadMemo } from '../policies/lookahead.ts';
import { buildScenario, buildWorkload, oracleCapacity, type ScenarioOptions } from '../scenario.ts';
import type { Trace } from '../trace.ts';
import { oracleRun, pricingOf } from './billing.ts';
import { commitmentOf, committedRate } from './commitment.ts';
import { ALL_ON_DEMAND } from './fleet.ts';
import { drawWeather } from './hazard.ts';
import { backtestPools, poolIndexesOf, REFERENCE_ZONE_NAMES } from './pools.ts';
import { type MixPricing, type MixRunSummary, type MixStrategy, simulateMix } from './simulate.ts';
import { MIX_BASELINE, mixStrategies } from './strategies.ts';

export interface SpotOptions {
  /** Spot price as a fraction of on-demand for the reference mix (default 0.35). */
  spotFraction: number;
  /** The reference mix's pools' band (default '>20%'); also replaces a policy's bands when given. */
  band: InterruptionBand | null;
  /** Multiplies every pool's interruption hazard (default 1). */
  interruptionScale: number;
  /**
   * Committed instances (default 0): of the reference mix, or in place of the policy's
   * capacityMix.committed.instances; 'auto' takes the commitment planner's number
   * (shared/commit/plan.ts) on the fleet of "governor, all on-demand" over this trace.
   */
  committed: number | 'auto';
  /** The reference mix's committed rate, USD per instance-hour (default: the on-demand price). */
  committedUsdPerHour: number | null;
  /** Seed of the spot weather (default 1). */
  seed: number;
  /** Share of the hazard that comes as zone-wide reclaims of every pool of a zone at once (hazard.ts; default 0). */
  zoneWide: number;
  /**
   * Availability Zones the group spans (the first N of us-east-1a..f), replacing the policy's
   * capacityMix.zones; null (default): the policy's, and REFERENCE_ZONES for the reference mix.
   */
  zones: number | null;
  /** spot.maxPoolShare in place of the policy's (percent); null: the policy's (the reference mix: none). */
  maxPoolShare: number | null;
  /** spot.lossDomain in place of the policy's; null: the policy's (the reference mix: pool). */
  lossDomain: SpotLossDomain | null;
  /** spot.overProvision in place of the policy's (instances); null: the policy's (the reference mix: 0). */
  overProvision: number | null;
}

export const DEFAULT_SPOT: SpotOptions = {
  spotFraction: 0.35,
  band: null,
  interruptionScale: 1,
  committed: 0,
  committedUsdPerHour: null,
  seed: 1,
  zoneWide: 0,
  zones: null,
  maxPoolShare: null,
  lossDomain: null,
  overProvision: null,
};
/** The reference mix's group spans three Availability Zones (issue 22, item 3; was one before). */
export const REFERENCE_ZONES = 3;
const REFERENCE_BAND: InterruptionBand = '>20%';

export interface MixBacktestInput {
  trace: Trace;
  target: TargetPolicy;
  options: ScenarioOptions;
  spot: SpotOptions;
  /**
   * Forecasts and noise fits, shared by every Governor row (they depend on the trace's delivered
   * requests only): default, a memo for this run; pass one to share it across runs of one trace.
   */
  fits?: LookaheadFits;
  onProgress?: (strategy: string, done: number) => void;
}

export interface MixBacktestResult {
  trace: { name: string; minutes: number };
  spot: SpotOptions & {
    /** The commitment every row with one bills: how many, at what rate, and how it was chosen. */
    commitment: {
      instances: number;
      usdPerHour: number;
      chosen: 'given' | 'planned';
      plan: CommitPlan | null;
    };
    reclaimEvents: number;
    pools: { instanceType: string; zone: string | null; band: string; spotUsdPerHour: number }[];
    /** spot.overProvision as governor + mix ran it (the policy's, or the option's): 0 for none. */
    spotHeadroom: number;
  };
  onDemandUsdPerHour: number;
  runs: MixRunSummary[];
}

/** The target's mix, or the reference one; bands replaced by `spot.band` when given. */
export function mixPolicyFor(
  target: TargetPolicy,
  options: ScenarioOptions,
  spot: SpotOptions & { committed: number },
  maxCapacity: number,
): MixPolicy {
  const band = spot.band ?? REFERENCE_BAND;
  const price = options.pricePerInstanceHour;
  const own = target.capacityMix;
  const mix =
    (own && { ...own, committed: { ...own.committed, instances: spot.committed } }) ??
    CapacityMixSchema.parse({
      pools: ['pool-a.2xlarge', 'pool-b.2xlarge', 'pool-c.2xlarge'].map((instanceType) => ({
        instanceType,
        onDemandUsdPerHour: price,
        spotUsdPerHour: price * spot.spotFraction,
        interruption: band,
      })),
      committed:
        spot.committed > 0
          ? {
              instances: spot.committed,
              instanceType: 'pool-a.2xlarge',
              ...(spot.committedUsdPerHour !== null && { usdPerHour: spot.committedUsdPerHour }),
            }
          : { instances: 0 },
      spot: { maxPercent: 70, maxInterruption: band },
    });
  const pools = spot.band ? mix.pools.map((p) => ({ ...p, interruption: band })) : mix.pools;
  const maxInterruption = spot.band && mix.spot ? band : mix.spot?.maxInterruption;
  const zoneCount = spot.zones ?? (own ? null : REFERENCE_ZONES);
  const zones = zoneCount === null ? mix.zones : REFERENCE_ZONE_NAMES.slice(0, zoneCount);
  const spotPolicy = mix.spot && {
    ...mix.spot,
    ...(maxInterruption && { maxInterruption }),
    ...(spot.maxPoolShare !== null && { maxPoolShare: spot.maxPoolShare }),
    ...(spot.lossDomain !== null && { lossDomain: spot.lossDomain }),
    ...(spot.overProvision !== null && { overProvision: spot.overProvision }),
  };
  return {
    targetId: target.id,
    minCapacity: 1,
    maxCapacity,
    mix: { ...mix, pools, ...(zones && { zones }), ...(spotPolicy && { spot: spotPolicy }) },
    // Until the controller measures its scale-outs (controller.ts).
    replacementLeadMinutes: replacementLeadMinutes(mix.replacementLeadTimeMinutes, null),
  };
}

export function runMixBacktest(input: MixBacktestInput): MixBacktestResult {
  const { trace, target, options, spot } = input;
  const workload = buildWorkload(trace, options);
  const scenario = buildScenario(workload, options, target.instanceCapacity?.requestsPerMinuteAtSlo);
  const unplanned = mixPolicyFor(target, options, { ...spot, committed: 0 }, scenario.maxCapacity);
  const n = workload.work.length;
  const simulated = backtestPools(unplanned, REFERENCE_BAND);
  const weather = drawWeather(
    simulated.map((x) => x.band),
    n,
    spot.seed,
    spot.interruptionScale,
    spot.zoneWide,
    simulated.map((x) => x.zoneIndex),
  );
  const fits = input.fits ?? lookaheadMemo();
  const fresh = (name: string) => {
    const found = buildPolicies({ scenario, work: workload.work, fits }, target).find((p) => p.name === name);
    if (!found) throw new Error(`no ${name} policy for ${target.id}`);
    return found;
  };
  let done = 0;
  let total = 6;
  const simulate = (s: MixStrategy, pricing: MixPricing, fleetOut?: Float64Array) => {
    const at = done++;
    input.onProgress?.(s.name, at / total);
    return simulateMix(s, {
      scenario,
      workload,
      weather,
      zoneOf: simulated.map((x) => x.zoneIndex),
      pricing,
      ...(fleetOut && { fleetOut }),
      onProgress: input.onProgress && ((m) => input.onProgress!(s.name, (at + m / n) / total)),
    });
  };
  const onDemandRate = pricingOf(unplanned, simulated).onDemandUsdPerHour;
  const rate = committedRate(target, spot, onDemandRate);
  // Governor all on-demand first: its fleet is what a planned commitment is sized on.
  const fleet = new Float64Array(n);
  const baseline: MixStrategy = {
    name: MIX_BASELINE,
    capacity: fresh('governor'),
    fixedMix: ALL_ON_DEMAND,
    detachOnWarning: true,
    committed: false,
  };
  const onDemandRun = simulate(baseline, pricingOf(unplanned, simulated), fleet);
  const { instances, plan } = commitmentOf(target, spot, rate, onDemandRate, fleet);
  const policy = mixPolicyFor(
    target,
    options,
    { ...spot, committed: instances, committedUsdPerHour: rate },
    scenario.maxCapacity,
  );
  const pricing = pricingOf(policy, simulated);
  const eligible = poolIndexesOf(
    simulated,
    spotPools(policy).map((x) => x.instanceType),
  );
  const strategies = mixStrategies({
    pools: simulated,
    policy,
    eligible,
    fresh,
    scenario,
    target,
    committed: instances,
    fits,
    baseline,
  });
  total = strategies.length;
  const runs = strategies.map((s) => (s === baseline ? onDemandRun : simulate(s, pricing)));
  const requests = workload.requests.reduce((a, b) => a + b, 0);
  runs.push(
    oracleRun(
      oracleCapacity(workload.work, scenario.peakInstances, scenario.minCapacity),
      policy,
      pricing,
      requests,
    ),
  );
  return {
    trace: { name: trace.name, minutes: n },
    spot: {
      ...spot,
      commitment: {
        instances,
        usdPerHour: pricing.committedUsdPerHour || (rate ?? onDemandRate),
        chosen: plan ? 'planned' : 'given',
        plan,
      },
      reclaimEvents: weather.count,
      pools: simulated.map((x) => ({
        instanceType: x.instanceType,
        zone: x.zone,
        band: x.band,
        spotUsdPerHour: x.spotUsdPerHour,
      })),
      spotHeadroom: policy.mix.spot?.overProvision ?? 0,
    },
    onDemandUsdPerHour: pricing.onDemandUsdPerHour,
    runs,
  };
}

export { MixInputError } from './commitment.ts';
