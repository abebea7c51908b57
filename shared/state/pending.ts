/**
 * The "pending" change a state item carries: a capacity change Governor started that the live
 * API may not show yet (a state machine execution takes seconds to call SageMaker). While
 * pending, the engine sees the requested capacity, so a second evaluation in the same minute
 * holds (CapacityPending) instead of asking again.
 */
import * as z from 'zod';
import type { TargetPolicy } from '../policy/schema.ts';

export const PendingSchema = z.object({
  decisionId: z.string().min(1),
  desiredCapacity: z.number().int().min(0),
  previousCapacity: z.number().int().min(0),
  /** Epoch ms the change was started. */
  at: z.number(),
});
export type Pending = z.infer<typeof PendingSchema>;

/**
 * How long a started change counts as pending: three periods, at least 180 s. A state machine
 * applies a change within seconds unless the endpoint is busy; after this window the live
 * capacity is believed again (a failed execution must not hide forever behind its request).
 */
export const pendingWindowMs = (policy: TargetPolicy): number =>
  Math.max(180, 3 * policy.damping.periodSeconds) * 1000;

const active = (p: Pending | undefined, liveDesired: number, now: number, windowMs: number): p is Pending =>
  p !== undefined && now - p.at < windowMs && liveDesired !== p.desiredCapacity;

/** The desired capacity the engine should see: a pending request the live API does not show yet. */
export function effectiveDesired(
  liveDesired: number,
  pending: Pending | undefined,
  now: number,
  windowMs: number,
): number {
  return active(pending, liveDesired, now, windowMs) ? pending.desiredCapacity : liveDesired;
}

/** The pending change to keep when this evaluation starts none: the old one while it is still in flight. */
export function carriedPending(
  previous: Pending | undefined,
  liveDesired: number,
  now: number,
  windowMs: number,
): Pending | undefined {
  return active(previous, liveDesired, now, windowMs) ? previous : undefined;
}
