/**
 * Spot headroom: a few spot instances held beyond the capacity the engine decides, while the
 * capacity mix runs spot (capacityMix.spot.overProvision: SkyServe's SpotHedge over-provisions
 * cheap spot replicas this way). Pure, and in two halves around the engine:
 *
 *  - before: the engine decides for its own capacity, as if the extra were not there. Its current
 *    capacity is the group's less the extra it held last period (EngineState.spotHeadroom, as far
 *    as the group shows it: heldNow), and
 *    per-instance loads averaged over the extra too are read per own instance, so the extra is
 *    headroom on top, never a reason to scale out later or to scale in.
 *  - after: the extra goes on top of what the signals and the forecast floor ask (after the
 *    budget ceiling, which it respects), once that is above the committed base: below it the
 *    base's idle instances are the headroom, paid already. The other floors (the loss cover, a
 *    failover floor) still hold the group at least where they are, and the extra is what the
 *    load's ask plus the headroom needs beyond them.
 *
 * Worked example (tests/engine/spot-headroom.test.ts): 2 of headroom, the signals ask 15, a
 * committed base of 11 -> 17 (15 + 2); at night they ask 6 -> 11, the committed base, and no
 * extra is held; holding at 11 within the band, none either. Without the snapshot's spotHeadroom
 * every result is what it was before.
 */
import type { SignalSnapshot } from './types.ts';

/** What the last decision held: the extra, and the engine's own capacity under it. */
export interface HeldHeadroom {
  held: number;
  own: number;
}

/**
 * The extra the group runs now: what the last decision held, as far as the group it reads is
 * above the engine's own capacity then. Intent reconciled with truth: a decision never applied
 * (shadow mode, a refused or failed write) left the group where it was, so nothing is taken out;
 * a group raised by hand past the total counts the rest as the engine's own.
 */
export const heldNow = (group: number, last: HeldHeadroom | undefined): number =>
  last ? Math.min(last.held, Math.max(0, group - last.own)) : 0;

/**
 * The snapshot as the engine reads it for its own capacity: per-instance readings averaged over
 * `held` extra ready instances too (those the basis counts beyond the own capacity) scaled back
 * to their own instances. Latency is not per instance: kept. Unchanged when nothing is held.
 */
export function ownView(snapshot: SignalSnapshot, held: number, own: number): SignalSnapshot {
  if (!held) return snapshot;
  const readings: SignalSnapshot['readings'] = {};
  for (const [metric, r] of Object.entries(snapshot.readings) as [
    keyof SignalSnapshot['readings'],
    NonNullable<SignalSnapshot['readings'][keyof SignalSnapshot['readings']]>,
  ][]) {
    const basis = r.basis ?? snapshot.capacity.ready;
    const extra = Math.min(held, Math.max(0, basis - own));
    const latency = metric === 'p95LatencyMs' || metric === 'p99LatencyMs';
    readings[metric] =
      latency || extra === 0 || basis - extra <= 0
        ? r
        : { ...r, value: (r.value * basis) / (basis - extra), basis: basis - extra };
  }
  return { ...snapshot, readings, capacity: { desired: own, ready: Math.min(snapshot.capacity.ready, own) } };
}

/**
 * The committed base: instances paid for whatever the load asks, so the headroom starts above it.
 * Not the loss cover nor a failover floor: they move with the forecast and the failover's phase,
 * and measured against them the headroom came and went with each of their steps (NASA without a
 * commitment, 1 of headroom: 1,135 scaling actions against 996 above the committed base alone,
 * and 768 without headroom; docs/capacity-mix.md).
 */
export const paidFloor = (s: SignalSnapshot): number => s.committedFloor?.capacity ?? 0;

/**
 * The capacity with the headroom: `asked` (what the signals and the forecast floor ask, after the
 * budget ceiling and the step limits) plus the headroom, at most `cap` (the ceiling's or
 * maxCapacity), when `asked` is above `paid`, the committed base (paidFloor). At or below it the
 * base's idle instances are the headroom. Strictly above, not at: an engine holding at a floor
 * asks for what it holds, and headroom there would come and go with every scale-in the floor
 * absorbs (11 -> 12 -> 11 at a committed base of 11, each a scaling action). 0 asked: nothing to
 * hold headroom for.
 */
export function withSpotHeadroom(
  instances: number,
  asked: number,
  paid: number,
  decided: number,
  cap: number,
): { capacity: number; extra: number } {
  if (instances <= 0 || asked <= 0 || decided <= 0 || asked <= paid) return { capacity: decided, extra: 0 };
  const want = Math.min(asked + instances, Math.max(cap, decided));
  return want > decided ? { capacity: want, extra: want - decided } : { capacity: decided, extra: 0 };
}
