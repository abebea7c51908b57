/**
 * Error-budget control of headroom: one number, the target factor, that multiplies the load
 * signals' targets (and divides the forecast floors) between the policy's bounds. It holds the
 * objective by watching the pace at which the window's budget is spent (its whole-window burn
 * rate, `pace`: 1 spends exactly the budget) against the share the policy plans to spend
 * (spendTarget), and reacts only to what is happening now (the fast window):
 *
 * - exhausted (nothing left in the window): the most conservative factor, minTargetFactor;
 * - burning (a new bad minute, the fast window above a burn rate of 1, the pace above
 *   spendTarget): down by tightenStep x the fast burn rate (at most 3x), at most once per
 *   tightenEveryMinutes, so one incident's run of bad minutes (already being answered by a
 *   scale-out that takes minutes to serve) counts once, not once a minute. The step is in
 *   proportion to the threat: a full one while the burn is one the SRE workbook pages on (2 % of
 *   the budget within the fast window, 5 % within the slow one: BudgetStatus.pages), else times
 *   the share of the budget already spent, at least freshStepShare. A fresh window's stray bad
 *   minute costs freshStepShare of a step (0.4); one nearly spent, or a level shift, the full one;
 * - spare (the fast window calm, the pace below spendTarget): up by loosenStep, at most once per
 *   loosenEveryMinutes, never past maxTargetFactor, or past it into the spare room while the
 *   budget has been barely spent for days (spareCap: up to spareRoom.maxFactor, in proportion to
 *   how far the pace is below spareRoom.belowPace and to the days of readings, only while both
 *   burn windows are calm);
 * - the spare room narrowed below the factor (a window burned, the pace rose): back down to it at
 *   once (SpareRoomClosed);
 * - otherwise it holds (BudgetSteady), as it does with no SLI reading (SloNoData).
 *
 * Worked example, 99.5 % of minutes, defaults: one bad minute in the last hour is a fast burn of
 * 3.3 (1/60 over 0.005); with the window's pace above 0.8 and 40 % of the budget spent the
 * factor falls by 0.03 x 3 x 0.4 = 3.6 %, 1.0 to 0.964, and no further for 10 minutes (with 5
 * bad minutes in the hour the burn pages: 9 %). Calm again and on pace, it climbs 1 % per 10
 * minutes: back to 1.0 in about 40 minutes.
 *
 * Why these defaults (docs/slo.md has the tables): on NASA July a regulator that also leaned
 * below the written headroom (maxTargetFactor 1.1) cost 3 % more than one that stays at or above
 * it (1.0), with more bad minutes; per-minute tightening (no tightenEveryMinutes) cost 8-14 %
 * more at the same attainment, each ramp's bad minutes cutting the factor again and again.
 *
 * Properties (tests/slo/control.test.ts): the factor stays within its bounds; at the bound while
 * exhausted; the next factor never rises with the burn rate or the pace; constant input never
 * turns it around. The spare room's (tests/slo/spare-room.test.ts): never above the cap of the
 * status decided on, shut in the first day and while a window burns. Time is an argument; the
 * state goes in and comes out.
 */
import * as z from 'zod';
import type { SloControl } from '../policy/slo-schema.ts';
import type { BudgetStatus } from './budget.ts';

export const HEADROOM_REASONS = [
  'BudgetBurning',
  'BudgetSpare',
  'BudgetExhausted',
  'SpareRoomClosed',
  'BudgetSteady',
  'SloNoData',
] as const;
export type HeadroomReason = (typeof HEADROOM_REASONS)[number];

export const HeadroomStateSchema = z
  .object({
    factor: z.number().positive(),
    /** Epoch ms of the last loosening step; null before any. */
    lastLoosenAt: z.number().nullable(),
    /** Epoch ms of the last tightening step; null (or absent, in a state from before it) before any. */
    lastTightenAt: z.number().nullable().optional(),
  })
  .strict();
export type HeadroomState = z.infer<typeof HeadroomStateSchema>;

/** Before any budget is read the policy stands as written. */
export const initialHeadroom = (): HeadroomState => ({ factor: 1, lastLoosenAt: null, lastTightenAt: null });

export interface HeadroomDecision {
  factor: number;
  reason: HeadroomReason;
  message: string;
  state: HeadroomState;
}

/** The most the fast burn rate multiplies tightenStep by. */
const MAX_BURN_WEIGHT = 3;

const clamp = (x: number, c: SloControl, cap = c.maxTargetFactor) =>
  Math.min(cap, Math.max(c.minTargetFactor, x));
const DAY_MINUTES = 1440;

/**
 * The leanest the factor may stand now: maxTargetFactor, and beyond it the spare room while the
 * error budget has been barely spent. The room is spareRoom.maxFactor - maxTargetFactor times
 * two shares: how far the window's pace is below spareRoom.belowPace (all of it at a pace of 0,
 * none at belowPace), and the days of SLI readings (none in the first day, all from evidenceDays
 * on). None while either burn window burns (a bad minute in the last hour is a fast burn of 3.3
 * at 99.5 %). Worked example, defaults (1.5, 0.25, 7 days): ten days at 99.98 % is a pace of
 * 0.04, a share of 0.84, and a cap of 1 + 0.5 x 0.84 = 1.42; at 99.95 % (pace 0.1), 1.3; on the
 * fourth day at 99.98 %, 1 + 0.5 x 0.84 x 0.5 = 1.21. Pure; non-increasing in the pace.
 */
export function spareCap(status: BudgetStatus, c: SloControl): number {
  const s = c.spareRoom;
  const base = c.maxTargetFactor;
  if (!s.enabled || s.maxFactor <= base) return base;
  const calm =
    status.fastBurn !== null && status.fastBurn < 1 && status.slowBurn !== null && status.slowBurn < 1;
  if (!calm) return base;
  const days = (status.window.observed - DAY_MINUTES) / ((s.evidenceDays - 1) * DAY_MINUTES);
  const evidence = Math.min(1, Math.max(0, days));
  const room = Math.max(0, 1 - status.pace / s.belowPace);
  return base + (s.maxFactor - base) * evidence * room;
}
const f2 = (x: number) => x.toFixed(2);
const burnText = (x: number | null) => (x === null ? 'no reading' : `${x.toFixed(1)}x`);
const since = (at: number | null | undefined, now: number, minutes: number) =>
  at === null || at === undefined || now - at >= minutes * 60_000;

export interface HeadroomInput {
  status: BudgetStatus;
  /** Bad minutes recorded since the last decision. */
  newBad: number;
  control: SloControl;
  now: number;
}

/**
 * A decision of the control. Its sentence is read from the prototype when asked for: the backtest
 * steps every simulated minute and reads none of them, and an object literal with a getter of
 * its own was the most expensive line of a reactive run (V8 builds it on a slow path).
 */
class Decided implements HeadroomDecision {
  readonly factor: number;
  readonly reason: HeadroomReason;
  readonly state: HeadroomState;
  readonly #was: number;
  readonly #status: BudgetStatus;
  readonly #control: SloControl;
  /** The share of a full tightening step taken (1 while the burn pages). */
  readonly #share: number;
  /** The leanest the factor could stand (spareCap). */
  readonly #cap: number;

  constructor(
    factor: number,
    reason: HeadroomReason,
    state: HeadroomState,
    was: number,
    status: BudgetStatus,
    control: SloControl,
    share = 1,
    cap = control.maxTargetFactor,
  ) {
    this.factor = factor;
    this.reason = reason;
    this.state = state;
    this.#was = was;
    this.#status = status;
    this.#control = control;
    this.#share = share;
    this.#cap = cap;
  }

  get message(): string {
    const { factor, reason } = this;
    const status = this.#status;
    const burns = `burn rate ${burnText(status.fastBurn)} over ${this.#control.fastWindowMinutes} min, pace ${status.pace.toFixed(2)} of the budget`;
    switch (reason) {
      case 'BudgetExhausted':
        return `error budget exhausted (${burns}): most headroom, load targets at ${f2(factor)}x`;
      case 'SloNoData':
        return `no SLI reading yet: load targets held at ${f2(factor)}x`;
      case 'BudgetBurning': {
        const step =
          this.#share >= 1
            ? status.pages
              ? 'a full step: the burn pages'
              : 'a full step'
            : `${Math.round(this.#share * 100)} % of a step: ${Math.round((1 - status.remaining) * 100)} % of the budget spent`;
        return `error budget burning (${burns}): headroom up, load targets at ${f2(factor)}x (was ${f2(this.#was)}x; ${step})`;
      }
      case 'BudgetSpare':
        return factor > this.#control.maxTargetFactor
          ? `error budget barely spent (${burns}): headroom down past the targets as written, load targets at ${f2(factor)}x (was ${f2(this.#was)}x; spare room up to ${f2(this.#cap)}x)`
          : `error budget spare (${burns}): headroom down, load targets at ${f2(factor)}x (was ${f2(this.#was)}x)`;
      case 'SpareRoomClosed':
        return `spare room narrowed to ${f2(this.#cap)}x (${burns}): load targets back to ${f2(factor)}x (was ${f2(this.#was)}x)`;
      default:
        return `error budget steady (${burns}): load targets held at ${f2(factor)}x`;
    }
  }
}

/**
 * The share of a full tightening step the burn is answered with: 1 while it pages, else the share
 * of the window's budget spent, at least freshStepShare (never above 1).
 */
export function tighteningShare(status: BudgetStatus, c: SloControl): number {
  if (status.pages) return 1;
  return Math.min(1, Math.max(c.freshStepShare, 1 - status.remaining));
}

export function controlHeadroom(prev: HeadroomState | undefined, input: HeadroomInput): HeadroomDecision {
  const { status, newBad, control: c, now } = input;
  const before = prev ?? initialHeadroom();
  const cap = spareCap(status, c);
  const factor = clamp(before.factor, c, cap);
  const decided = (
    next: number,
    reason: HeadroomReason,
    state: HeadroomState,
    share = 1,
    was = factor,
  ): HeadroomDecision => new Decided(next, reason, state, was, status, c, share, cap);
  // Held: the state before, as it was (a new object only when the bounds moved its factor).
  const hold = (reason: HeadroomReason): HeadroomDecision =>
    decided(factor, reason, before.factor === factor ? before : { ...before, factor });
  if (status.remaining <= 0) {
    return decided(c.minTargetFactor, 'BudgetExhausted', { ...before, factor: c.minTargetFactor });
  }
  const fast = status.fastBurn;
  if (fast === null) return hold('SloNoData');
  const burning = newBad > 0 && fast > 1 && status.pace > c.spendTarget;
  if (burning && since(before.lastTightenAt, now, c.tightenEveryMinutes) && factor > c.minTargetFactor) {
    const share = tighteningShare(status, c);
    const next = clamp(factor * (1 - c.tightenStep * Math.min(MAX_BURN_WEIGHT, fast) * share), c, cap);
    return decided(next, 'BudgetBurning', { ...before, factor: next, lastTightenAt: now }, share);
  }
  // The factor stood in the spare room and the room shrank below it: back down at once.
  if (before.factor > c.maxTargetFactor && factor < before.factor)
    return decided(factor, 'SpareRoomClosed', { ...before, factor }, 1, before.factor);
  const spare = fast < 1 && status.pace < c.spendTarget;
  if (spare && since(before.lastLoosenAt, now, c.loosenEveryMinutes) && factor < cap) {
    const next = clamp(factor * (1 + c.loosenStep), c, cap);
    return decided(next, 'BudgetSpare', { ...before, factor: next, lastLoosenAt: now });
  }
  return hold('BudgetSteady');
}
