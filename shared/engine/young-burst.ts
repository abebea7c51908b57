/**
 * A young burst under extra headroom. While the error budget burns, its control multiplies the
 * load targets by a factor below 1 (shared/slo/control.ts, shared/slo/headroom.ts): standing
 * room, so that the next burst lands on a fleet that can take it. A panic (load at the panic
 * threshold of those lowered targets) would size its scale-out on them too, and so answer a 4x
 * burst with the burst plus the factor's room on top, in capacity that serves a lead time later.
 *
 * For the first lead time of a panic (how long the load has been at the threshold, against the
 * floor's measured lead time, else the policy's leadTimeMinutes) the scale-out is sized at the
 * targets as written instead: what the burst needs at the load the operator signed off, not the
 * room the budget keeps for the next one. When the fleet already holds that, it holds
 * (`PanicAtWrittenTargets`), and the breach counts go on as for any breach. A burst that outlasts
 * the lead time is a level, and the panic is answered in full at the lowered targets. Latency
 * signals are the SLO itself: their proposals stand as they are.
 *
 * Measured (docs/slo.md, "A panic met at the written targets"): on Twitter, whose 4-8 minute
 * bursts are shorter than a cold start, the reactive answers arrived after the bursts they chased.
 * Pure.
 */
import { DEFAULT_LEAD_TIME_MINUTES } from '../policy/forecast-schema.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { basisOf, ceilCapacity } from './signals.ts';
import type { ReasonCode, SignalAssessment, SignalSnapshot } from './types.ts';

export interface YoungBurst {
  factor: number;
  /** How long the load has been at the panic threshold, in minutes. */
  minutes: number;
  leadMinutes: number;
  /** The capacity the breaching signals ask for at the written targets. */
  capacity: number;
}

/**
 * The panic's sizing at the written targets, or null when it is sized as usual: no factor below
 * 1, or a burst older than the lead time. `panicStreak` is the number of consecutive periods at
 * the threshold, this one included.
 */
export function youngBurst(
  policy: TargetPolicy,
  snapshot: SignalSnapshot,
  signals: readonly SignalAssessment[],
  panicStreak: number,
): YoungBurst | null {
  const factor = snapshot.headroomFactor;
  if (factor === undefined || !(factor > 0 && factor < 1)) return null;
  const leadMinutes =
    snapshot.leadTime?.minutes ?? policy.forecast?.leadTimeMinutes ?? DEFAULT_LEAD_TIME_MINUTES;
  const minutes = (panicStreak * policy.damping.periodSeconds) / 60;
  if (minutes > leadMinutes) return null;
  let capacity = 0;
  for (const s of signals) {
    if (s.status !== 'high' || s.proposal === null || s.ratio === null) continue;
    const asked =
      s.kind === 'load'
        ? ceilCapacity(basisOf(snapshot.readings[s.metric], snapshot) * s.ratio * factor)
        : s.proposal;
    if (asked > capacity) capacity = asked;
  }
  return { factor, minutes, leadMinutes, capacity };
}

/** The panic's step at the written targets: a scale-out to them, or a hold when the fleet holds them. */
export function writtenPanicStep(
  young: YoungBurst,
  current: number,
): { capacity: number; reasons: ReasonCode[] } {
  return young.capacity > current
    ? { capacity: young.capacity, reasons: ['PanicScaleOut', 'PanicAtWrittenTargets'] }
    : { capacity: current, reasons: ['PanicAtWrittenTargets'] };
}
