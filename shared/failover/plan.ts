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
 *  - no failover starts, and no step moves traffic further, while no region is healthy
 *    (AllRegionsUnhealthy: our blind spot, not an outage);
 *  - at most one failover starts per shift.dwellMinutes (FailoverDwell).
 */
import { neededCapacity } from './demand.ts';
import { baseWeights, type ResolvedGroup } from './group.ts';
import { assessRegion } from './health.ts';
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

const noHealthyRegion = (c: Ctx) => Object.values(c.health).every((h) => h.status !== 'healthy');

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

function steady(c: Ctx, s: FailoverState): Move {
  const hold = (...reasons: FailoverReasonCode[]): Move => ({ state: s, reasons, actions: [] });
  const failed = c.group.members
    .filter((m) => m.baseWeight > 0 && c.health[m.region]?.status === 'failed')
    .sort((a, b) => b.baseWeight - a.baseWeight)[0];
  if (!failed) {
    const standbyDown = c.group.members.some(
      (m) => m.baseWeight === 0 && c.health[m.region]?.status !== 'healthy',
    );
    return hold('Steady', ...(standbyDown ? (['StandbyUnhealthy'] as const) : []));
  }
  const receivers = c.group.members.filter(
    (m) => m.region !== failed.region && c.health[m.region]?.status === 'healthy',
  );
  if (receivers.length === 0 || noHealthyRegion(c)) return hold('AllRegionsUnhealthy');
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

/** Gaining regions have `needed` instances ready and are healthy. */
function gainingReady(c: Ctx, s: FailoverState): boolean {
  return c.group.members
    .filter((m) => gainingRegions(s).includes(m.region))
    .every((m) => {
      const ready = c.obs.regions[m.region]?.capacity?.ready;
      const need = s.needed?.[m.targetId] ?? 0;
      return ready !== undefined && ready >= need && c.health[m.region]?.status === 'healthy';
    });
}

function prescaling(c: Ctx, s: FailoverState): Move {
  const hold = (...reasons: FailoverReasonCode[]): Move => ({ state: s, reasons, actions: [] });
  const source = s.source === null ? undefined : c.health[s.source];
  if (s.direction === 'failover' && source?.recovered)
    return { state: backToSteady(c, s), reasons: ['SourceRecovered'], actions: [] };
  if (s.direction === 'failback' && source?.status === 'failed')
    return {
      state: { ...s, phase: 'failed-over', phaseSince: c.now, needed: null },
      reasons: ['FailbackAwaitingRecovery'],
      actions: [],
    };
  if (gainingReady(c, s)) {
    const move = applyStep(c, { ...s, phase: 'shifting', phaseSince: c.now }, 0);
    if (s.phase === 'halted') move.reasons.push('StandbyCapacityRecovered');
    return move;
  }
  if (noHealthyRegion(c)) return hold('AllRegionsUnhealthy');
  if (s.phase === 'halted') return hold('StandbyCapacityUnavailable');
  const timeout = c.group.shift.prescaleTimeoutMinutes * MINUTE;
  if (s.phaseSince !== null && c.now - s.phaseSince >= timeout) {
    const halted: FailoverState = { ...s, phase: 'halted', phaseSince: c.now };
    const reasons: FailoverReasonCode[] = ['StandbyCapacityUnavailable'];
    const message = describeFailover(c, halted, reasons);
    return {
      state: halted,
      reasons,
      actions: [{ kind: 'alarm', groupId: c.group.id, code: 'StandbyCapacityUnavailable', message }],
    };
  }
  return hold('PrescaleWaiting');
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
    return hold({ ...s, step, weights: weightsAtStep(c, s, step), checkSince: c.now }, 'ShiftRolledBack');
  }
  if (gaining.some((h) => h?.verdict !== 'ok')) return hold({ ...s, checkSince: c.now }, 'ShiftCheckUnknown');
  const since = s.checkSince ?? c.now;
  const held = c.now - since >= c.group.shift.checkMinutes * MINUTE;
  // Moving more traffic needs every gaining region healthy (a breach still in its window holds it).
  if (!held || gaining.some((h) => h?.status !== 'healthy'))
    return hold({ ...s, checkSince: since }, 'ShiftCheckHolding');
  return applyStep(c, s, s.step + 1);
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
  halted: prescaling,
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
    const r = assessRegion(m.region, prev.health[m.region] ?? [], obs.regions[m.region], group.health, now);
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
