/**
 * Error-budget control of headroom: one number, the target factor, that multiplies the load
 * signals' targets (and divides the forecast floors) between the policy's bounds. Spend the
 * budget while it burns slowly, buy it back at once when it burns fast:
 *
 * - exhausted (nothing left in the window): the most conservative factor, minTargetFactor;
 * - burning (a new bad minute, and both windows above a burn rate of 1): down by tightenStep x
 *   the fast burn rate (at most 3x), so a cluster of bad minutes takes the factor down quickly;
 * - spare (both windows below spareBurnRate and at least half the budget left): up by
 *   loosenStep, at most once per loosenEveryMinutes: spending is slow, buying back is fast;
 * - otherwise it holds (BudgetSteady), as it does with no SLI reading (SloNoData).
 *
 * Worked example, 99.5 % of minutes, defaults: one bad minute after a calm hour is a fast burn of
 * 3.3 (1/60 over 0.005): the factor falls by 0.05 x 3 = 15 %, 1.0 to 0.85. From there it climbs
 * back by 1 % every 15 minutes once the fast window is calm again: 1.0 after about four hours.
 *
 * Properties (tests/slo/control.test.ts): the factor stays within its bounds; at the bound while
 * exhausted; the next factor never rises with the burn rate; constant input never turns it
 * around. Time is an argument; the state goes in and comes out.
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
  })
  .strict();
export type HeadroomState = z.infer<typeof HeadroomStateSchema>;

/** Before any budget is read the policy stands as written. */
export const initialHeadroom = (): HeadroomState => ({ factor: 1, lastLoosenAt: null });

export interface HeadroomDecision {
  factor: number;
  reason: HeadroomReason;
  message: string;
  state: HeadroomState;
}

/** The budget counts as spare only while at least this share of it is left. */
export const SPARE_BUDGET_LEFT = 0.5;
/** The most the fast burn rate multiplies tightenStep by. */
const MAX_BURN_WEIGHT = 3;

const clamp = (x: number, c: SloControl) => Math.min(c.maxTargetFactor, Math.max(c.minTargetFactor, x));
const f2 = (x: number) => x.toFixed(2);
const burnText = (x: number | null) => (x === null ? 'no reading' : `${x.toFixed(1)}x`);

export interface HeadroomInput {
  status: BudgetStatus;
  /** Bad minutes recorded since the last decision. */
  newBad: number;
  control: SloControl;
  now: number;
}

export function controlHeadroom(prev: HeadroomState | undefined, input: HeadroomInput): HeadroomDecision {
  const { status, newBad, control: c, now } = input;
  const before = prev ?? initialHeadroom();
  const factor = clamp(before.factor, c);
  const hold = (reason: HeadroomReason, message: string): HeadroomDecision => ({
    factor,
    reason,
    message,
    state: { ...before, factor },
  });
  const burns = `burn rate ${burnText(status.fastBurn)} over ${c.fastWindowMinutes} min, ${burnText(status.slowBurn)} over ${c.slowWindowMinutes} min`;
  if (status.remaining <= 0) {
    return {
      factor: c.minTargetFactor,
      reason: 'BudgetExhausted',
      message: `error budget exhausted (${burns}): most headroom, load targets at ${f2(c.minTargetFactor)}x`,
      state: { ...before, factor: c.minTargetFactor },
    };
  }
  const { fastBurn: fast, slowBurn: slow } = status;
  if (fast === null || slow === null)
    return hold('SloNoData', `no SLI reading yet: load targets held at ${f2(factor)}x`);
  if (newBad > 0 && fast > 1 && slow > 1) {
    const next = clamp(factor * (1 - c.tightenStep * Math.min(MAX_BURN_WEIGHT, fast)), c);
    return {
      factor: next,
      reason: 'BudgetBurning',
      message: `error budget burning (${burns}): headroom up, load targets at ${f2(next)}x (was ${f2(factor)}x)`,
      state: { ...before, factor: next },
    };
  }
  const spare = fast < c.spareBurnRate && slow < c.spareBurnRate && status.remaining >= SPARE_BUDGET_LEFT;
  const due = before.lastLoosenAt === null || now - before.lastLoosenAt >= c.loosenEveryMinutes * 60_000;
  if (spare && due && factor < c.maxTargetFactor) {
    const next = clamp(factor * (1 + c.loosenStep), c);
    return {
      factor: next,
      reason: 'BudgetSpare',
      message: `error budget spare (${burns}, ${Math.round(status.remaining * 100)} % left): headroom down, load targets at ${f2(next)}x (was ${f2(factor)}x)`,
      state: { factor: next, lastLoosenAt: now },
    };
  }
  return hold('BudgetSteady', `error budget steady (${burns}): load targets held at ${f2(factor)}x`);
}
