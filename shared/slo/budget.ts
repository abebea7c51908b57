/**
 * The error budget read off the SLI ledger, as the SRE workbook's multi-window burn-rate practice
 * reads it: the burn rate of a window is its bad share over the share the objective allows
 * (1 spends the budget exactly over the objective's window; at 99.5 % of minutes one bad minute
 * in an hour is a burn rate of 3.3), and the budget left is what the window's bad minutes have
 * not yet spent. With a requests objective too, each figure is the worse of the two.
 */
import type { SliLedger, WindowCounts } from './ledger.ts';
import type { ResolvedSlo } from './objective.ts';

/** The fewest minutes the pace is read over (12 hours). */
export const PACE_FLOOR_MINUTES = 720;

/**
 * The SRE workbook's page thresholds ("Alerting on SLOs", multiwindow, multi-burn-rate alerts),
 * as shares of the window's budget: 2 % spent within an hour (a burn rate of 14.4 over 30 days)
 * or 5 % within six hours (6). Read as burn rates over the fast and slow windows (the bad share
 * of their observed minutes), scaled to their lengths: with the defaults (60 and 360 minutes, 30
 * days) 14.4 and 6, so at 99.5 % of minutes 5 bad minutes in an hour or 11-12 in six (the slow
 * window is read in whole hours), at 99.9 % one in an hour.
 */
export const PAGE_FAST_SHARE = 0.02;
export const PAGE_SLOW_SHARE = 0.05;

export interface BudgetStatus {
  /** Burn rate over the fast window; null with no reading in it. */
  fastBurn: number | null;
  /** Burn rate over the slow window (whole hours); null with no reading in it. */
  slowBurn: number | null;
  /** Share of the window's error budget left: 1 untouched, 0 or less spent. */
  remaining: number;
  /** Share of observed minutes within the SLO over the window; null with none observed. */
  attainment: number | null;
  /** Share of requests within the SLO over the window (requests objectives only). */
  requestAttainment?: number | null;
  /**
   * The window's bad share over the share the objective allows, over the minutes observed so far
   * (the window's whole-span burn rate, read over at least PACE_FLOOR_MINUTES): below 1 the
   * objective holds over what has been seen. Unlike `remaining`, it does not count minutes not yet
   * lived as budget, so it is the one that says "on pace" on a history shorter than the window.
   */
  pace: number;
  /** Minutes until the budget is gone at the slow burn rate; null when it is not burning. */
  exhaustsInMinutes: number | null;
  /** The burn is one the SRE workbook pages on (PAGE_FAST_SHARE, PAGE_SLOW_SHARE). */
  pages: boolean;
  window: WindowCounts;
}

/** The burn rate of counts read over `observed` minutes (their own, or the pace's floor). */
function burn(c: WindowCounts, slo: ResolvedSlo, observed = c.observed): number | null {
  if (observed === 0) return null;
  const minutes = c.bad / observed / (1 - slo.minutes);
  if (slo.requests === undefined || c.requests <= 0) return minutes;
  return Math.max(minutes, c.badRequests / c.requests / (1 - slo.requests));
}

export function budgetStatus(
  ledger: SliLedger,
  slo: ResolvedSlo,
  slowMinutes: number,
  now: number,
): BudgetStatus {
  const window = ledger.window();
  const allowedMinutes = (1 - slo.minutes) * slo.windowMinutes;
  let remaining = 1 - window.bad / allowedMinutes;
  if (slo.requests !== undefined && window.requests > 0) {
    remaining = Math.min(remaining, 1 - window.badRequests / ((1 - slo.requests) * window.requests));
  }
  const slowBurn = burn(ledger.recent(slowMinutes, now), slo);
  const fastBurn = burn(ledger.fast(), slo);
  // A window spending `share` of the budget within its minutes burns share x window / its length.
  const pages =
    (fastBurn ?? 0) >= (PAGE_FAST_SHARE * slo.windowMinutes) / ledger.fastMinutes ||
    (slowBurn ?? 0) >= (PAGE_SLOW_SHARE * slo.windowMinutes) / slowMinutes;
  // Read over at least PACE_FLOOR_MINUTES, so one bad minute in a target's first hour is not a
  // pace of 3.3 for the whole window (it is 0.28 over 12 hours).
  const pace = burn(window, slo, Math.max(window.observed, PACE_FLOOR_MINUTES)) ?? 0;
  const attainment = window.observed > 0 ? 1 - window.bad / window.observed : null;
  // At burn rate b the budget drains b / windowMinutes of itself per minute.
  const exhaustsInMinutes =
    slowBurn !== null && slowBurn > 0 && remaining > 0 ? (remaining * slo.windowMinutes) / slowBurn : null;
  // Two literals, not a spread (read every simulated minute); the keys in the same order.
  if (slo.requests === undefined)
    return { fastBurn, slowBurn, remaining, pace, attainment, exhaustsInMinutes, pages, window };
  const requestAttainment = window.requests > 0 ? 1 - window.badRequests / window.requests : null;
  return {
    fastBurn,
    slowBurn,
    remaining,
    pace,
    attainment,
    requestAttainment,
    exhaustsInMinutes,
    pages,
    window,
  };
}
