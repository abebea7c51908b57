/**
 * A run judged against the SLO objective (BACKTEST.md, "Judging against an SLO objective"):
 * attainment is the share of scored minutes (and of requests) that met the latency SLO; the
 * error budget is what the objective leaves, and budget spent is (1 - attainment) / (1 - objective).
 * 184 violation minutes of NASA's 39,693 are 99.536 % attainment: against 99.5 % that spends
 * 0.464 / 0.5 = 93 % of the budget, and meets it; 2,359 minutes (94.06 %) spend 1,189 %.
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
}

/** Shares closer than this are equal: 1 - 0.005 is 0.995 give or take a float's last digit. */
const SHARE_EPSILON = 1e-12;

export function attainmentOf(
  run: { violationRatio: number; requestsInViolationRatio: number },
  objective: Objective,
): Attainment {
  const attainment = 1 - run.violationRatio;
  const requestsAttainment = 1 - run.requestsInViolationRatio;
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
