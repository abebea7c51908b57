/**
 * The limiting steps applied after the raw recommendation, in this order: forecast floor,
 * step limits, min/max clamp (decide.ts applyLimits). Each returns the new capacity and the reason it left
 * (or null when it changed nothing), so the decision explains every step that shaped it. Also
 * the window of past recommendations that stabilization and breach sizing read.
 */
import type { Damping, Scaling } from '../policy/schema.ts';
import type { ReasonCode } from './types.ts';

export interface Limited {
  capacity: number;
  reason: ReasonCode | null;
}

/**
 * Step limits per period. Up: max(stepUp.instances, ceil(current x stepUp.percent / 100)).
 * Down: max(stepDown.instances, floor(current x stepDown.percent / 100)). The larger of the
 * two limits wins, as in Kubernetes HPA's default selectPolicy: Max. Worked example: current
 * 10, stepUp { instances: 4, percent: 100 } allows +10; stepDown { instances: 1, percent: 20 }
 * allows -2 (pinned by tests/engine/limits.test.ts).
 */
export function stepLimit(current: number, desired: number, damping: Damping): Limited {
  if (desired > current) {
    const up = Math.max(damping.stepUp.instances, Math.ceil((current * damping.stepUp.percent) / 100));
    return desired - current > up
      ? { capacity: current + up, reason: 'StepLimitUp' }
      : { capacity: desired, reason: null };
  }
  if (desired < current) {
    const down = Math.max(damping.stepDown.instances, Math.floor((current * damping.stepDown.percent) / 100));
    return current - desired > down
      ? { capacity: current - down, reason: 'StepLimitDown' }
      : { capacity: desired, reason: null };
  }
  return { capacity: desired, reason: null };
}

/** Min and max always win: they are the operator's hard bounds. */
export function clamp(desired: number, scaling: Scaling): Limited {
  if (desired < scaling.minCapacity) return { capacity: scaling.minCapacity, reason: 'ClampedToMin' };
  if (desired > scaling.maxCapacity) return { capacity: scaling.maxCapacity, reason: 'ClampedToMax' };
  return { capacity: desired, reason: null };
}

/**
 * Recommendations inside the window that ends now, plus this period's. Oldest first. The window
 * is the longer of the scale-in stabilization window and the scale-out confirmation (N periods),
 * so both stabilized() and breachPeak() find what they read.
 */
export function windowed(
  history: readonly (readonly [number, number])[],
  now: number,
  windowSeconds: number,
  current: number,
): [number, number][] {
  const from = now - windowSeconds * 1000;
  const kept: [number, number][] = [];
  // The entries themselves, not copies: no one changes a recommendation once it is made, and
  // this runs every evaluation (every simulated minute of a backtest).
  for (const entry of history) if (entry[0] > from && entry[0] < now) kept.push(entry as [number, number]);
  kept.push([now, current]);
  return kept;
}

function highestSince(window: readonly (readonly [number, number])[], from: number): number {
  let highest = 0;
  for (const [at, capacity] of window) if (at > from && capacity > highest) highest = capacity;
  return highest;
}

/** Scale-in goes no lower than the highest recommendation since `from` (the stabilization window). */
export const stabilized = (window: readonly (readonly [number, number])[], from: number): number =>
  highestSince(window, from);

/**
 * The highest recommendation of the last `periods` periods, this one included: what a breach
 * confirmed over those periods asked for at its peak. A period's entry is taken when it is less
 * than `periods - 0.5` periods old, so a tick a few seconds late still counts as its period.
 * Worked example: N = 2, invocations at 1.41x then 1.33x the target on 28 instances propose 40
 * then 38; the confirmed scale-out goes to 40 (pinned by tests/engine/tracking.test.ts).
 */
export const breachPeak = (
  window: readonly (readonly [number, number])[],
  now: number,
  periodMs: number,
  periods: number,
): number => highestSince(window, now - (periods - 0.5) * periodMs);
