/**
 * The tick loop of a mix backtest: BACKTEST.md's minute (promote, decide, scale, bill, serve)
 * with the spot weather in front of it. Per minute m:
 *   0. reclaim events of minute m warn their instances (they serve two more minutes);
 *   1. starting instances whose minute has come serve; warned ones past their notice are gone;
 *   2. the capacity policy decides, the mix controller (Governor) plans and floors it;
 *   3. the group moves to it under its MixedInstancesPolicy (spot launches in dry pools fail);
 *   4. bill: the committed base every minute, on-demand instances beyond it, spot per pool
 *      (starting and warned instances included);
 *   5-6. violation and backlog exactly as shared/backtest/simulate.ts.
 */

import type { MixReasonCode } from '../../mix/types.ts';
import { MetricsFeed, type MinuteState } from '../metrics.ts';
import type { Policy } from '../policies/types.ts';
import type { ResolvedScenario, Workload } from '../scenario.ts';
import type { MixController } from './controller.ts';
import { type GroupMix, MixFleet } from './fleet.ts';
import { NOTICE_MINUTES, reclaimedOf, type SpotWeather } from './hazard.ts';

const EPSILON = 1e-9;

export interface MixPricing {
  /** USD per hour of an on-demand instance (the on-demand priority type). */
  onDemandUsdPerHour: number;
  /** USD per hour of a spot instance, per pool. */
  spotUsdPerHour: readonly number[];
  committedInstances: number;
  /** USD per hour of one committed instance, billed whether it runs or not. */
  committedUsdPerHour: number;
}

export interface MixStrategy {
  name: string;
  capacity: Policy;
  /** Governor's mix (planner, floor and interruption shifts); absent: `fixedMix` throughout. */
  controller?: MixController;
  fixedMix: GroupMix;
  /** Warned instances are detached at once (their replacement starts at the warning). */
  detachOnWarning: boolean;
  /** SpotHedge instead of a MixedInstancesPolicy (spothedge.ts): extra spot over `pools`, on-demand fallback. */
  hedge?: { base: number; extra: number; pools: readonly number[]; maxSpotPercent: number };
  /** Bills the pricing's committed base (default true; false: every instance on demand). */
  committed?: boolean;
  /** A fixed floor without a controller: the committed base held running (governor, committed + on-demand). */
  floor?: number;
}

export interface MixRunSummary {
  name: string;
  costUsd: number;
  committedUsd: number;
  onDemandUsd: number;
  spotUsd: number;
  violationMinutes: number;
  violationRatio: number;
  costPer1kRequestsUsd: number | null;
  /** Spot instances reclaimed (warned). */
  reclaimed: number;
  /** Spot instances the group could not launch for want of capacity (each minute's shortfall). */
  failedSpotLaunches: number;
  scalingActions: number;
  /** Mean share of running instances on spot. */
  spotShare: number;
  /** Instance-hours billed, every capacity type (running, starting and warned instances). */
  instanceHours: number;
  breakerTrips: number;
  /** Governor + mix only: the planner's decisions by primary reason code, and the shifts for availability. */
  mix?: { reasonCounts: Partial<Record<MixReasonCode, number>>; shifts: number };
}

export interface MixSimulationInput {
  scenario: ResolvedScenario;
  workload: Workload;
  weather: SpotWeather;
  pricing: MixPricing;
  /** Each pool's zone index (pools.ts); default: one zone. */
  zoneOf?: readonly number[];
  /** When given, filled with each minute's billed instances (running and starting). */
  fleetOut?: Float64Array;
  onProgress?: (minutesDone: number) => void;
}

const PROGRESS_EVERY = 4096;

/**
 * The fleet as the capacity policy reads it. SpotHedge's extra spot is beyond what its
 * autoscaler asked for and unknown to it (SkyServe sizes from load alone), so the policy sees at
 * most the capacity it last decided; every other strategy sees the group as it is.
 */
function shownFleet(fleet: MixFleet, strategy: MixStrategy, lastDesired: number) {
  const { ready, pending } = fleet;
  if (!strategy.hedge || lastDesired < 0) return { ready, pending };
  const shown = Math.min(ready, lastDesired);
  return { ready: shown, pending: Math.min(pending, lastDesired - shown) };
}

export function simulateMix(strategy: MixStrategy, input: MixSimulationInput): MixRunSummary {
  const { scenario, workload, weather } = input;
  const pricing = strategy.committed === false ? { ...input.pricing, committedInstances: 0 } : input.pricing;
  const policy = strategy.capacity;
  const n = workload.work.length;
  const fleet = new MixFleet({
    pools: pricing.spotUsdPerHour.length,
    initialOnDemand: policy.initialReady ?? scenario.initialInstances,
    coldStartMinutes: policy.startDelayMinutes ?? scenario.coldStartMinutes,
    detachOnWarning: strategy.detachOnWarning,
    ...(input.zoneOf && { zoneOf: input.zoneOf }),
  });
  const feed = new MetricsFeed(scenario.metricDelayMinutes);
  const curve = { muSat: scenario.muSat, sloMs: scenario.sloMs, sloUtilization: scenario.sloUtilization };
  const { controller } = strategy;
  const t = {
    committed: 0,
    onDemand: 0,
    spot: 0,
    violations: 0,
    reclaimed: 0,
    failed: 0,
    actions: 0,
    spotMinutes: 0,
    runningMinutes: 0,
  };
  let backlog = 0;
  let lastDesired = -1;
  // One minute's state, refilled every minute: the feed copies it into its columns.
  const minute: MinuteState = { minute: 0, requests: 0, work: 0, ready: 0, backlogIn: 0, backlogOut: 0 };
  for (let m = 0; m < n; m++) {
    fleet.promote(m);
    for (const event of weather.events.get(m) ?? []) {
      const taken = reclaimedOf(fleet.spot[event.pool]!.total, event);
      fleet.warn(event.pool, taken, m, NOTICE_MINUTES);
      t.reclaimed += taken;
      if (taken > 0) controller?.warned(taken, m);
    }
    feed.advanceTo(m);
    const view = { now: m * 60_000, ...shownFleet(fleet, strategy, lastDesired), warmIdle: 0, metrics: feed };
    controller?.update(feed, m);
    const floors = controller?.floorsAt(m);
    if (controller && floors) policy.setSpotHeadroom?.(controller.spotHeadroom(), floors);
    const wanted = Math.max(
      policy.decide(view, m),
      floors ? Math.max(floors.committed, floors.lossCover) : (strategy.floor ?? 0),
    );
    const desired = Math.min(scenario.maxCapacity, Math.max(scenario.minCapacity, wanted));
    controller?.observe(view.ready, fleet.counted, desired, view.now);
    if (desired !== lastDesired && lastDesired >= 0) t.actions++;
    lastDesired = desired;
    const mix = controller?.groupMix() ?? strategy.fixedMix;
    const dry = (pool: number) => weather.dryUntil(pool, m) > m;
    const { failedSpot } = strategy.hedge
      ? fleet.hedgeTo(desired, strategy.hedge, m, dry)
      : fleet.scaleTo(desired, mix, m, dry);
    if (failedSpot > 0) {
      t.failed += failedSpot;
      controller?.launchFailed(m);
    }
    // Bill the minute.
    t.committed += pricing.committedInstances * pricing.committedUsdPerHour;
    t.onDemand += Math.max(0, fleet.onDemand.total - pricing.committedInstances) * pricing.onDemandUsdPerHour;
    let spotRunning = 0;
    fleet.spot.forEach((part, pool) => {
      const running = part.total + fleet.warnedIn(pool);
      spotRunning += running;
      t.spot += running * pricing.spotUsdPerHour[pool]!;
    });
    t.spotMinutes += spotRunning;
    if (input.fleetOut) input.fleetOut[m] = spotRunning + fleet.onDemand.total;
    t.runningMinutes += spotRunning + fleet.onDemand.total;
    // Serve the minute.
    const ready = fleet.ready;
    const work = workload.work[m]!;
    if (work + backlog > ready * scenario.mu * (1 + EPSILON)) t.violations++;
    const left = backlog + work - ready * scenario.muSat;
    const backlogOut = left <= ready * scenario.muSat * EPSILON ? 0 : left;
    minute.minute = m;
    minute.requests = workload.requests[m]!;
    minute.work = work;
    minute.ready = ready;
    minute.backlogIn = backlog;
    minute.backlogOut = backlogOut;
    feed.recordMinute(minute, curve);
    backlog = backlogOut;
    if (input.onProgress && (m + 1) % PROGRESS_EVERY === 0) input.onProgress(m + 1);
  }
  const toUsd = (usdHourMinutes: number) => usdHourMinutes / 60;
  const costUsd = toUsd(t.committed + t.onDemand + t.spot);
  const requests = workload.requests.reduce((a, b) => a + b, 0);
  return {
    name: strategy.name,
    costUsd,
    committedUsd: toUsd(t.committed),
    onDemandUsd: toUsd(t.onDemand),
    spotUsd: toUsd(t.spot),
    violationMinutes: t.violations,
    violationRatio: t.violations / n,
    costPer1kRequestsUsd: requests > 0 ? costUsd / (requests / 1000) : null,
    reclaimed: t.reclaimed,
    failedSpotLaunches: t.failed,
    scalingActions: t.actions,
    spotShare: t.runningMinutes > 0 ? t.spotMinutes / t.runningMinutes : 0,
    instanceHours: t.runningMinutes / 60,
    breakerTrips: controller?.breakerTrips ?? 0,
    ...(controller ? { mix: { reasonCounts: controller.reasonCounts, shifts: controller.shifts } } : {}),
  };
}
