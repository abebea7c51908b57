/**
 * The transitions the phase handlers (./plan.ts) take: a move started with its prescale, the
 * prescale grown before traffic moves, a halt with its alarm, a step applied, and the way back
 * to steady. Pure.
 */
import { neededCapacity } from './demand.ts';
import { describeFailover } from './message.ts';
import { type Ctx, gainingRegions, type Move, weightsAtStep } from './steps.ts';
import type { FailoverAction, FailoverReasonCode, FailoverState, Weights } from './types.ts';

export function startMove(
  c: Ctx,
  draft: FailoverState,
  senders: string[],
  gaining: string[],
  final: Weights,
  reason: FailoverReasonCode,
  extra: Partial<FailoverState>,
): Move {
  const need = neededCapacity(c.group, c.obs, senders, gaining, final);
  const actions: FailoverAction[] = c.group.members
    .filter((m) => need.byTarget[m.targetId] !== undefined)
    .map((m) => ({
      kind: 'prescale',
      groupId: c.group.id,
      targetId: m.targetId,
      region: m.region,
      desired: need.byTarget[m.targetId] ?? m.maxCapacity,
    }));
  const reasons: FailoverReasonCode[] = [reason];
  if (need.unknown) reasons.push('DemandUnknown');
  if (need.clamped) reasons.push('PrescaleClampedToMax');
  return {
    state: {
      ...draft,
      ...extra,
      phase: 'prescaling',
      phaseSince: c.now,
      checkSince: null,
      needed: need.byTarget,
    },
    reasons,
    actions,
  };
}

/**
 * Re-sizes the prescale before any traffic has moved (failover, every receiver a standby): the
 * failed region's demand figure is a recent peak, and a burst still growing outruns a prescale
 * sized once (Twitter at the peak, docs/failover.md). Only upward, only with a demand figure, and
 * on the demand of the regions that serve (a standby's figure would be its own prescale).
 */
export function resized(c: Ctx, s: FailoverState): { state: FailoverState; actions: FailoverAction[] } {
  const gaining = gainingRegions(s);
  const standbys = c.group.members.every((m) => !gaining.includes(m.region) || m.baseWeight === 0);
  if (s.direction !== 'failover' || s.step >= 0 || s.source === null || !standbys)
    return { state: s, actions: [] };
  const final = weightsAtStep(c, s, c.group.shift.stepsPercent.length - 1);
  const need = neededCapacity(c.group, c.obs, [s.source], gaining, final, gaining);
  if (need.unknown) return { state: s, actions: [] };
  const needed = { ...(s.needed ?? {}) };
  const actions: FailoverAction[] = [];
  for (const m of c.group.members) {
    const want = need.byTarget[m.targetId];
    if (want === undefined || want <= (needed[m.targetId] ?? 0)) continue;
    needed[m.targetId] = want;
    actions.push({
      kind: 'prescale',
      groupId: c.group.id,
      targetId: m.targetId,
      region: m.region,
      desired: want,
    });
  }
  return actions.length === 0 ? { state: s, actions } : { state: { ...s, needed }, actions };
}

/** The receivers cannot get the capacity a step needs in time: alarm once, traffic stays. */
export function halt(
  c: Ctx,
  s: FailoverState,
  actions: FailoverAction[],
  also: FailoverReasonCode[] = [],
): Move {
  const halted: FailoverState = { ...s, phase: 'halted', phaseSince: c.now };
  const reasons: FailoverReasonCode[] = ['StandbyCapacityUnavailable', ...also];
  const message = describeFailover(c, halted, reasons);
  return {
    state: halted,
    reasons,
    actions: [
      ...actions,
      { kind: 'alarm', groupId: c.group.id, code: 'StandbyCapacityUnavailable', message },
    ],
  };
}

export function backToSteady(c: Ctx, s: FailoverState): FailoverState {
  return {
    ...s,
    phase: 'steady',
    weights: c.base,
    direction: null,
    source: null,
    shares: null,
    step: -1,
    phaseSince: c.now,
    checkSince: null,
    needed: null,
    failedOverAt: s.direction === 'failback' ? null : s.failedOverAt,
  };
}

/** Applies step `step` of the current move; the last step completes it. */
export function applyStep(c: Ctx, s: FailoverState, step: number): Move {
  const hold = (state: FailoverState, reason: FailoverReasonCode): Move => ({
    state,
    reasons: [reason],
    actions: [],
  });
  const next: FailoverState = { ...s, step, weights: weightsAtStep(c, s, step), checkSince: c.now };
  if (step < c.group.shift.stepsPercent.length - 1) return hold(next, 'ShiftStep');
  if (s.direction === 'failback') return hold(backToSteady(c, s), 'FailedBack');
  // `needed` stays: the receiving regions keep their prescale floor while failed over (capacityFloors).
  return hold({ ...next, phase: 'failed-over', phaseSince: c.now, failedOverAt: c.now }, 'FailedOver');
}
