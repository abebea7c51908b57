/**
 * One candidate on the training part of a trace: the backtest's governor policy through the
 * real engine, with the look-ahead's forecasts and noise fits shared across candidates (they
 * depend on the history only). Figures as the suite reports them, plus the same per fold of the
 * training part, so a setting that holds the objective one week and breaks it the next shows it.
 */
import { worstWindow } from '../backtest/attainment.ts';
import type { LookaheadFits } from '../backtest/policies/lookahead.ts';
import { runBacktest } from '../backtest/run.ts';
import type { ScenarioOptions } from '../backtest/scenario.ts';
import type { Trace } from '../backtest/trace.ts';
import type { PolicyRun } from '../backtest/types.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import { sloOf } from '../slo/objective.ts';

/** Folds of the training part the figures are also given for. */
export const FOLDS = 3;

export interface Fold {
  costVsOracle: number;
  /** Minutes in violation / minutes of the fold (1 - attainment of minutes); a fold longer than the window: its worst window's. */
  violationRatio: number;
  /** Requests in violating minutes / requests of the fold (1 - attainment of requests); likewise. */
  requestsViolationRatio: number;
}

export interface Figures {
  instanceMinutes: number;
  costVsOracle: number;
  violationMinutes: number;
  violationRatio: number;
  requestsViolationRatio: number;
  scalingActions: number;
  folds: Fold[];
}

/**
 * The folds' figures. A fold longer than the objective's window is judged as the backtest judges
 * a run that long: by its worst window (shared/backtest/attainment.ts), minutes and requests each.
 */
function folds(
  run: PolicyRun,
  oracle: readonly number[],
  demand: readonly number[],
  windowMinutes: number,
): Fold[] {
  const n = oracle.length;
  const violated = new Uint8Array(n);
  const all = run.series.violationMinutes;
  for (const m of all) violated[m] = 1;
  return Array.from({ length: FOLDS }, (_, f) => {
    const from = Math.floor((f * n) / FOLDS);
    const to = Math.floor(((f + 1) * n) / FOLDS);
    let cost = 0;
    let floor = 0;
    let bad = 0;
    let requests = 0;
    let badRequests = 0;
    for (let m = from; m < to; m++) {
      cost += run.series.provisioned[m]!;
      floor += oracle[m]!;
      bad += violated[m]!;
      requests += demand[m]!;
      badRequests += violated[m]! * demand[m]!;
    }
    const costVsOracle = floor > 0 ? cost / floor : 0;
    if (to - from > windowMinutes) {
      const inside = all.filter((m) => m >= from && m < to);
      const worst = worstWindow(
        { violationMinutes: inside, requests: demand, scoreFrom: from, end: to },
        windowMinutes,
      );
      return { costVsOracle, violationRatio: worst.badMinutes, requestsViolationRatio: worst.badRequests };
    }
    return {
      costVsOracle,
      violationRatio: to > from ? bad / (to - from) : 0,
      requestsViolationRatio: requests > 0 ? badRequests / requests : 0,
    };
  });
}

export type Evaluated = 'governor' | 'aws-target-tracking';

export function evaluate(
  trace: Trace,
  target: TargetPolicy,
  options: ScenarioOptions,
  fits: LookaheadFits,
  policy: Evaluated = 'governor',
): Figures {
  const result = runBacktest({ trace, target, options, only: [policy], fits });
  const run = result.policies[0]!;
  const s = run.summary;
  return {
    instanceMinutes: s.instanceMinutes,
    costVsOracle: s.costVsOracle,
    violationMinutes: s.violationMinutes,
    violationRatio: s.violationRatio,
    requestsViolationRatio: s.requestsInViolationRatio,
    scalingActions: s.scalingActions,
    folds: folds(run, result.oracle, result.demand, sloOf(target).windowMinutes),
  };
}
