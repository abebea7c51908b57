/**
 * decide(): one period's capacity decision for one target. Pure: the same (state, snapshot,
 * policy, now) always gives the same decision and next state.
 *
 * Order of steps: assess signals -> count breaches (hysteresis) -> panic -> raw
 * recommendation -> breach counts, breach peak, cooldowns and stabilization -> forecast floor ->
 * budget ceiling -> mix plan and failover floors -> step limits -> min/max clamp -> spot headroom
 * (./spot-headroom.ts: extra spot on top, the engine deciding for its own capacity). Each step
 * that changes or holds the result leaves a reason.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import { type Asked, applyLimits } from './apply-limits.ts';
import { type Assessed, assess } from './assess.ts';
import { breachPeak, clamp, stabilized, stepLimit, windowed } from './limits.ts';
import { describeDecision } from './message.ts';
import { activationIdle } from './signals.ts';
import { heldNow, ownView, paidFloor, withSpotHeadroom } from './spot-headroom.ts';
import { countStreaks, type PanicWindow, panicWindow, type Streaks } from './streaks.ts';
import {
  type Action,
  type Decision,
  type DecisionResult,
  type EngineState,
  initialState,
  type ReasonCode,
  type SignalSnapshot,
} from './types.ts';
import { writtenPanicStep, type YoungBurst, youngBurst } from './young-burst.ts';

interface Context {
  policy: TargetPolicy;
  state: EngineState;
  streaks: Streaks;
  panic: PanicWindow;
  /** A panic sized at the written targets (./young-burst.ts), or null. */
  young: YoungBurst | null;
  now: number;
  current: number;
}

interface Step {
  capacity: number;
  reasons: ReasonCode[];
}

/**
 * Scale-out: the largest breaching proposal, once the breach has lasted N periods, raised to the
 * highest recommendation of those N periods (`BreachPeak`): the load the breach confirmed
 * peaked somewhere in them, not necessarily in the newest, and sizing on the newest alone
 * under-provisions a ramp that dips in its last confirming minute for a whole cold start. Within
 * the scale-out cooldown only a step at least as large as the last one passes, counted after step
 * limits and clamps: after +5, a proposal of +10 cut to +4 by the step limit waits. A scale-in
 * ends the cooldown, as a scale-out ends the scale-in one: the instances it waited for are
 * known to be up, and a fleet woken from zero must not wait on a step from before it slept.
 */
function scaleOut(ctx: Context, a: Assessed, newest: number, window: [number, number][]): Step {
  const { policy, state, streaks, now, current } = ctx;
  const { damping } = policy;
  const periods = Math.min(streaks.outStreak, damping.scaleOutBreaches);
  const peak = breachPeak(window, now, damping.periodSeconds * 1000, periods);
  const proposal = Math.max(newest, peak);
  const sized = (reasons: ReasonCode[]): Step => ({
    capacity: proposal,
    reasons: proposal > newest ? [...reasons, 'BreachPeak'] : reasons,
  });
  if (ctx.panic.now) return ctx.young ? writtenPanicStep(ctx.young, current) : sized(['PanicScaleOut']);
  if (streaks.outStreak < damping.scaleOutBreaches)
    return { capacity: current, reasons: ['ScaleOutAwaitingBreaches'] };
  // A scale-out clears lastScaleInAt, so a non-null one is a scale-in after the last scale-out.
  const inCooldown =
    state.lastScaleOutAt !== null &&
    state.lastScaleInAt === null &&
    now < state.lastScaleOutAt + damping.scaleOutCooldownSeconds * 1000;
  if (inCooldown) {
    const step = clamp(stepLimit(current, proposal, damping).capacity, policy.scaling).capacity - current;
    if (step < (state.lastScaleOutStep ?? 0)) return { capacity: current, reasons: ['ScaleOutCooldown'] };
  }
  return sized([a.outByLoad ? 'ScaleOutBreach' : 'LatencyGuard']);
}

/** Scale-in: every signal agrees for M periods, no panic, no cooldown, down to the window's highest. */
function scaleIn(ctx: Context, window: [number, number][], proposal: number): Step {
  const { policy, state, streaks, now, current } = ctx;
  const { damping } = policy;
  if (ctx.panic.active) return { capacity: current, reasons: ['PanicHold'] };
  if (streaks.inStreak < damping.scaleInBreaches)
    return { capacity: current, reasons: ['ScaleInAwaitingBreaches'] };
  if (state.lastScaleInAt !== null && now < state.lastScaleInAt + damping.scaleInCooldownSeconds * 1000) {
    return { capacity: current, reasons: ['ScaleInCooldown'] };
  }
  const floor = stabilized(window, now - damping.scaleInStabilizationSeconds * 1000);
  if (floor >= current) return { capacity: current, reasons: ['ScaleInStabilized'] };
  return floor > proposal
    ? { capacity: floor, reasons: ['ScaleInBreach', 'ScaleInStabilized'] }
    : { capacity: floor, reasons: ['ScaleInBreach'] };
}

/** Why nothing moved when no signal breaches and not all agree to scale in. */
function holdReason(a: Assessed): ReasonCode {
  if (a.zeroNeedsData) return 'ScaleInBlockedByMissingData';
  const present = a.signals.filter((s) => s.status !== 'missing');
  if (a.anyMissing && present.every((s) => s.status === 'low')) return 'ScaleInBlockedByMissingData';
  if (present.some((s) => s.status === 'guarding') && present.every((s) => s.status !== 'within')) {
    return 'ScaleInBlockedByLatency';
  }
  return 'WithinBand';
}

/** The recommendation before the forecast floor, step limits and clamps. */
function recommend(ctx: Context, a: Assessed, snapshot: SignalSnapshot, window: [number, number][]): Step {
  const { policy, now, current } = ctx;
  if (current === 0) {
    const idle = activationIdle(policy, snapshot, now);
    if (idle === false) return { capacity: 1, reasons: ['ActivationFromZero'] };
    return { capacity: 0, reasons: [idle === null ? 'NoData' : 'IdleAtZero'] };
  }
  if (!a.anyPresent) return { capacity: current, reasons: ['NoData'] };
  if (a.outProposal !== null && a.outProposal > current) return scaleOut(ctx, a, a.outProposal, window);
  if (a.outProposal !== null) return { capacity: current, reasons: ['CapacityPending'] };
  if (a.inProposal !== null && a.inProposal < current) return scaleIn(ctx, window, a.inProposal);
  return { capacity: current, reasons: [holdReason(a)] };
}

/** How decide() is run: `sentence: false` leaves the message empty (describeDecision builds it later). */
export interface DecideOptions {
  sentence?: boolean;
}

export function decide(
  previous: EngineState | undefined,
  snapshot: SignalSnapshot,
  policy: TargetPolicy,
  now: number,
  options: DecideOptions = {},
): DecisionResult {
  const state = previous ?? initialState();
  // With spot headroom the engine decides for its own capacity (./spot-headroom.ts).
  const group = snapshot.capacity.desired;
  const held = heldNow(group, state.spotHeadroom);
  const current = group - held;
  const view = ownView(snapshot, held, current);
  const a = assess(policy, view, now);
  const look = { high: a.outProposal !== null, low: a.inProposal !== null, panic: a.atPanic };
  const streaks = countStreaks(state, policy.damping.periodSeconds * 1000, now, look);
  const panic = panicWindow(state, policy.panic, a.atPanic, streaks.panicStreak, now);
  const young = panic.now ? youngBurst(policy, view, a.signals, streaks.panicStreak) : null;
  const ctx: Context = { policy, state, streaks, panic, young, now, current };

  const raw = a.outProposal !== null && a.outProposal > current ? a.outProposal : (a.inProposal ?? current);
  const { damping } = policy;
  const keepSeconds = Math.max(
    damping.scaleInStabilizationSeconds,
    damping.scaleOutBreaches * damping.periodSeconds,
  );
  const window = windowed(state.recommendations, now, keepSeconds, raw);
  const { capacity, reasons } = recommend(ctx, a, view, window);
  if (a.anyMissing && a.anyPresent) reasons.push('PartialData');
  const asked: Asked | undefined = snapshot.spotHeadroom ? { load: 0, cap: 0 } : undefined;
  const own = applyLimits(policy, view, current, capacity, reasons, asked);
  const extra = asked
    ? withSpotHeadroom(snapshot.spotHeadroom!.instances, asked.load, paidFloor(view), own, asked.cap).extra
    : 0;
  if (extra > 0) reasons.push('SpotHeadroom');
  const desired = own + extra;

  const action: Action = desired > group ? 'scale-out' : desired < group ? 'scale-in' : 'hold';
  const decision: Decision = {
    targetId: policy.id,
    at: now,
    action,
    currentCapacity: group,
    desiredCapacity: desired,
    reasons,
    message: '',
    signals: a.signals,
    panic: panic.active,
  };
  // Set one by one in the record's key order (a spread per field was a tenth of a simulated minute).
  if (young && reasons.includes('PanicAtWrittenTargets')) decision.youngBurst = young;
  if (snapshot.leadTime) decision.leadTime = snapshot.leadTime;
  if (snapshot.forecastFloor) decision.floorKind = snapshot.forecastFloor.kind ?? 'forecast';
  if (snapshot.forecastFloor?.fallback) decision.floorFallback = snapshot.forecastFloor.fallback;
  if (snapshot.burstFloor) decision.burstFloor = snapshot.burstFloor;
  if (snapshot.failoverFloor) decision.failoverFloor = snapshot.failoverFloor;
  if (snapshot.mixFloor) decision.mixFloor = snapshot.mixFloor;
  if (snapshot.committedFloor) decision.committedFloor = snapshot.committedFloor;
  if (snapshot.budgetCeiling) decision.budgetCeiling = snapshot.budgetCeiling;
  if (snapshot.spotHeadroom)
    decision.spotHeadroom = { instances: snapshot.spotHeadroom.instances, held: extra };
  if (options.sentence !== false) decision.message = describeDecision(decision, policy);
  const ownAction: Action = own > current ? 'scale-out' : own < current ? 'scale-in' : 'hold';
  const outcome = { now, current, desired: own, action: ownAction, panicUntil: panic.until, window };
  const next = advanceState(state, streaks, outcome);
  // Only a state that held headroom carries the field (a delete on every state would slow V8's objects).
  if (extra > 0) next.spotHeadroom = { held: extra, own };
  else if (next.spotHeadroom !== undefined) delete next.spotHeadroom;
  return { decision, state: next };
}

interface Outcome {
  now: number;
  current: number;
  desired: number;
  action: Action;
  panicUntil: number | null;
  window: [number, number][];
}

function advanceState(state: EngineState, streaks: Streaks, o: Outcome): EngineState {
  const next: EngineState = {
    ...state,
    outStreak: streaks.outStreak,
    inStreak: streaks.inStreak,
    panicStreak: streaks.panicStreak,
    panicUntil: o.panicUntil !== null && o.panicUntil > o.now ? o.panicUntil : null,
    lastEvaluatedAt: streaks.counted ? o.now : state.lastEvaluatedAt,
    // An extra evaluation within a period replaces nothing: the period's entry stays the first.
    recommendations: streaks.counted ? o.window : o.window.slice(0, -1),
  };
  if (o.action === 'scale-out') {
    next.lastScaleOutAt = o.now;
    next.lastScaleOutTo = o.desired;
    next.lastScaleOutStep = o.desired - o.current;
    next.lastScaleInAt = null; // a scale-out ends the scale-in cooldown
  } else if (o.action === 'scale-in') {
    next.lastScaleInAt = o.now;
  }
  return next;
}
