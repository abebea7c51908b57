/**
 * What `governor tune` aims at: the lowest cost that holds the target's SLO objective (the
 * policy's slo section, 99.5 % of minutes by default) in every fold of the training part, with a
 * margin. A setting that holds it over the whole training part by being clean one week and over
 * budget the next is fitted to that part, not to the traffic, so every fold must hold it.
 */
import { maxOf } from '../arrays/extent.ts';
import type { ResolvedSlo } from '../slo/objective.ts';
import type { Figures, Fold } from './evaluate.ts';

/**
 * The share of the error budget held back in each fold for the days the search never saw: 0.5
 * asks for at most half the budget spent in any fold. At 99.5 % of minutes the budget is 0.5 %,
 * so each fold must reach 99.75 % (at most 22 bad minutes in a fold of 6.2 days). Measured on
 * the last third of NASA July and Twitter (docs/tune.md, "What the margin buys").
 */
export const BUDGET_MARGIN = 0.5;

export interface Goal {
  /** The objective: share of minutes (and of requests, when the policy asks) within the SLO. */
  objective: { minutes: number; requests?: number };
  /** Share of the error budget held back in each fold (0.5: half). */
  margin: number;
  /** Violation minutes / minutes allowed in each fold: (1 - objective) x (1 - margin). */
  maxViolationRatio: number;
  /** The same for requests in violating minutes, when the objective has a requests share. */
  maxRequestsViolationRatio?: number;
  /** The goal in words. */
  source: string;
}

const pct = (x: number) => `${Number((100 * x).toFixed(3))} %`;

export function goalOf(slo: Pick<ResolvedSlo, 'minutes' | 'requests'>, margin = BUDGET_MARGIN): Goal {
  const maxViolationRatio = (1 - slo.minutes) * (1 - margin);
  const requests = slo.requests;
  const maxRequests = requests === undefined ? undefined : (1 - requests) * (1 - margin);
  const held = maxRequests === undefined ? '' : ` and ${pct(1 - maxRequests)} of requests`;
  return {
    objective: { minutes: slo.minutes, ...(requests !== undefined ? { requests } : {}) },
    margin,
    maxViolationRatio,
    ...(maxRequests !== undefined ? { maxRequestsViolationRatio: maxRequests } : {}),
    source: `at least ${pct(1 - maxViolationRatio)} of minutes${held} within the SLO in each fold of the training part (the objective plus ${pct(margin)} of its error budget)`,
  };
}

/**
 * How far a fold is from the goal: its worst use of the allowed budget (1: exactly at the goal,
 * 2: twice over it). 0.0001 stands in for a zero allowance so a margin of 1 still ranks.
 */
function foldLoad(f: Fold, goal: Goal): number {
  const minutes = f.violationRatio / Math.max(goal.maxViolationRatio, 1e-4);
  if (goal.maxRequestsViolationRatio === undefined) return minutes;
  return Math.max(minutes, f.requestsViolationRatio / Math.max(goal.maxRequestsViolationRatio, 1e-4));
}

/** The worst fold's share of its allowance: at most 1 is feasible. */
export const worstFold = (f: Figures, goal: Goal): number => maxOf(f.folds.map((x) => foldLoad(x, goal)));

/** Whether a candidate holds the goal in every fold. */
export function feasible(f: Figures, goal: Goal): boolean {
  return f.folds.every(
    (x) =>
      x.violationRatio <= goal.maxViolationRatio &&
      (goal.maxRequestsViolationRatio === undefined ||
        x.requestsViolationRatio <= goal.maxRequestsViolationRatio),
  );
}

/**
 * Orders candidates, best first: feasible before not; feasible by cost; the rest by how far
 * their worst fold is over the goal, then by violation minutes and cost (the closest miss first).
 */
export function compare(a: Figures, b: Figures, goal: Goal): number {
  const fa = feasible(a, goal);
  const fb = feasible(b, goal);
  if (fa !== fb) return fa ? -1 : 1;
  if (fa) return a.instanceMinutes - b.instanceMinutes || a.violationMinutes - b.violationMinutes;
  return (
    worstFold(a, goal) - worstFold(b, goal) ||
    a.violationMinutes - b.violationMinutes ||
    a.instanceMinutes - b.instanceMinutes
  );
}

/** The points no other point beats on both cost and violation minutes (lowest cost first). */
export function paretoFront<T extends { figures: Figures }>(points: readonly T[]): T[] {
  const sorted = [...points].sort(
    (a, b) =>
      a.figures.instanceMinutes - b.figures.instanceMinutes ||
      a.figures.violationMinutes - b.figures.violationMinutes,
  );
  const front: T[] = [];
  let best = Number.POSITIVE_INFINITY;
  for (const p of sorted) {
    if (p.figures.violationMinutes < best) {
      front.push(p);
      best = p.figures.violationMinutes;
    }
  }
  return front;
}
