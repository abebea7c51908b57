/**
 * A run judged against the SLO objective (BACKTEST.md, "Judging against an SLO objective"):
 * attainment is the share of scored minutes (and of requests) that met the latency SLO; the
 * error budget is what the objective leaves, and budget spent is (1 - attainment) / (1 - objective).
 * 184 violation minutes of NASA's 39,693 are 99.536 % attainment: against 99.5 % that spends
 * 0.464 / 0.5 = 93 % of the budget, and meets it; 2,359 minutes (94.06 %) spend 1,189 %.
 *
 * The objective holds over its window (30 days by default), so a run longer than the window is
 * judged by its worst window, as an SRE reports compliance: a year whose bad minutes all fall in
 * one month misses "99.9 % over 30 days" even when the year as a whole is at 99.95 %. The judged
 * attainment and budget are then that window's; the whole run's share stays in `traceAttainment`.
 * A run no longer than the window is judged whole, as before (every bundled trace).
 */
import type { ResolvedSlo } from '../slo/objective.ts';

/** What the judges read of the objective (shared/slo/objective.ts resolves it from the policy). */
export type Objective = Pick<ResolvedSlo, 'minutes' | 'requests' | 'windowMinutes'>;

export interface Attainment {
  /** Share of scored minutes within the SLO: 1 - violationRatio. */
  attainment: number;
  /** Share of requests in minutes within the SLO: 1 - requestsInViolationRatio. */
  requestsAttainment: number;
  /** Error budget spent, 1 = all of it; the larger of the minutes' and the requests' when both are objectives. */
  budgetSpent: number;
  meetsObjective: boolean;
  /** Runs longer than the window: the whole run's share of minutes within the SLO. */
  traceAttainment?: number;
  /** Runs longer than the window: the first minute of the worst window (of minutes, or of requests when that one is worse). */
  worstWindowFrom?: number;
}

/** What the worst window is read from: the run's scored violation minutes and the trace's requests. */
export interface MinuteRecord {
  /** Scored minutes that violated the SLO, ascending. */
  violationMinutes: readonly number[];
  /** Requests per minute of the whole trace. */
  requests: ArrayLike<number>;
  /** The first scored minute (0: all). */
  scoreFrom: number;
  /** The first minute past the span (default: the end of the trace). */
  end?: number;
}

interface WorstWindow {
  /** Highest share of the window's minutes that violated, over every window of the scored span. */
  badMinutes: number;
  /** Highest share of the window's requests that fell in violating minutes (0 with no requests). */
  badRequests: number;
  minutesFrom: number;
  requestsFrom: number;
}

/**
 * The worst window of `window` minutes inside [scoreFrom, end) (the whole span when it is shorter):
 * minutes by two pointers over the sorted violation minutes (every run of violations closer than the
 * window fits one window inside the span), requests by a sum slid over every window start. O(n) on
 * a year of minutes.
 */
export function worstWindow(record: MinuteRecord, window: number): WorstWindow {
  const { violationMinutes: v, requests, scoreFrom } = record;
  const end = record.end ?? requests.length;
  const w = Math.min(window, end - scoreFrom);
  let most = 0;
  let minutesFrom = scoreFrom;
  for (let i = 0, j = 0; i < v.length; i++) {
    while (v[i]! - v[j]! >= w) j++;
    if (i - j + 1 > most) {
      most = i - j + 1;
      minutesFrom = Math.min(v[j]!, end - w);
    }
  }
  // Requests, and requests in violating minutes, summed over the sliding window.
  let total = 0;
  let bad = 0;
  let k = 0;
  let lo = 0;
  for (let m = scoreFrom; m < scoreFrom + w; m++) {
    total += requests[m]!;
    while (k < v.length && v[k]! < m) k++;
    if (v[k] === m) bad += requests[m]!;
  }
  let badRequests = total > 0 ? bad / total : 0;
  let requestsFrom = scoreFrom;
  while (lo < v.length && v[lo]! < scoreFrom) lo++;
  for (let s = scoreFrom + 1; s + w <= end; s++) {
    const out = s - 1;
    const inn = s + w - 1;
    total += requests[inn]! - requests[out]!;
    if (v[lo] === out) {
      bad -= requests[out]!;
      lo++;
    }
    while (k < v.length && v[k]! < inn) k++;
    if (v[k] === inn) bad += requests[inn]!;
    const share = total > 0 ? bad / total : 0;
    if (share > badRequests) {
      badRequests = share;
      requestsFrom = s;
    }
  }
  return { badMinutes: most / w, badRequests, minutesFrom, requestsFrom };
}

/** Shares closer than this are equal: 1 - 0.005 is 0.995 give or take a float's last digit. */
const SHARE_EPSILON = 1e-12;

export function attainmentOf(
  run: { violationRatio: number; requestsInViolationRatio: number },
  objective: Objective,
  record?: MinuteRecord,
): Attainment {
  const span = record ? record.requests.length - record.scoreFrom : 0;
  if (record && span > objective.windowMinutes) {
    const worst = worstWindow(record, objective.windowMinutes);
    const judged = judge(1 - worst.badMinutes, 1 - worst.badRequests, objective);
    const requestsWorse =
      objective.requests !== undefined &&
      worst.badRequests / (1 - objective.requests) > worst.badMinutes / (1 - objective.minutes);
    return {
      ...judged,
      traceAttainment: 1 - run.violationRatio,
      worstWindowFrom: requestsWorse ? worst.requestsFrom : worst.minutesFrom,
    };
  }
  return judge(1 - run.violationRatio, 1 - run.requestsInViolationRatio, objective);
}

function judge(attainment: number, requestsAttainment: number, objective: Objective): Attainment {
  let budgetSpent = (1 - attainment) / (1 - objective.minutes);
  let meets = attainment >= objective.minutes - SHARE_EPSILON;
  if (objective.requests !== undefined) {
    budgetSpent = Math.max(budgetSpent, (1 - requestsAttainment) / (1 - objective.requests));
    meets = meets && requestsAttainment >= objective.requests - SHARE_EPSILON;
  }
  return { attainment, requestsAttainment, budgetSpent, meetsObjective: meets };
}

/** "99.5 %", "99.75 %": a share with as many digits as it needs, at most three. */
export const shareText = (x: number): string => `${Number((100 * x).toFixed(3))} %`;

/** "99.5 % of minutes (and 99 % of requests)". */
export function objectiveText(o: Objective): string {
  const requests = o.requests !== undefined ? ` and ${shareText(o.requests)} of requests` : '';
  return `${shareText(o.minutes)} of minutes${requests}`;
}
