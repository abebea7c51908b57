/**
 * What the failover planner sees of each simulated region at minute m, built as the AWS shell
 * would build a FailoverObservation. Readings come from the region's newest delivered minute
 * (the backtest's metric delay: minute m - 1 - delay), stamped with that minute's start:
 *   errorRatePercent  100 x requests that failed (sent to a region with no ready instance) /
 *                     requests sent there; 0 when none were sent (no request failed);
 *   p95LatencyMs      the backtest's latency curve plus the backlog's wait; absent with no
 *                     ready instance (nothing to measure);
 *   capacityErrors    1 in a minute the region could not start instances (its outage), else 0;
 * and, read live:
 *   heartbeat         the region's Governor beat at the start of every minute its control plane
 *                     ran; it stops at the outage and resumes after it;
 *   capacity          ready and ready + starting, absent while the region is down (its API is);
 *   demand            recentPeakInstances: the most requests sent to the region in one minute of
 *                     the last DEMAND_WINDOW_MINUTES delivered, over the requests per instance the
 *                     target plans at (what its own governor would hold for them).
 */
import type { FailoverObservation, RegionObservation } from '../../failover/types.ts';
import type { RegionSim } from './region.ts';

/** Minutes of delivered demand the prescale is sized on: the recent peak, as docs/failover.md says. */
export const DEMAND_WINDOW_MINUTES = 30;

const MINUTE = 60_000;

export function observeRegion(r: RegionSim, m: number, plannedPerInstance: number): RegionObservation {
  const now = m * MINUTE;
  const obs: RegionObservation = {};
  const d = r.feed.latest();
  if (d) {
    const j = d.minute;
    const sent = r.requests[j]!;
    const reading = (value: number) => ({ value, timestamp: d.timestamp });
    obs.errorRatePercent = reading(sent > 0 ? (100 * r.unserved[j]!) / sent : 0);
    if (Number.isFinite(d.p95LatencyMs)) obs.p95LatencyMs = reading(d.p95LatencyMs);
    obs.capacityErrors = reading(r.capacityErrors[j]!);
    let peak = 0;
    for (let i = Math.max(0, r.feed.count - DEMAND_WINDOW_MINUTES); i < r.feed.count; i++)
      peak = Math.max(peak, r.requests[i]!);
    obs.demand = { recentPeakInstances: peak / plannedPerInstance };
  }
  if (r.lastUp >= 0) obs.heartbeat = { lastBeatAt: r.lastUp * MINUTE, readAt: now };
  if (!r.down) obs.capacity = { desired: r.fleet.ready + r.fleet.pending, ready: r.fleet.ready };
  return obs;
}

export function observe(
  regions: readonly RegionSim[],
  m: number,
  plannedPerInstance: number,
): FailoverObservation {
  return {
    regions: Object.fromEntries(regions.map((r) => [r.region, observeRegion(r, m, plannedPerInstance)])),
  };
}
