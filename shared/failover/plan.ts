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
import { baseWeights, type ResolvedGroup } from './group.ts';
import { assessRegion } from './health.ts';
import { describeFailover } from './message.ts';
import { routingAction } from './routing.ts';
import {
  type Ctx,
  eligible,
  gainingRegions,
  type Move,
  nextStep,
  noEligibleRegion,
  sourceDark,
  stepReasons,
  weightsAtStep,
} from './steps.ts';
import { applyStep, backToSteady, halt, resized, startMove } from './transitions.ts';
import type {
  FailoverObservation,
  FailoverReasonCode,
  FailoverState,
  FailoverStepResult,
  Phase,
  RegionHealth,
} from './types.ts';
import { apportion, routable, sameWeights } from './weights.ts';

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
