/**
 * stepMix(): one evaluation of one target's capacity mix. Pure: the same (state, inputs, policy,
 * now) always gives the same next state, plan and decision; the shell stores the state.
 *
 * Damping, as for capacity (docs/capacity-mix.md, "What the planner does"):
 *  - dead band: a forecast whose p90 loss cover is within damping.deadBandPercent of the one
 *    the held plan was sized for (at least 1 instance) changes nothing;
 *  - dwell: a plan outside the band must be wanted for damping.dwellMinutes without a break;
 *  - change rate: at most one change per damping.minHoursBetweenChanges.
 * Three exemptions, applied at once as panic scales out at once: when the held plan no longer
 * serves the forecast (its capacity below the p90 peak or the floor, or below the loss cover
 * after losing its largest spot pool) and the wanted plan covers more (LossCoverRestored); when
 * the held plan has spot where there is none to be had, in a pool out of capacity or with the
 * breaker open (AvailabilityShift); and when it spread spot over zones the group no longer
 * runs in, or by type where the zones are now known (PoolsChanged).
 *
 * Invariants (tests/mix/properties.test.ts): capacity >= the committed base and minCapacity;
 * spot <= spot.maxPercent of capacity; capacity - largest spot pool >= the p90 loss cover unless
 * clamped to max or budget-capped; cost within the budget unless at the floor.
 */
import { maxOf } from '../arrays/extent.ts';
import { describeMix } from './message.ts';
import { mixFloor, plannedMix } from './optimize.ts';
import { parsePoolKey, poolUnavailable, zonesOfPools } from './pools.ts';
import { planLayout } from './shift.ts';
import {
  ALL_SPOT_AVAILABLE,
  listsSpot,
  type MixDemand,
  type MixInputs,
  type MixPlan,
  type MixPolicy,
  type MixReasonCode,
  type MixState,
  type MixStepResult,
  type SpotAvailability,
} from './types.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const initialMixState = (): MixState => ({
  version: 1,
  plan: null,
  lastChangeAt: null,
  pendingSince: null,
});

/** Demand over the horizon, rounded up (1e-9: 3.0000000001 from float noise stays 3); null when no point falls in it. */
export function mixDemand(inputs: MixInputs, p: MixPolicy, now: number): MixDemand | null {
  const points = inputs.forecast?.points ?? [];
  const horizonEnd = now + p.mix.horizonHours * HOUR;
  const inHorizon = points.filter((x) => x.at >= now && x.at <= horizonEnd);
  if (inHorizon.length === 0) return null;
  const coverEnd = horizonEnd + p.replacementLeadMinutes * MINUTE;
  const inCover = points.filter((x) => x.at >= now && x.at <= coverEnd);
  const up = (v: number) => Math.max(0, Math.ceil(v - 1e-9));
  return {
    p90Peak: up(maxOf(inHorizon.map((x) => x.p90))),
    p90LossCover: up(maxOf(inCover.map((x) => x.p90))),
    p50Mean: inHorizon.reduce((s, x) => s + x.p50, 0) / inHorizon.length,
  };
}

/** Instances the plan still serves after losing its largest spot pool. */
export const afterLoss = (plan: MixPlan): number => plan.capacity - plan.largestSpotPool;

/** The held plan no longer serves what the forecast asks: the peak, the floor or the loss cover. */
function uncovered(held: MixPlan, d: MixDemand, p: MixPolicy): boolean {
  const served = Math.min(d.p90Peak, p.maxCapacity);
  const cover = held.spot > 0 ? Math.min(d.p90LossCover, p.maxCapacity) : served;
  return held.capacity < mixFloor(p) || held.capacity < served || afterLoss(held) < cover;
}

/**
 * The forecast moved less than the dead band from the demand the held plan was sized for. On the
 * demand, not the plan: one instance less of p90 can remove an instance of spot from each pool
 * too (15 -> 14 in tests/mix/properties.test.ts moves capacity by 2), which is still noise.
 */
function withinDeadBand(held: MixPlan, d: MixDemand, p: MixPolicy): boolean {
  const band = Math.max(1, Math.floor((held.sizedFor * p.mix.damping.deadBandPercent) / 100));
  return Math.abs(d.p90LossCover - held.sizedFor) <= band;
}

/**
 * The held plan runs spot that cannot be had: the breaker is open, or one of its pools ran dry
 * (a pool it plans spot in, or, for a plan growing on spot past its capacity, one it lists).
 */
function spotGone(held: MixPlan, a: SpotAvailability): boolean {
  if (!listsSpot(held)) return false;
  if (a.breakerOpen) return true;
  const running =
    held.spot > 0
      ? Object.entries(held.spotByPool)
          .filter(([, n]) => n > 0)
          .map(([key]) => key)
      : planLayout(held).zones.flatMap((z) => z.pools);
  return running.some((key) => {
    const { instanceType, zone } = parsePoolKey(key);
    return poolUnavailable(a.unavailablePools, instanceType, zone);
  });
}

/**
 * The held plan spread spot over zones the policy no longer names (capacityMix.zones, or the
 * group's zones as the mix function read them): a zone the group left, whose pools the adapter
 * would refuse at every write, or a plan made by type before the zones were known, whose loss
 * cover was sized on a spread the group does not have. A zone the plan leaves out (its pools out
 * of capacity, or a zone the group joined) is not a change: spread over fewer zones the plan is
 * the more conservative, and the usual damping brings the zone in.
 */
function poolsChanged(held: MixPlan, p: MixPolicy): boolean {
  if (!listsSpot(held)) return false;
  const zones = p.mix.zones ?? [];
  const planned = zonesOfPools(held.pools ?? []);
  if (planned.length === 0) return zones.length > 0;
  return planned.some((z) => !zones.includes(z));
}

interface Outcome {
  reason: MixReasonCode;
  state: MixState;
  changed: boolean;
}

function damp(
  state: MixState,
  held: MixPlan,
  wanted: MixPlan,
  d: MixDemand,
  p: MixPolicy,
  now: number,
  availability: SpotAvailability,
): Outcome {
  const apply = (reason: MixReasonCode): Outcome => ({
    reason,
    changed: true,
    state: { version: 1, plan: wanted, lastChangeAt: now, pendingSince: null },
  });
  const hold = (reason: MixReasonCode, pendingSince: number | null): Outcome => ({
    reason,
    changed: false,
    state: { ...state, pendingSince },
  });
  if (spotGone(held, availability)) return apply('AvailabilityShift');
  if (poolsChanged(held, p)) return apply('PoolsChanged');
  if (uncovered(held, d, p) && afterLoss(wanted) > afterLoss(held)) return apply('LossCoverRestored');
  if (withinDeadBand(held, d, p)) return hold('WithinDeadBand', null);
  const since = state.pendingSince ?? now;
  if (now - since < p.mix.damping.dwellMinutes * MINUTE) return hold('DwellHold', since);
  const last = state.lastChangeAt;
  if (last !== null && now - last < p.mix.damping.minHoursBetweenChanges * HOUR)
    return hold('ChangeRateHold', since);
  return apply('MixPlanned');
}

export function stepMix(state: MixState, inputs: MixInputs, policy: MixPolicy, now: number): MixStepResult {
  const demand = mixDemand(inputs, policy, now);
  const finish = (reason: MixReasonCode, next: MixState, wanted: MixPlan | null, changed: boolean) => {
    const reasons: MixReasonCode[] = [reason, ...(next.plan?.shapedBy ?? [])];
    return {
      state: next,
      plan: next.plan,
      decision: {
        targetId: policy.targetId,
        at: now,
        reasons,
        message: describeMix(reasons, next.plan, wanted, demand, policy, next, now),
        demand,
        wanted,
        changed,
      },
    };
  };
  const availability = inputs.availability ?? ALL_SPOT_AVAILABLE;
  if (demand === null) {
    // Cannot size: keep what is in force (the dwell clock stops, it does not run on no data).
    if (state.plan !== null) return finish('ForecastMissing', { ...state, pendingSince: null }, null, false);
    // Nothing in force yet: the floor (committed base, minCapacity), the group growing past it
    // on spot at spot.maxPercent as under any plan with no spot in it (optimize.ts).
    const floor = plannedMix(policy, { p90Peak: 0, p90LossCover: 0, p50Mean: 0 }, availability);
    return finish(
      'ForecastMissing',
      { version: 1, plan: floor, lastChangeAt: now, pendingSince: null },
      floor,
      true,
    );
  }
  const wanted = plannedMix(policy, demand, availability);
  const held = state.plan;
  if (held === null)
    return finish(
      'MixPlanned',
      { version: 1, plan: wanted, lastChangeAt: now, pendingSince: null },
      wanted,
      true,
    );
  const out = damp(state, held, wanted, demand, policy, now, availability);
  return finish(out.reason, out.state, wanted, out.changed);
}
