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
 * A target without a capacityMix gets the reference one: three pools at the scenario's price,
 * spot at `spotFraction` of it, all in one interruption band, maxPercent 70, nothing committed
 * unless asked.
 */
import { minOf } from '../../arrays/extent.ts';
import type { CommitPlan } from '../../commit/plan.ts';
import { spotPools } from '../../mix/optimize.ts';
import { type MixPolicy, replacementLeadMinutes } from '../../mix/types.ts';
import { committedUsdPerHour } from '../../policy/capacity-mix-rules.ts';
import { CapacityMixSchema, type InterruptionBand } from '../../policy/capacity-mix-schema.ts';
import type { TargetPolicy } from '../../policy/schema.ts';
import { buildPolicies } from '../policies/index.ts';
import { type LookaheadFits, lookaheadMemo } from '../policies/lookahead.ts';
import { buildScenario, buildWorkload, oracleCapacity, type ScenarioOptions } from '../scenario.ts';
import type { Trace } from '../trace.ts';
import { commitmentOf, committedRate } from './commitment.ts';
import { ALL_ON_DEMAND } from './fleet.ts';
import { drawWeather } from './hazard.ts';
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
  /** Share of the hazard that comes as zone-wide reclaims of every pool at once (hazard.ts; default 0). */
  zoneWide: number;
}

export const DEFAULT_SPOT: SpotOptions = {
  spotFraction: 0.35,
  band: null,
  interruptionScale: 1,
  committed: 0,
  committedUsdPerHour: null,
  seed: 1,
  zoneWide: 0,
};
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
    pools: { instanceType: string; band: string; spotUsdPerHour: number }[];
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
  return {
    targetId: target.id,
    minCapacity: 1,
    maxCapacity,
    mix: {
      ...mix,
      pools,
      ...(mix.spot && maxInterruption ? { spot: { ...mix.spot, maxInterruption } } : {}),
    },
    // Until the controller measures its scale-outs (controller.ts).
    replacementLeadMinutes: replacementLeadMinutes(mix.replacementLeadTimeMinutes, null),
  };
}

function pricingOf(p: MixPolicy): MixPricing {
  const committedType = p.mix.committed.instanceType;
  const onDemandPool =
    p.mix.pools.find((x) => x.instanceType === committedType) ??
    [...p.mix.pools].sort((a, b) => a.onDemandUsdPerHour - b.onDemandUsdPerHour)[0]!;
  return {
    onDemandUsdPerHour: onDemandPool.onDemandUsdPerHour,
    spotUsdPerHour: p.mix.pools.map((x) => x.spotUsdPerHour ?? x.onDemandUsdPerHour),
    committedInstances: p.mix.committed.instances,
    committedUsdPerHour:
      p.mix.committed.instances > 0 ? committedUsdPerHour(p.mix) / p.mix.committed.instances : 0,
  };
}

/** The oracle's cost: the least capacity each minute, cheapest feasible mix, no interruption. */
function oracleRun(
  capacity: readonly number[],
  p: MixPolicy,
  pricing: MixPricing,
  requests: number,
): MixRunSummary {
  const eligible = spotPools(p);
  const cheapest = minOf(eligible.map((x) => x.spotUsdPerHour ?? Number.POSITIVE_INFINITY));
  const share = (p.mix.spot?.maxPercent ?? 0) / 100;
  let committed = 0;
  let onDemand = 0;
  let spot = 0;
  let spotMinutes = 0;
  let running = 0;
  for (const c of capacity) {
    const s =
      eligible.length > 0 ? Math.min(Math.floor(c * share), Math.max(0, c - pricing.committedInstances)) : 0;
    committed += pricing.committedInstances * pricing.committedUsdPerHour;
    onDemand += Math.max(0, c - s - pricing.committedInstances) * pricing.onDemandUsdPerHour;
    spot += s * cheapest;
    spotMinutes += s;
    running += c;
  }
  const costUsd = (committed + onDemand + spot) / 60;
  return {
    name: 'oracle (cheapest mix)',
    costUsd,
    committedUsd: committed / 60,
    onDemandUsd: onDemand / 60,
    spotUsd: spot / 60,
    violationMinutes: 0,
    violationRatio: 0,
    costPer1kRequestsUsd: requests > 0 ? costUsd / (requests / 1000) : null,
    reclaimed: 0,
    failedSpotLaunches: 0,
    scalingActions: 0,
    spotShare: running > 0 ? spotMinutes / running : 0,
    instanceHours: running / 60,
    breakerTrips: 0,
  };
}

export function runMixBacktest(input: MixBacktestInput): MixBacktestResult {
  const { trace, target, options, spot } = input;
  const workload = buildWorkload(trace, options);
  const scenario = buildScenario(workload, options, target.instanceCapacity?.requestsPerMinuteAtSlo);
  const unplanned = mixPolicyFor(target, options, { ...spot, committed: 0 }, scenario.maxCapacity);
  const n = workload.work.length;
  const weather = drawWeather(
    unplanned.mix.pools.map((x) => x.interruption ?? REFERENCE_BAND),
    n,
    spot.seed,
    spot.interruptionScale,
    spot.zoneWide,
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
      pricing,
      ...(fleetOut && { fleetOut }),
      onProgress: input.onProgress && ((m) => input.onProgress!(s.name, (at + m / n) / total)),
    });
  };
  const onDemandRate = pricingOf(unplanned).onDemandUsdPerHour;
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
  const onDemandRun = simulate(baseline, pricingOf(unplanned), fleet);
  const { instances, plan } = commitmentOf(target, spot, rate, onDemandRate, fleet);
  const policy = mixPolicyFor(
    target,
    options,
    { ...spot, committed: instances, committedUsdPerHour: rate },
    scenario.maxCapacity,
  );
  const pricing = pricingOf(policy);
  const eligible = spotPools(policy).map((x) => policy.mix.pools.indexOf(x));
  const strategies = mixStrategies({
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
      pools: policy.mix.pools.map((x) => ({
        instanceType: x.instanceType,
        band: x.interruption ?? REFERENCE_BAND,
        spotUsdPerHour: x.spotUsdPerHour ?? x.onDemandUsdPerHour,
      })),
    },
    onDemandUsdPerHour: pricing.onDemandUsdPerHour,
    runs,
  };
}

export { MixInputError } from './commitment.ts';
