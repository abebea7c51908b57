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
 *   loosenEveryMinutes, never past maxTargetFactor;
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
 * turns it around. Time is an argument; the state goes in and comes out.
 */
import * as z from 'zod';
import type { SloControl } from '../policy/slo-schema.ts';
import type { BudgetStatus } from './budget.ts';

export const HEADROOM_REASONS = [
  'BudgetBurning',
  'BudgetSpare',
  'BudgetExhausted',
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

const clamp = (x: number, c: SloControl) => Math.min(c.maxTargetFactor, Math.max(c.minTargetFactor, x));
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

  constructor(
    factor: number,
    reason: HeadroomReason,
    state: HeadroomState,
    was: number,
    status: BudgetStatus,
    control: SloControl,
    share = 1,
  ) {
    this.factor = factor;
    this.reason = reason;
    this.state = state;
    this.#was = was;
    this.#status = status;
    this.#control = control;
    this.#share = share;
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
        return `error budget spare (${burns}): headroom down, load targets at ${f2(factor)}x (was ${f2(this.#was)}x)`;
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
  const factor = clamp(before.factor, c);
  const decided = (next: number, reason: HeadroomReason, state: HeadroomState, share = 1): HeadroomDecision =>
    new Decided(next, reason, state, factor, status, c, share);
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
    const next = clamp(factor * (1 - c.tightenStep * Math.min(MAX_BURN_WEIGHT, fast) * share), c);
    return decided(next, 'BudgetBurning', { ...before, factor: next, lastTightenAt: now }, share);
  }
  const spare = fast < 1 && status.pace < c.spendTarget;
  if (spare && since(before.lastLoosenAt, now, c.loosenEveryMinutes) && factor < c.maxTargetFactor) {
    const next = clamp(factor * (1 + c.loosenStep), c);
    return decided(next, 'BudgetSpare', { ...before, factor: next, lastLoosenAt: now });
  }
  return hold('BudgetSteady');
}
