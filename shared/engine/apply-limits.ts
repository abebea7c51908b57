/**
 * The limits applied after the raw recommendation (decide.ts): the forecast floor and the burst
 * floor, the budget ceiling, the mix, committed and failover floors, the step limits, then
 * min/max (./limits.ts). Each leaves its reason code when it acts.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import { clamp, stepLimit } from './limits.ts';
import type { ReasonCode, SignalSnapshot } from './types.ts';

/** What the load and the forecast floor asked (after the budget ceiling), and the most the headroom may reach. */
export interface Asked {
  load: number;
  cap: number;
}

/**
 * Forecast floor, budget ceiling, mix plan floor, committed floor, failover floor, step limits,
 * then min/max: each leaves its reason when it acts. Without a budgetCeiling, a mixFloor and a
 * committedFloor the result is what it was before they existed (tests/engine/ceiling.test.ts).
 */
export function applyLimits(
  policy: TargetPolicy,
  snapshot: SignalSnapshot,
  current: number,
  proposed: number,
  reasons: ReasonCode[],
  asked?: Asked,
): number {
  let desired = proposed;
  let cap = policy.scaling.maxCapacity;
  const floor = snapshot.forecastFloor?.capacity;
  if (floor !== undefined && Number.isFinite(floor) && floor > desired) {
    desired = Math.ceil(floor);
    reasons.push('ForecastFloor');
    if (snapshot.forecastFloor?.fallback) reasons.push('ForecastFallback');
    const lead = snapshot.leadTime;
    if (lead && lead.minutes > lead.configuredMinutes) reasons.push('LeadTimeMeasured');
  }
  // The burst floor is headroom the error budget buys, like the forecast floor's: money caps it.
  const burst = snapshot.burstFloor?.capacity;
  if (burst !== undefined && Number.isFinite(burst) && burst > desired) {
    desired = Math.ceil(burst);
    reasons.push('BurstFloor');
  }
  // The budget caps scale-out (signals and the forecast floor), never below where the target is:
  // money stops growth, it does not take serving instances away. Worked example: current 8,
  // signals ask 14, the budget pays for 11 -> 11, BudgetCapped; current 12, ceiling 11 -> 12.
  // A ceiling at or above maxCapacity does not bind: the max clamp below names the limit.
  const ceiling = snapshot.budgetCeiling?.capacity;
  if (ceiling !== undefined && Number.isFinite(ceiling) && ceiling < policy.scaling.maxCapacity) {
    cap = Math.max(current, Math.floor(ceiling));
    if (desired > cap) {
      desired = cap;
      reasons.push('BudgetCapped');
    }
  }
  const load = desired;
  // The floors below win over the ceiling: capacity already planned is not given up for money.
  const planned = snapshot.mixFloor?.capacity;
  if (planned !== undefined && Number.isFinite(planned) && planned > desired) {
    desired = Math.ceil(planned);
    reasons.push('MixPlanFloor');
  }
  // The committed base is billed whether it runs or not: never run fewer than it.
  const paid = snapshot.committedFloor?.capacity;
  if (paid !== undefined && Number.isFinite(paid) && paid > desired) {
    desired = Math.ceil(paid);
    reasons.push('CommittedFloor');
  }
  // A failover group's floor: the standby's own scale-in must not undo a prescale or the warm floor.
  const held = snapshot.failoverFloor?.capacity;
  if (held !== undefined && Number.isFinite(held) && held > desired) {
    desired = Math.ceil(held);
    reasons.push('FailoverFloor');
  }
  const stepped = stepLimit(current, desired, policy.damping);
  if (stepped.reason) reasons.push(stepped.reason);
  const clamped = clamp(stepped.capacity, policy.scaling);
  if (clamped.reason) reasons.push(clamped.reason);
  if (clamped.capacity === 0 && current > 0) reasons.push('ScaleToZero');
  if (asked) {
    // What the load asked, as far as the step limits let the engine go this period.
    asked.load = Math.min(load, clamped.capacity);
    asked.cap = Math.min(cap, policy.scaling.maxCapacity);
  }
  return clamped.capacity;
}
