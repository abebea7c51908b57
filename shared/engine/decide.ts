/**
 * decide(): one period's capacity decision for one target. Pure: the same (state, snapshot,
 * policy, now) always gives the same decision and next state.
 *
 * Order of steps: assess signals -> count breaches (hysteresis) -> panic -> raw
 * recommendation -> breach counts, cooldowns and stabilization -> forecast floor -> zero floor
 * -> step limits -> min/max clamp. Each step that changes or holds the result leaves a reason.
 */
import type { TargetPolicy } from '../policy/schema.ts';
import { clamp, stabilized, stepLimit, windowed } from './limits.ts';
import { describeDecision } from './message.ts';
import { activationIdle, assessSignals } from './signals.ts';
import {
  type Action,
  type DecisionResult,
  type EngineState,
  initialState,
  type ReasonCode,
  type SignalAssessment,
  type SignalSnapshot,
} from './types.ts';

/** An evaluation this soon after the last one is an extra look within the same period. */
const SAME_PERIOD_FRACTION = 0.75;
/** Breach streaks survive one missed evaluation, not two: "consecutive" means consecutive. */
const CONTINUITY_PERIODS = 2.5;

interface Streaks {
  outStreak: number;
  inStreak: number;
  panicStreak: number;
  counted: boolean;
}

/** Advances the consecutive-period counters; an extra evaluation in the same period does not. */
function countStreaks(
  state: EngineState,
  periodMs: number,
  now: number,
  high: boolean,
  low: boolean,
  panic: boolean,
): Streaks {
  const elapsed = state.lastEvaluatedAt === null ? Number.POSITIVE_INFINITY : now - state.lastEvaluatedAt;
  if (elapsed < periodMs * SAME_PERIOD_FRACTION) {
    return {
      outStreak: high ? state.outStreak : 0,
      inStreak: low ? state.inStreak : 0,
      panicStreak: panic ? state.panicStreak : 0,
      counted: false,
    };
  }
  const carry = elapsed <= periodMs * CONTINUITY_PERIODS;
  const next = (holds: boolean, streak: number) => (holds ? (carry ? streak : 0) + 1 : 0);
  return {
    outStreak: next(high, state.outStreak),
    inStreak: next(low, state.inStreak),
    panicStreak: next(panic, state.panicStreak),
    counted: true,
  };
}

const maxProposal = (signals: readonly SignalAssessment[]): number | null => {
  let best: number | null = null;
  for (const s of signals) if (s.proposal !== null && (best === null || s.proposal > best)) best = s.proposal;
  return best;
};

interface Context {
  policy: TargetPolicy;
  state: EngineState;
  streaks: Streaks;
  now: number;
  current: number;
  panicNow: boolean;
  inPanicWindow: boolean;
}

/** Scale-out: the largest proposal of the breaching signals, once the breach has lasted N periods. */
function scaleOut(
  ctx: Context,
  highs: SignalAssessment[],
  proposal: number,
): { capacity: number; reason: ReasonCode } {
  const { policy, state, streaks, now, current } = ctx;
  const { damping } = policy;
  if (ctx.panicNow) return { capacity: proposal, reason: 'PanicScaleOut' };
  if (streaks.outStreak < damping.scaleOutBreaches)
    return { capacity: current, reason: 'ScaleOutAwaitingBreaches' };
  const inCooldown =
    state.lastScaleOutAt !== null && now < state.lastScaleOutAt + damping.scaleOutCooldownSeconds * 1000;
  // The documented exception: a scale-out at least as large as the one that started the cooldown.
  if (inCooldown && proposal - current < (state.lastScaleOutStep ?? 0)) {
    return { capacity: current, reason: 'ScaleOutCooldown' };
  }
  const byLoad = highs.some((s) => s.kind === 'load' && s.proposal === proposal);
  return { capacity: proposal, reason: byLoad ? 'ScaleOutBreach' : 'LatencyGuard' };
}

/** Scale-in: every signal agrees for M periods, no panic, no cooldown, down to the window's highest. */
function scaleIn(
  ctx: Context,
  window: [number, number][],
  proposal: number,
): { capacity: number; reasons: ReasonCode[] } {
  const { policy, state, streaks, now, current } = ctx;
  const { damping } = policy;
  if (ctx.inPanicWindow) return { capacity: current, reasons: ['PanicHold'] };
  if (streaks.inStreak < damping.scaleInBreaches)
    return { capacity: current, reasons: ['ScaleInAwaitingBreaches'] };
  if (state.lastScaleInAt !== null && now < state.lastScaleInAt + damping.scaleInCooldownSeconds * 1000) {
    return { capacity: current, reasons: ['ScaleInCooldown'] };
  }
  const floor = stabilized(window);
  if (floor >= current) return { capacity: current, reasons: ['ScaleInStabilized'] };
  return floor > proposal
    ? { capacity: floor, reasons: ['ScaleInBreach', 'ScaleInStabilized'] }
    : { capacity: floor, reasons: ['ScaleInBreach'] };
}

/** Why nothing moved when no signal breaches and not all agree to scale in. */
function holdReason(signals: SignalAssessment[], anyMissing: boolean): ReasonCode {
  const present = signals.filter((s) => s.status !== 'missing');
  if (anyMissing && present.every((s) => s.status === 'low')) return 'ScaleInBlockedByMissingData';
  if (present.some((s) => s.status === 'guarding') && present.every((s) => s.status !== 'within')) {
    return 'ScaleInBlockedByLatency';
  }
  return 'WithinBand';
}

export function decide(
  previous: EngineState | undefined,
  snapshot: SignalSnapshot,
  policy: TargetPolicy,
  now: number,
): DecisionResult {
  const state = previous ?? initialState();
  const { damping, panic } = policy;
  const current = snapshot.capacity.desired;
  const signals = current > 0 ? assessSignals(policy, snapshot, now) : [];
  const present = signals.filter((s) => s.status !== 'missing');
  const anyMissing = present.length < signals.length;
  const highs = signals.filter((s) => s.status === 'high');
  const agreeIn = signals.length > 0 && !anyMissing && signals.every((s) => s.status === 'low');
  const proportional = signals.filter((s) => s.kind === 'load');
  const inProposal = agreeIn ? maxProposal(proportional) : null;
  const panicSignal =
    panic.enabled && proportional.some((s) => s.ratio !== null && s.ratio >= panic.threshold);

  const periodMs = damping.periodSeconds * 1000;
  const streaks = countStreaks(state, periodMs, now, highs.length > 0, inProposal !== null, panicSignal);
  const panicNow = panicSignal && streaks.panicStreak >= panic.periods;
  const panicUntil = panicNow ? now + panic.stableWindowSeconds * 1000 : state.panicUntil;
  const inPanicWindow = panicUntil !== null && now < panicUntil;
  const ctx: Context = { policy, state, streaks, now, current, panicNow, inPanicWindow };

  const outProposal = maxProposal(highs);
  const raw = outProposal !== null && outProposal > current ? outProposal : (inProposal ?? current);
  const window = windowed(state.recommendations, now, damping.scaleInStabilizationSeconds, raw);

  let desired = current;
  const reasons: ReasonCode[] = [];
  if (current === 0) {
    const idle = activationIdle(policy, snapshot, now);
    if (idle === false) {
      desired = 1;
      reasons.push('ActivationFromZero');
    } else reasons.push(idle === null ? 'NoData' : 'IdleAtZero');
  } else if (present.length === 0) {
    reasons.push('NoData');
  } else if (outProposal !== null && outProposal > current) {
    const out = scaleOut(ctx, highs, outProposal);
    desired = out.capacity;
    reasons.push(out.reason);
  } else if (highs.length > 0) {
    reasons.push('CapacityPending');
  } else if (inProposal !== null && inProposal < current) {
    const inn = scaleIn(ctx, window, inProposal);
    desired = inn.capacity;
    reasons.push(...inn.reasons);
  } else {
    reasons.push(holdReason(signals, anyMissing));
  }
  if (anyMissing && present.length > 0) reasons.push('PartialData');

  desired = applyLimits(policy, snapshot, now, current, desired, reasons);
  const action: Action = desired > current ? 'scale-out' : desired < current ? 'scale-in' : 'hold';
  const nextState = advanceState(state, streaks, { now, current, desired, action, panicUntil, window });
  const decision = {
    targetId: policy.id,
    at: now,
    action,
    currentCapacity: current,
    desiredCapacity: desired,
    reasons,
    message: '',
    signals,
    panic: inPanicWindow,
  };
  decision.message = describeDecision(decision, policy);
  return { decision, state: nextState };
}

/** Forecast floor, zero floor, step limits, then min/max: each leaves its reason when it acts. */
function applyLimits(
  policy: TargetPolicy,
  snapshot: SignalSnapshot,
  now: number,
  current: number,
  proposed: number,
  reasons: ReasonCode[],
): number {
  let desired = proposed;
  const floor = snapshot.forecastFloor?.capacity;
  if (floor !== undefined && Number.isFinite(floor) && floor > desired) {
    desired = Math.ceil(floor);
    reasons.push('ForecastFloor');
  }
  if (desired === 0 && current > 0) {
    // Zero only when the activation total is known to be idle; missing data keeps one instance.
    if (policy.scaling.scaleToZero && activationIdle(policy, snapshot, now) === true)
      reasons.push('ScaleToZero');
    else desired = 1;
  }
  const stepped = stepLimit(current, desired, policy.damping);
  if (stepped.reason) reasons.push(stepped.reason);
  const clamped = clamp(stepped.capacity, policy.scaling);
  if (clamped.reason) reasons.push(clamped.reason);
  return clamped.capacity;
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
