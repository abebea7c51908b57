/**
 * The time budget of one invocation: when too little is left, work that would change state is
 * not started, and what was not done is reported (a record or an outcome with the reason
 * DeadlineReached), never left half-done. The Lambda context says how much time is left; the
 * handler keeps RESERVE_MS of it after the deadline for logging the records and returning.
 *
 * The evaluate function (60 s): one target's writes are a claim (DynamoDB), an action (Step
 * Functions, or EC2 Auto Scaling with a suspension first), an undo when the action failed, and
 * the decision record: usually well under a second, a few seconds when throttled. A target is
 * started only with EVALUATE_TARGET_MARGIN_MS left, room for those four calls with one slow
 * attempt each (5 s, shared/aws/clients.ts TIMEOUTS). With 60 s and reads that normally take
 * 1-2 s this never bites; it does when a read hung for half a minute.
 *
 * The forecast function (300 s): a target's writes are its floor (DynamoDB) and up to 48
 * scheduled actions put and as many removed (about 100 ms each), so FORECAST_TARGET_MARGIN_MS
 * is 30 s.
 */

/** Kept after the deadline for logging and returning, by the evaluate and forecast handlers. */
export const RESERVE_MS = { evaluate: 2_000, forecast: 5_000 } as const;

export const EVALUATE_TARGET_MARGIN_MS = 15_000;
export const FORECAST_TARGET_MARGIN_MS = 30_000;

/** Milliseconds left before the deadline; unlimited when the caller has none (CLI, tests). */
export type TimeLeft = () => number;
export const unlimited: TimeLeft = () => Number.POSITIVE_INFINITY;

/** The reason code that starts the detail of work not started for lack of time. */
export const DEADLINE_REACHED = 'DeadlineReached';

/** Why work needing marginMs may not start with leftMs left (one sentence), or null when it may. */
export function deadlineReached(leftMs: number, marginMs: number, what: string): string | null {
  if (leftMs >= marginMs) return null;
  return `${DEADLINE_REACHED}: ${Math.max(0, Math.round(leftMs / 100) / 10)} s left of the invocation, under the ${marginMs / 1000} s ${what} may take: not started, nothing was changed; the next run does it`;
}
