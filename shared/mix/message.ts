/** One sentence per mix decision, from its reasons and numbers (logged, and shown in reports). */
import { describePoolKey } from './pools.ts';
import type { MixDemand, MixPlan, MixPolicy, MixReasonCode, MixState } from './types.ts';

const usd = (v: number) => `${v.toFixed(2)} USD/h`;

export const describePlan = (plan: MixPlan): string => {
  const pools = Object.entries(plan.spotByPool)
    .filter(([, n]) => n > 0)
    .map(([key, n]) => `${n} ${describePoolKey(key)}`)
    .join(', ');
  return `${plan.capacity} instances: ${plan.onDemand} on-demand (${plan.committed} committed)${plan.spot > 0 ? `, ${plan.spot} spot (${pools})` : ''}, ${usd(plan.usdPerHour)}`;
};

const MODIFIER: Partial<Record<MixReasonCode, (p: MixPolicy) => string>> = {
  FloorHeld: (p) =>
    `held at the floor (committed ${p.mix.committed.instances}, minCapacity ${p.minCapacity})`,
  ClampedToMax: (p) => `clamped to maxCapacity ${p.maxCapacity}`,
  BudgetCapped: (p) =>
    `capped by the budget of ${usd(p.mix.maxUsdPerHour ?? 0)} (never below the committed base or minCapacity)`,
  OnDemandOnly: () => 'on-demand only (no spot allowed, or no pool within spot.maxInterruption)',
  SpotNotCheaper: () => 'on-demand only: spot with its loss cover costs more',
  PoolUnavailable: (p) =>
    `spot kept out of pools whose spot launches failed for lack of capacity in the last ${p.mix.interruptions.poolUnavailableMinutes} min`,
  PoolShareCapped: (p) =>
    `spot held so that one ${p.mix.spot?.lossDomain === 'zone' ? 'zone' : 'pool'} takes at most ${p.mix.spot?.maxPoolShare} % of the capacity (spot.maxPoolShare): spot share at most ${p.mix.spot?.maxPoolShare} % x the ${p.mix.spot?.lossDomain === 'zone' ? 'zones' : 'pools'} it is spread over`,
  SpotHedge: (p) =>
    `the loss cover and the growth past the plan held on spot over the other pools: the on-demand base raised towards the commitment, and above it as little on demand as keeps spot within ${p.mix.spot?.maxPercent} % up to maxCapacity ${p.maxCapacity} (cheaper than holding it partly on demand)`,
  SpotBreakerOpen: (p) =>
    `on-demand only: the spot breaker is open (more than ${p.mix.interruptions.breaker.reclaimedPercent} % of the spot fleet reclaimed within ${p.mix.interruptions.breaker.windowMinutes} min)`,
};

function primary(
  reason: MixReasonCode,
  plan: MixPlan | null,
  wanted: MixPlan | null,
  p: MixPolicy,
  state: MixState,
  now: number,
): string {
  const w = wanted ? describePlan(wanted) : '';
  const held = plan ? describePlan(plan) : 'no plan yet';
  const hours = p.mix.damping.minHoursBetweenChanges;
  switch (reason) {
    case 'MixPlanned':
      return `Planned ${held}`;
    case 'LossCoverRestored':
      return `Planned ${held} at once: the held plan no longer served the p90 forecast after losing its largest spot pool`;
    case 'AvailabilityShift':
      return `Planned ${held} at once: the held plan ran spot that cannot be had now`;
    case 'PoolsChanged':
      return `Planned ${held} at once: the held plan spread spot over zones the group no longer runs in, or by type before its zones were known`;
    case 'WithinDeadBand':
      return `Kept ${held}: the wanted ${w} is within the ${p.mix.damping.deadBandPercent} % dead band`;
    case 'DwellHold':
      return `Kept ${held}: ${w} wanted for ${Math.round((now - (state.pendingSince ?? now)) / 60_000)} of ${p.mix.damping.dwellMinutes} min`;
    case 'ChangeRateHold':
      return `Kept ${held}: ${w} waits, at most one change per ${hours} h`;
    case 'ForecastMissing':
      return wanted
        ? `Planned ${held} at the floor: no forecast point within the next ${p.mix.horizonHours} h yet, and nothing in force; past it the group grows as the plan's MixedInstancesPolicy says`
        : `Kept ${held}: no forecast point within the next ${p.mix.horizonHours} h`;
    default:
      return held;
  }
}

export function describeMix(
  reasons: readonly MixReasonCode[],
  plan: MixPlan | null,
  wanted: MixPlan | null,
  demand: MixDemand | null,
  p: MixPolicy,
  state: MixState,
  now: number,
): string {
  const [first = 'ForecastMissing', ...rest] = reasons;
  const parts = [primary(first, plan, wanted, p, state, now)];
  for (const r of rest) {
    const m = MODIFIER[r];
    if (m) parts.push(m(p));
  }
  const sized = demand
    ? ` (p90 peak ${demand.p90Peak}, ${demand.p90LossCover} with the lead time; p50 mean ${demand.p50Mean.toFixed(1)})`
    : '';
  return `${parts.join('; ')}${sized}.`;
}
