/**
 * A candidate stopped as soon as it can no longer qualify, or no longer become the best. Judged
 * against the starting policy (./objective.ts feasible), a candidate must be no dearer than it in
 * any fold of the training part and spend no more of a fold's budget than the goal allows there;
 * among those that qualify, the search keeps the one whose saving in the fold where it saves least
 * is largest (./objective.ts compare). A fold's cost and its bad minutes only grow as the run goes
 * on, so once a fold's instance-minutes so far, over the oracle's for the whole fold, pass the
 * starting policy's ratio there, or save less against it than the best candidate so far saves in
 * its worst fold, or its bad minutes (or requests in bad minutes) so far pass the fold's allowance,
 * the candidate is out whatever the rest of the run does. The search keeps neither an infeasible
 * candidate nor one that saves less over the best it has, so stopping one changes no step of the
 * search and no file written; only the Pareto chart loses the points the candidates stopped would
 * have had (`governor tune --full-front` runs every candidate to the end). Each comparison is the
 * one feasible() or worstSaving() makes, on a partial sum that can only grow: a candidate is
 * stopped only if its whole run would be refused or ranked below the best it was sent against.
 *
 * Measured on NASA July (300 candidates, seed 1): 176 candidates could not qualify after the
 * first fold and 67 more after the second (docs/tune.md, "Speed").
 */
import type { StopRule } from '../backtest/simulate.ts';
import { type Fold, foldBounds } from './folds.ts';

/** Why and where a candidate was stopped. */
export interface Stopped {
  /** The fold (0-based) that ruled it out. */
  fold: number;
  /** The last minute simulated. */
  minute: number;
  why: 'dearer' | 'saves-less' | 'minutes' | 'requests';
}

/** What the rule needs of the goal (./objective.ts stopBoundOf): the allowances and the starting policy's folds. */
export interface StopBound {
  /** Bad minutes over a fold's minutes allowed (Goal.maxViolationRatio). */
  maxViolationRatio: number;
  /** Requests in bad minutes over a fold's requests allowed, when the objective has a requests share. */
  maxRequestsViolationRatio?: number;
  /** The starting policy's folds. */
  reference: readonly Fold[];
  /**
   * The best candidate's saving in the fold where it saves least (./objective.ts worstSaving), when
   * the search has one that qualifies: a candidate saving less than that in any fold cannot become
   * the best (the search ranks qualifying candidates by that saving first), so it is stopped too.
   */
  bestSaving?: number;
}

interface FoldLimit {
  from: number;
  to: number;
  /** The oracle's instance-minutes over the whole fold (the cost ratio's denominator). */
  floor: number;
  /** The starting policy's cost over the oracle in the fold. */
  reference: number;
  /** The fold's requests (the requests ratio's denominator). */
  requests: number;
  maxCost: number;
  /** Bad minutes over the fold's length above this: out. None when the fold is judged by its worst window. */
  maxMinutes: number | undefined;
  maxRequests: number | undefined;
}

/**
 * The stop rule for one candidate's run. `stopped()` says where it stopped, or null when it ran
 * to the end. Folds longer than the objective's window are judged by their worst window
 * (./evaluate.ts), which this rule does not follow: there it stops on cost only.
 */
export function foldStop(
  bound: StopBound,
  oracle: readonly number[],
  demand: readonly number[],
  windowMinutes: number,
): { rule: StopRule; stopped: () => Stopped | null } {
  const limits: FoldLimit[] = foldBounds(oracle.length).map(([from, to], i) => {
    const r = bound.reference[i]!;
    let floor = 0;
    let requests = 0;
    for (let m = from; m < to; m++) {
      floor += oracle[m]!;
      requests += demand[m]!;
    }
    const windowed = to - from > windowMinutes;
    const maxReq = bound.maxRequestsViolationRatio;
    return {
      from,
      to,
      floor,
      reference: r.costVsOracle,
      requests,
      maxCost: r.costVsOracle,
      maxMinutes: windowed ? undefined : Math.max(bound.maxViolationRatio, r.violationRatio),
      maxRequests: windowed || maxReq === undefined ? undefined : Math.max(maxReq, r.requestsViolationRatio),
    };
  });
  let fold = 0;
  let cost = 0;
  let bad = 0;
  let badRequests = 0;
  let stopped: Stopped | null = null;
  const bestSaving = bound.bestSaving;
  const rule: StopRule = (minute, provisioned, violated) => {
    while (fold < limits.length && minute >= limits[fold]!.to) {
      fold++;
      cost = 0;
      bad = 0;
      badRequests = 0;
    }
    const f = limits[fold];
    if (!f || minute < f.from) return false;
    cost += provisioned;
    if (violated) {
      bad++;
      badRequests += demand[minute]!;
    }
    const length = f.to - f.from;
    let why: Stopped['why'] | null = null;
    if (f.floor > 0 && cost / f.floor > f.maxCost) why = 'dearer';
    // worstSaving()'s own expression on a cost that can only grow: the saving can only shrink.
    else if (
      bestSaving !== undefined &&
      f.floor > 0 &&
      f.reference > 0 &&
      (f.reference - cost / f.floor) / f.reference < bestSaving
    )
      why = 'saves-less';
    else if (violated && f.maxMinutes !== undefined && bad / length > f.maxMinutes) why = 'minutes';
    else if (
      violated &&
      f.maxRequests !== undefined &&
      f.requests > 0 &&
      badRequests / f.requests > f.maxRequests
    )
      why = 'requests';
    if (why === null) return false;
    stopped = { fold, minute, why };
    return true;
  };
  return { rule, stopped: () => stopped };
}
