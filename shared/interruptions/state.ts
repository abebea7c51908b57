/**
 * What the interruption handler keeps per target between batches (the SPOT item,
 * shared/aws/spot-store.ts), and what the mix planner reads of it: availabilityAt(). Times are
 * epoch milliseconds; every window is measured from the `now` passed in.
 */
import * as z from 'zod';
import type { SpotAvailability } from '../mix/types.ts';

/**
 * How long an instance is remembered as handled: a day. A warned spot instance is gone two
 * minutes after its warning and a retired one by its retirement date, and SQS redelivers within
 * the visibility timeout, so a duplicate a day late is one the lookup (DescribeAutoScaling-
 * Instances) no longer finds in the group: it is ignored there instead. At 500 instances a
 * storm the map is about 20 KB of the 400 KB an item may hold.
 */
export const HANDLED_RETENTION_MS = 24 * 60 * 60_000;

/**
 * The bounds that keep the item far below DynamoDB's 400 KB (issue 18: unbounded, it passed the
 * limit after about 11,200 instances in a day, and every batch then threw). An entry is an
 * instance id (19 characters) and a time (8 bytes as a DynamoDB number): about 30 bytes, so
 * 500 handled + 1,000 warnings + 64 pools is at most about 47 KB
 * (tests/interruptions/bounds.test.ts measures a full one).
 *  - handled, a ring of the MAX_HANDLED most recent: in active mode the group lookup is the
 *    truth (a detached instance is in no group), so the ring only spares calls for duplicates
 *    within minutes, and in shadow mode stands for the detach that was not made.
 *  - warnings, the MAX_WARNINGS most recent in the breaker window: the breaker's count saturates
 *    there, which opens it for any plan of fewer than 5,000 spot instances at 20 %.
 *  - pools, the MAX_POOLS latest windows (a policy lists a handful of types).
 */
export const MAX_HANDLED = 500;
export const MAX_WARNINGS = 1_000;
export const MAX_POOLS = 64;
/**
 * Retirements in flight (desired capacity raised for them, not yet terminated), at most the
 * largest healthDisruptionBudget: the budget counts them (./retire.ts), so a target never holds
 * more than its budget. About 60 bytes an entry (id, time, group name): at most about 60 KB.
 * Never dropped by age or bound: an entry dropped would leave its instance running and the
 * group one larger (./retirements.ts clears them when they are gone).
 */
export const MAX_RETIRING = 1_000;

const Ms = z.number().int().min(0);

/** A retiring instance kept in its group until its replacement serves (./retirements.ts). */
export const RetiringSchema = z
  .object({
    /** When desired capacity was raised for it. */
    at: Ms,
    /** Its group: the one to read back and terminate it in. */
    group: z.string().min(1).max(255),
  })
  .strict();
export type Retiring = z.infer<typeof RetiringSchema>;

export const SpotStateSchema = z
  .object({
    version: z.literal(1),
    /** Instance id -> when its replacement was asked for (DetachInstances succeeded, or shadow). */
    handled: z.record(z.string(), Ms),
    /** Instance id -> when its interruption warning was given, within the breaker window. */
    warnings: z.record(z.string(), Ms),
    /** Instance type -> until when spot is not planned in it (a spot launch failed for lack of capacity). */
    poolsUnavailableUntil: z.record(z.string(), Ms),
    /** Until when no spot at all can be had (a shortage that named no type); null: none. */
    spotUnavailableUntil: Ms.nullable(),
    /** Until when the breaker holds the target on-demand; null: closed. */
    breakerOpenUntil: Ms.nullable(),
    /** When the breaker last opened (for the record and the sentence); null: never. */
    breakerOpenedAt: Ms.nullable(),
    /**
     * Instance id -> its retirement in flight: a scheduled retirement whose group was raised by
     * one so its replacement launches first; the mix function terminates it (decrementing) once
     * the group serves without it. Absent in items written before: none.
     */
    retiring: z.record(z.string(), RetiringSchema).default({}),
  })
  .strict()
  .refine(
    (s) =>
      Object.keys(s.handled).length <= MAX_HANDLED &&
      Object.keys(s.warnings).length <= MAX_WARNINGS &&
      Object.keys(s.poolsUnavailableUntil).length <= MAX_POOLS &&
      Object.keys(s.retiring).length <= MAX_RETIRING,
    {
      message: `holds more than its bounds (${MAX_HANDLED} handled, ${MAX_WARNINGS} warnings, ${MAX_POOLS} pools, ${MAX_RETIRING} retiring)`,
    },
  );
export type SpotState = z.infer<typeof SpotStateSchema>;

export const initialSpotState = (): SpotState => ({
  version: 1,
  handled: {},
  warnings: {},
  poolsUnavailableUntil: {},
  spotUnavailableUntil: null,
  breakerOpenUntil: null,
  breakerOpenedAt: null,
  retiring: {},
});

const openAt = (until: number | null, now: number): boolean => until !== null && now < until;

/**
 * The mix planner's spot input at `now`. A shortage of spot as a whole is written into every
 * pool of the policy when it is handled (handleSpotBatch), since the planner knows pools, not
 * "spot"; so only the pools and the breaker are read here. No state: every pool available.
 */
export function availabilityAt(spot: SpotState | null, now: number): SpotAvailability {
  if (!spot) return { unavailablePools: [], breakerOpen: false };
  return {
    unavailablePools: Object.entries(spot.poolsUnavailableUntil)
      .filter(([, until]) => now < until)
      .map(([type]) => type)
      .sort(),
    breakerOpen: openAt(spot.breakerOpenUntil, now),
  };
}

/**
 * The entries kept by `keep`, at most `max` of them: the latest values first, ties by key, so
 * the same map always keeps the same entries. Under the bound the order is unchanged.
 */
function keepWhere(
  m: Record<string, number>,
  keep: (v: number) => boolean,
  max: number,
): Record<string, number> {
  const kept = Object.entries(m).filter(([, v]) => keep(v));
  if (kept.length <= max) return Object.fromEntries(kept);
  kept.sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(kept.slice(0, max));
}

/**
 * Forgets what no longer matters at `now`: handled instances after HANDLED_RETENTION_MS,
 * warnings older than the breaker window, pools and windows that have reopened; then holds each
 * map to its bound (the most recent entries).
 */
export function pruneSpotState(s: SpotState, now: number, windowMs: number): SpotState {
  return {
    ...s,
    handled: keepWhere(s.handled, (at) => now - at < HANDLED_RETENTION_MS, MAX_HANDLED),
    warnings: keepWhere(s.warnings, (at) => now - at < windowMs, MAX_WARNINGS),
    poolsUnavailableUntil: keepWhere(s.poolsUnavailableUntil, (until) => now < until, MAX_POOLS),
    spotUnavailableUntil: openAt(s.spotUnavailableUntil, now) ? s.spotUnavailableUntil : null,
    breakerOpenUntil: openAt(s.breakerOpenUntil, now) ? s.breakerOpenUntil : null,
  };
}

/** The state held to its bounds (the most recent entries of each map); nothing else changes. */
export const boundSpotState = (s: SpotState): SpotState => ({
  ...s,
  handled: keepWhere(s.handled, () => true, MAX_HANDLED),
  warnings: keepWhere(s.warnings, () => true, MAX_WARNINGS),
  poolsUnavailableUntil: keepWhere(s.poolsUnavailableUntil, () => true, MAX_POOLS),
});

const without = <T>(m: Record<string, T>, drop: ReadonlySet<string>): Record<string, T> =>
  Object.fromEntries(Object.entries(m).filter(([id]) => !drop.has(id)));

/**
 * The state with `instanceIds` no longer handled and no longer retiring: their replacement call
 * failed, so a redelivery acts.
 */
export function unmarkHandled(s: SpotState, instanceIds: readonly string[]): SpotState {
  const drop = new Set(instanceIds);
  return { ...s, handled: without(s.handled, drop), retiring: without(s.retiring, drop) };
}

/** The state with `instanceIds` no longer retiring: terminated, or gone from their group. */
export function clearRetiring(s: SpotState, instanceIds: readonly string[]): SpotState {
  return { ...s, retiring: without(s.retiring, new Set(instanceIds)) };
}
