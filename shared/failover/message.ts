/**
 * The one human sentence on every failover decision, built from its reason codes so code and
 * sentence agree: what traffic does now and why, with the numbers an on-call engineer needs.
 */
import type { Ctx } from './steps.ts';
import type { FailoverReasonCode, FailoverState, RegionHealth, Weights } from './types.ts';

const fmtWeights = (w: Weights): string =>
  Object.keys(w)
    .sort()
    .map((r) => `${r} ${w[r]} %`)
    .join(', ');

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function readiness(c: Ctx, s: FailoverState): string {
  return c.group.members
    .filter((m) => s.needed?.[m.targetId] !== undefined)
    .map((m) => {
      const ready = c.obs.regions[m.region]?.capacity?.ready;
      return `${m.targetId} in ${m.region} has ${ready ?? 'an unknown number of'} of ${s.needed?.[m.targetId]} instances ready`;
    })
    .join('; ');
}

const unhealthy = (c: Ctx): string =>
  Object.values(c.health)
    .map((h: RegionHealth) => `${h.region} ${h.status}`)
    .join(', ');

type Clause = (c: Ctx, s: FailoverState) => string;

const CLAUSES: Record<FailoverReasonCode, Clause> = {
  Steady: () => 'every serving region is healthy enough to keep its traffic',
  StandbyUnhealthy: (c) => `a standby is not healthy (${unhealthy(c)}), so a failover could not start now`,
  AllRegionsUnhealthy: (c) =>
    `no region to move traffic to is healthy (${unhealthy(c)}): that is more likely our own blind spot than an outage everywhere, so traffic stays`,
  FailoverDwell: (c, s) =>
    `a failover started ${Math.round((c.now - (s.lastFailoverAt ?? c.now)) / 60_000)} min ago, within the ${c.group.shift.dwellMinutes}-minute dwell, so no other may start`,
  FailoverStarted: (c, s) =>
    `${s.source} has failed (${c.health[s.source ?? '']?.breaches} of the last ${c.group.health.failWindowPeriods} periods breached); prescaling ${readinessTargets(c, s)} before moving traffic`,
  FailbackStarted: (c, s) =>
    `${s.source} has been healthy for ${c.group.health.recoverPeriods} periods in a row and the ${c.group.shift.dwellMinutes}-minute dwell is over; prescaling ${readinessTargets(c, s)} before moving traffic back`,
  DemandUnknown: () =>
    'no forecast or recent peak for the traffic that moves, so the prescale asks for maxCapacity',
  PrescaleClampedToMax: () => 'the demand needs more than maxCapacity, so the prescale stops at it',
  PrescaleWaiting: (c, s) =>
    `waiting for capacity (${readiness(c, s)}), up to ${c.group.shift.prescaleTimeoutMinutes} min`,
  StandbyCapacityUnavailable: (c, s) =>
    `the standby cannot get capacity (${readiness(c, s)}) within ${c.group.shift.prescaleTimeoutMinutes} min: the shift is stopped and traffic stays where it can be served`,
  StandbyCapacityRecovered: () => 'capacity arrived after the prescale timeout',
  PrescaleResized: (c, s) =>
    `${s.source}'s demand grew while no traffic had moved, so the prescale grows: ${readinessTargets(c, s)}`,
  ReceiverIdle: () =>
    'the receiving region had no traffic to be judged by (idle, its other signals within), so this step is its health check',
  SourceServesNothing: (_c, s) =>
    `${s.direction === 'failback' ? 'the regions traffic leaves serve' : `${s.source} serves`} nothing (no ready instance or every request failing), so the move skips its checks and goes to the largest step the ready capacity serves`,
  ShiftAwaitingCapacity: (c, s) =>
    `holding at ${fmtWeights(s.weights)}: the check passed, but the receiving regions' ready capacity does not serve the next step yet (${readiness(c, s)})`,
  ShiftStep: (c, s) => `step ${s.step + 1} of ${c.group.shift.stepsPercent.length}: ${fmtWeights(s.weights)}`,
  ShiftCheckHolding: (c, s) =>
    `holding at ${fmtWeights(s.weights)} until the receiving regions have been healthy for ${c.group.shift.checkMinutes} min`,
  ShiftCheckUnknown: (_c, s) =>
    `holding at ${fmtWeights(s.weights)}: the receiving regions have no fresh health data, so the check clock restarts`,
  ShiftRolledBack: (_c, s) =>
    `a receiving region regressed, so traffic rolls back one step to ${fmtWeights(s.weights)}`,
  FailedOver: (_c, s) => `failed over: ${fmtWeights(s.weights)}`,
  FailedBack: (_c, s) => `failed back: ${fmtWeights(s.weights)}`,
  FailbackDwell: (c, s) =>
    `${s.source} has recovered, but failback waits ${c.group.shift.dwellMinutes} min after the failover completed`,
  FailbackAwaitingRecovery: (c, s) =>
    `${s.source} has not recovered (${c.health[s.source ?? '']?.okStreak ?? 0} of ${plural(c.group.health.recoverPeriods, 'healthy period')} in a row)`,
  SourceRecovered: (_c, s) =>
    `${s.source ?? 'the failed region'} recovered before traffic moved, so the failover stops`,
  InvariantHeld: () =>
    'the planned weights would not route all traffic, so nothing changes (a bug: report it)',
};

function readinessTargets(c: Ctx, s: FailoverState): string {
  return c.group.members
    .filter((m) => s.needed?.[m.targetId] !== undefined)
    .map((m) => `${m.targetId} in ${m.region} to ${plural(s.needed?.[m.targetId] ?? 0, 'instance')}`)
    .join(', ');
}

export function describeFailover(c: Ctx, s: FailoverState, reasons: readonly FailoverReasonCode[]): string {
  return `${c.group.id} (${s.phase}): ${reasons.map((r) => CLAUSES[r](c, s)).join('; ')}.`;
}
