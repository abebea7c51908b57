/**
 * stepFailover(): one period of one failover group. Pure: the same (state, observation, group,
 * now) always gives the same next state, actions and decision; the shell stores the state and
 * executes the actions (a Step Functions shell in AWS, the simulator in the backtest).
 *
 *   steady -> prescaling -> shifting (steps, checks, rollback) -> failed-over
 *                  |  \-> halted (StandbyCapacityUnavailable; traffic stays) -> shifting
 *   failed-over -> prescaling (failback) -> shifting (the steps in reverse) -> steady
 *
 * Invariants enforced here, not only tested (tests/failover/properties.test.ts):
 *  - traffic has somewhere to go: weights are whole percents summing to 100 (`routable`), and a
 *    transition that would break that is refused (InvariantHeld);
 *  - no failover starts, and no step moves traffic further, while no region is healthy or idle
 *    (AllRegionsUnhealthy: our blind spot, not an outage); a step moves traffic only onto regions
 *    that are healthy or idle and whose ready capacity serves the step (`stepServed`);
 *  - at most one failover starts per shift.dwellMinutes (FailoverDwell).
 *
 * Pacing (docs/failover.md, "Phases"): a step is taken as soon as the receiving regions' ready
 * capacity serves it (its share of the prescale need), not when the whole need is ready; when the
 * regions traffic leaves serve nothing (`servesNothing`), the checks are skipped and the move goes
 * straight to the largest step the receivers can serve; while no traffic has moved, the prescale
 * grows with the failed region's demand (`resized`), never shrinks.
 */
import { neededCapacity } from './demand.ts';
import { baseWeights, type ResolvedGroup } from './group.ts';
import { assessRegion, servesNothing } from './health.ts';
import { describeFailover } from './message.ts';
import { routingAction } from './routing.ts';
import type {
  FailoverAction,
  FailoverObservation,
  FailoverReasonCode,
  FailoverState,
  FailoverStepResult,
  Phase,
  RegionHealth,
  Weights,
} from './types.ts';
import { apportion, routable, sameWeights, shiftedWeights } from './weights.ts';

const MINUTE = 60_000;

export function initialFailoverState(group: ResolvedGroup): FailoverState {
  return {
    version: 1,
    phase: 'steady',
    health: {},
    weights: baseWeights(group),
    direction: null,
    source: null,
    shares: null,
    step: -1,
    phaseSince: null,
    checkSince: null,
    needed: null,
    lastFailoverAt: null,
    failedOverAt: null,
  };
}

/** What one phase handler decides: the next state, reasons and any non-routing actions. */
export interface Move {
  state: FailoverState;
  reasons: FailoverReasonCode[];
  actions: FailoverAction[];
}

export interface Ctx {
  group: ResolvedGroup;
  obs: FailoverObservation;
  now: number;
  health: Record<string, RegionHealth>;
  base: Weights;
}

/** Traffic may move onto a region that is healthy, or idle (no traffic, nothing wrong seen). */
const eligible = (h: RegionHealth | undefined): boolean => h?.status === 'healthy' || h?.status === 'idle';
const noEligibleRegion = (c: Ctx) => Object.values(c.health).every((h) => !eligible(h));

/** Weights with step `step` of the current move applied (-1: the move not begun). */
export function weightsAtStep(c: Ctx, s: FailoverState, step: number): Weights {
  if (s.source === null || s.shares === null) return c.base;
  const steps = c.group.shift.stepsPercent;
  const at = step < 0 ? 0 : (steps[step] ?? 100);
  const moved = s.direction === 'failback' ? 100 - at : at;
  return shiftedWeights(c.base, s.source, s.shares, moved);
}

/** Regions traffic is moving onto in the current move. */
export function gainingRegions(s: FailoverState): string[] {
  if (s.source === null) return [];
  return s.direction === 'failback' ? [s.source] : Object.keys(s.shares ?? {});
}

/** Regions traffic is moving off in the current move. */
const losingRegions = (s: FailoverState): string[] =>
  s.source === null ? [] : s.direction === 'failback' ? Object.keys(s.shares ?? {}) : [s.source];

/** Every region traffic leaves serves nothing: steps and checks would only delay the move. */
const sourceDark = (c: Ctx, s: FailoverState): boolean => {
  const losing = losingRegions(s);
  return losing.length > 0 && losing.every((r) => servesNothing(c.obs.regions[r], c.group.health, c.now));
};

/**
 * Instances a gaining target needs ready to serve step `step`: its prescale need scaled by its
 * weight at that step over its final weight, rounded up. Need 54 (0 -> 100 %): 10 % needs 6,
 * 50 % needs 27. tests/failover/phases.test.ts ("a warm floor that serves the first step").
 */
export function stepNeed(c: Ctx, s: FailoverState, targetId: string, region: string, step: number): number {
  const need = s.needed?.[targetId] ?? 0;
  const final = weightsAtStep(c, s, c.group.shift.stepsPercent.length - 1)[region] ?? 0;
  const at = weightsAtStep(c, s, step)[region] ?? 0;
  // 1e-9: 54 x 50 / 100 must stay 27, not round up on float noise.
  return final > 0 ? Math.ceil((need * at) / final - 1e-9) : 0;
}

/** Every gaining region is healthy or idle and has the instances ready that step `step` needs. */
function stepServed(c: Ctx, s: FailoverState, step: number): boolean {
  return c.group.members
    .filter((m) => gainingRegions(s).includes(m.region))
    .every((m) => {
      const ready = c.obs.regions[m.region]?.capacity?.ready;
      return (
        ready !== undefined &&
        ready >= stepNeed(c, s, m.targetId, m.region, step) &&
        eligible(c.health[m.region])
      );
    });
}

/**
 * The step to take now, or null: the next one when its capacity is ready; when the regions traffic
 * leaves serve nothing, the largest one the ready capacity serves (all of it when it can).
 */
function nextStep(c: Ctx, s: FailoverState, dark: boolean): number | null {
  const last = c.group.shift.stepsPercent.length - 1;
  if (!dark) return s.step < last && stepServed(c, s, s.step + 1) ? s.step + 1 : null;
  for (let k = last; k > s.step; k--) if (stepServed(c, s, k)) return k;
  return null;
}

/** Why a step was taken beyond ShiftStep: a dark source, an idle receiver, capacity back after a halt. */
function stepReasons(c: Ctx, s: FailoverState, dark: boolean): FailoverReasonCode[] {
  const out: FailoverReasonCode[] = [];
  if (dark) out.push('SourceServesNothing');
  if (gainingRegions(s).some((r) => c.health[r]?.status === 'idle')) out.push('ReceiverIdle');
  if (s.phase === 'halted') out.push('StandbyCapacityRecovered');
  return out;
}

function steady(c: Ctx, s: FailoverState): Move {
  const hold = (...reasons: FailoverReasonCode[]): Move => ({ state: s, reasons, actions: [] });
  const failed = c.group.members
    .filter((m) => m.baseWeight > 0 && c.health[m.region]?.status === 'failed')
    .sort((a, b) => b.baseWeight - a.baseWeight)[0];
  if (!failed) {
    const standbyDown = c.group.members.some((m) => m.baseWeight === 0 && !eligible(c.health[m.region]));
    return hold('Steady', ...(standbyDown ? (['StandbyUnhealthy'] as const) : []));
  }
  const receivers = c.group.members.filter((m) => m.region !== failed.region && eligible(c.health[m.region]));
  if (receivers.length === 0 || noEligibleRegion(c)) return hold('AllRegionsUnhealthy');
  if (s.lastFailoverAt !== null && c.now - s.lastFailoverAt < c.group.shift.dwellMinutes * MINUTE)
    return hold('FailoverDwell');
  const shares = apportion(100, Object.fromEntries(receivers.map((m) => [m.region, m.baseWeight])));
  const draft: FailoverState = { ...s, direction: 'failover', source: failed.region, shares, step: -1 };
  const final = weightsAtStep(c, draft, c.group.shift.stepsPercent.length - 1);
  return startMove(c, draft, [failed.region], Object.keys(shares), final, 'FailoverStarted', {
    lastFailoverAt: c.now,
  });
}

function startMove(
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
function resized(c: Ctx, s: FailoverState): { state: FailoverState; actions: FailoverAction[] } {
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

function prescaling(c: Ctx, prev: FailoverState): Move {
  const source = prev.source === null ? undefined : c.health[prev.source];
  if (prev.direction === 'failover' && source?.recovered)
    return { state: backToSteady(c, prev), reasons: ['SourceRecovered'], actions: [] };
  if (prev.direction === 'failback' && source?.status === 'failed')
    return {
      state: { ...prev, phase: 'failed-over', phaseSince: c.now, needed: null },
      reasons: ['FailbackAwaitingRecovery'],
      actions: [],
    };
  const grown = resized(c, prev);
  const s = grown.state;
  const also: FailoverReasonCode[] = grown.actions.length > 0 ? ['PrescaleResized'] : [];
  const hold = (...reasons: FailoverReasonCode[]): Move => ({
    state: s,
    reasons: [...reasons, ...also],
    actions: grown.actions,
  });
  const dark = sourceDark(c, s);
  const step = nextStep(c, s, dark);
  if (step !== null) {
    const move = applyStep(c, { ...s, phase: 'shifting', phaseSince: c.now }, step);
    move.reasons.push(...stepReasons(c, s, dark), ...also);
    move.actions.push(...grown.actions);
    return move;
  }
  if (noEligibleRegion(c)) return hold('AllRegionsUnhealthy');
  if (s.phase === 'halted') return hold('StandbyCapacityUnavailable');
  const timeout = c.group.shift.prescaleTimeoutMinutes * MINUTE;
  if (s.phaseSince !== null && c.now - s.phaseSince >= timeout) return halt(c, s, grown.actions, also);
  return hold('PrescaleWaiting');
}

/** The receivers cannot get the capacity a step needs in time: alarm once, traffic stays. */
function halt(c: Ctx, s: FailoverState, actions: FailoverAction[], also: FailoverReasonCode[] = []): Move {
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

function backToSteady(c: Ctx, s: FailoverState): FailoverState {
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
function applyStep(c: Ctx, s: FailoverState, step: number): Move {
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

function shifting(c: Ctx, s: FailoverState): Move {
  const hold = (state: FailoverState, ...reasons: FailoverReasonCode[]): Move => ({
    state,
    reasons,
    actions: [],
  });
  const gaining = gainingRegions(s).map((r) => c.health[r]);
  const blind = Object.values(c.health).every((h) => h.status === 'failed' || h.status === 'unknown');
  if (blind) return hold(s, 'AllRegionsUnhealthy');
  if (gaining.some((h) => h === undefined || h.verdict === 'breach' || h.status === 'failed')) {
    // A regression rolls back one step; at the start of the move there is nothing left to undo.
    if (s.step < 0) return hold({ ...s, checkSince: c.now }, 'ShiftCheckHolding');
    const step = s.step - 1;
    const back = {
      ...s,
      phase: 'shifting' as const,
      step,
      weights: weightsAtStep(c, s, step),
      checkSince: c.now,
    };
    return hold(back, 'ShiftRolledBack');
  }
  // Idle (a receiver rolled back to 0 %) has nothing to check; anything else must be fresh.
  if (gaining.some((h) => h?.verdict !== 'ok' && h?.verdict !== 'idle'))
    return hold({ ...s, checkSince: c.now }, 'ShiftCheckUnknown');
  const since = s.checkSince ?? c.now;
  // A source that serves nothing loses every percent left on it: no check time before the next step.
  const dark = sourceDark(c, s);
  const held = dark || c.now - since >= c.group.shift.checkMinutes * MINUTE;
  // Moving more traffic needs every gaining region healthy (a breach still in its window holds it).
  if (!held || gaining.some((h) => !eligible(h)))
    return hold({ ...s, checkSince: since }, 'ShiftCheckHolding');
  const step = nextStep(c, s, dark);
  if (step !== null) {
    const move = applyStep(c, { ...s, phase: 'shifting' }, step);
    move.reasons.push(...stepReasons(c, s, dark));
    return move;
  }
  // Checked, but the receivers' ready capacity does not serve the next step yet: wait, and alarm
  // once when it has not come prescaleTimeoutMinutes after the check clock started.
  const waiting = { ...s, checkSince: since };
  if (s.phase === 'halted') return hold(waiting, 'StandbyCapacityUnavailable');
  if (c.now - since >= c.group.shift.prescaleTimeoutMinutes * MINUTE) return halt(c, waiting, []);
  return hold(waiting, 'ShiftAwaitingCapacity');
}

function failedOver(c: Ctx, s: FailoverState): Move {
  const hold = (...reasons: FailoverReasonCode[]): Move => ({ state: s, reasons, actions: [] });
  const source = s.source === null ? undefined : c.health[s.source];
  if (!source?.recovered) return hold('FailbackAwaitingRecovery');
  if (s.failedOverAt !== null && c.now - s.failedOverAt < c.group.shift.dwellMinutes * MINUTE)
    return hold('FailbackDwell');
  const draft: FailoverState = { ...s, direction: 'failback', step: -1 };
  return startMove(c, draft, Object.keys(s.shares ?? {}), [s.source ?? ''], c.base, 'FailbackStarted', {});
}

const HANDLERS: Record<Phase, (c: Ctx, s: FailoverState) => Move> = {
  steady,
  prescaling,
  // Halted before any step: the prescale's wait; halted mid-shift: the shift's, with its checks.
  halted: (c, s) => (s.step < 0 ? prescaling(c, s) : shifting(c, s)),
  shifting,
  'failed-over': failedOver,
};

/** One period of one failover group: (state, observation, group, now) -> next state, actions, decision. */
export function stepFailover(
  prev: FailoverState,
  obs: FailoverObservation,
  group: ResolvedGroup,
  now: number,
): FailoverStepResult {
  const health: Record<string, RegionHealth> = {};
  const histories: FailoverState['health'] = {};
  for (const m of group.members) {
    // A region the weights last applied send nothing has no traffic signals to miss (idle, ./health.ts).
    const noTraffic = (prev.weights[m.region] ?? 0) === 0;
    const r = assessRegion(
      m.region,
      prev.health[m.region] ?? [],
      obs.regions[m.region],
      group.health,
      now,
      noTraffic,
    );
    health[m.region] = r.health;
    histories[m.region] = r.history;
  }
  const c: Ctx = { group, obs, now, health, base: baseWeights(group) };
  const current = { ...prev, health: histories };
  let move = HANDLERS[prev.phase](c, current);
  // The invariant guard: a move that would leave traffic nowhere (or not summing to 100) is refused.
  if (!routable(move.state.weights)) move = { state: current, reasons: ['InvariantHeld'], actions: [] };
  const actions = [...move.actions];
  if (!sameWeights(move.state.weights, prev.weights))
    actions.unshift(routingAction(group.routing.kind, group.id, move.state.weights, c.base));
  const message = describeFailover(c, move.state, move.reasons);
  return {
    state: move.state,
    actions,
    decision: {
      groupId: group.id,
      at: now,
      phase: move.state.phase,
      previousPhase: prev.phase,
      reasons: move.reasons,
      message,
      weights: move.state.weights,
      health,
    },
    floors: capacityFloors(group, move.state),
  };
}

/**
 * Floors by target id: warm floors of the members that serve nothing by default, and prescale needs
 * while traffic moves and once it has moved (failed-over, until failback starts). The floor must
 * outlast the last step: the receiving region's own decide() reads metrics a minute or two old,
 * from the partial steps, and would otherwise scale in under the full load it has just been given
 * (the failover backtest, NASA at the peak: 54 -> 27 instances one minute after FailedOver, then
 * 9 violation minutes; tests/failover/phases.test.ts pins the floor).
 */
export function capacityFloors(group: ResolvedGroup, s: FailoverState): Record<string, number> {
  const floors: Record<string, number> = {};
  for (const m of group.members) if (m.baseWeight === 0) floors[m.targetId] = m.warmFloor;
  const moving = s.phase === 'prescaling' || s.phase === 'halted' || s.phase === 'shifting';
  if (moving || (s.phase === 'failed-over' && s.direction === 'failover')) {
    for (const [id, n] of Object.entries(s.needed ?? {})) floors[id] = Math.max(floors[id] ?? 0, n);
  }
  return floors;
}
