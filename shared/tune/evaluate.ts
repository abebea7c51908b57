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
import { foldStop, type StopBound, type Stopped } from './early-stop.ts';
import { type Fold, foldBounds } from './folds.ts';

export interface Figures {
  instanceMinutes: number;
  costVsOracle: number;
  violationMinutes: number;
  violationRatio: number;
  requestsViolationRatio: number;
  scalingActions: number;
  folds: Fold[];
  /**
   * Present when the run was stopped because the candidate could no longer qualify
   * (./early-stop.ts): every figure then covers the minutes up to the stop only.
   */
  stopped?: Stopped;
}

/**
 * The folds' figures. A fold longer than the objective's window is judged as the backtest judges
 * a run that long: by its worst window (shared/backtest/attainment.ts), minutes and requests each.
 * A stopped run's folds count its minutes up to the stop against the whole fold's oracle and
 * requests: what the stop rule compared.
 */
function folds(
  run: PolicyRun,
  oracle: readonly number[],
  demand: readonly number[],
  windowMinutes: number,
): Fold[] {
  const n = oracle.length;
  const end = run.stoppedAt === undefined ? n : run.stoppedAt + 1;
  const violated = new Uint8Array(n);
  const all = run.series.violationMinutes;
  for (const m of all) violated[m] = 1;
  return foldBounds(n).map(([from, to]) => {
    let cost = 0;
    let floor = 0;
    let bad = 0;
    let requests = 0;
    let badRequests = 0;
    for (let m = from; m < to; m++) {
      if (m < end) cost += run.series.provisioned[m]!;
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

/**
 * The candidate's figures on the training part. With a bound (the goal against the starting
 * policy), the run stops as soon as the candidate can no longer qualify (./early-stop.ts).
 */
export function evaluate(
  trace: Trace,
  target: TargetPolicy,
  options: ScenarioOptions,
  fits: LookaheadFits,
  policy: Evaluated = 'governor',
  bound?: StopBound,
): Figures {
  const windowMinutes = sloOf(target).windowMinutes;
  let stop: ReturnType<typeof foldStop> | undefined;
  const result = runBacktest({
    trace,
    target,
    options,
    only: [policy],
    fits,
    ...(bound
      ? {
          stopRule: ({ oracle, demand }) => {
            stop = foldStop(bound, oracle, demand, windowMinutes);
            return stop.rule;
          },
        }
      : {}),
  });
  const run = result.policies[0]!;
  const s = run.summary;
  const stopped = stop?.stopped();
  return {
    instanceMinutes: s.instanceMinutes,
    costVsOracle: s.costVsOracle,
    violationMinutes: s.violationMinutes,
    violationRatio: s.violationRatio,
    requestsViolationRatio: s.requestsInViolationRatio,
    scalingActions: s.scalingActions,
    folds: folds(run, result.oracle, result.demand, windowMinutes),
    ...(stopped ? { stopped } : {}),
  };
}
