/**
 * Hysteresis over time: consecutive-period breach counters and the panic window. Both take the
 * previous state and `now`, so they are pure.
 */
import type { Panic } from '../policy/schema.ts';
import type { EngineState } from './types.ts';

/** An evaluation this soon after the last one (< 45 s of a 60 s period) is an extra look within the same period. */
const SAME_PERIOD_FRACTION = 0.75;
/** Breach streaks survive one missed evaluation (2 periods apart), not two (3 apart): "consecutive" means consecutive. */
const CONTINUITY_PERIODS = 2.5;

export interface Streaks {
  outStreak: number;
  inStreak: number;
  panicStreak: number;
  /** Whether this evaluation counted as a new period (false for an extra look within one). */
  counted: boolean;
}

/** What this period looked like, for the counters. */
export interface PeriodLook {
  high: boolean;
  low: boolean;
  panic: boolean;
}

/**
 * Advances the consecutive-period counters. An extra evaluation within the same period does
 * not advance them, but a condition that stopped holding still resets its counter.
 */
export function countStreaks(state: EngineState, periodMs: number, now: number, look: PeriodLook): Streaks {
  const elapsed = state.lastEvaluatedAt === null ? Number.POSITIVE_INFINITY : now - state.lastEvaluatedAt;
  if (elapsed < periodMs * SAME_PERIOD_FRACTION) {
    return {
      outStreak: look.high ? state.outStreak : 0,
      inStreak: look.low ? state.inStreak : 0,
      panicStreak: look.panic ? state.panicStreak : 0,
      counted: false,
    };
  }
  const carry = elapsed <= periodMs * CONTINUITY_PERIODS;
  const next = (holds: boolean, streak: number) => (holds ? (carry ? streak : 0) + 1 : 0);
  return {
    outStreak: next(look.high, state.outStreak),
    inStreak: next(look.low, state.inStreak),
    panicStreak: next(look.panic, state.panicStreak),
    counted: true,
  };
}

export interface PanicWindow {
  /** Panic fires this period: scale out at once. */
  now: boolean;
  /** Scale-in is blocked until then (epoch ms), or null. */
  until: number | null;
  /** Whether now is inside the window. */
  active: boolean;
}

/**
 * Panic fires after `panic.periods` consecutive periods at or above the threshold, and blocks
 * scale-in until the signal has stayed below the threshold for stableWindowSeconds. Inside the
 * window any period at the threshold restarts the calm clock, even one short of
 * `panic.periods`: with periods 2 and a 600 s window, a panic at 12:01 and one period at 2x
 * at 12:06 keep scale-in blocked until 12:16 (pinned by tests/engine/panic.test.ts).
 */
export function panicWindow(
  state: EngineState,
  panic: Panic,
  atThreshold: boolean,
  panicStreak: number,
  now: number,
): PanicWindow {
  const fires = atThreshold && panicStreak >= panic.periods;
  const wasActive = state.panicUntil !== null && now < state.panicUntil;
  const until =
    fires || (atThreshold && wasActive) ? now + panic.stableWindowSeconds * 1000 : state.panicUntil;
  return { now: fires, until, active: until !== null && now < until };
}
