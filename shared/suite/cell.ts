/**
 * One cell of the suite: one trace under one scenario variant, Governor judged against the SLO
 * objective and target tracking at its best target (the cheapest of 0.1 .. 1.0 x saturation
 * that meets the objective, shared/backtest/best-target.ts), with target tracking as AWS
 * recommends configuring it (0.5 x saturation) alongside. Pure: a parsed trace and a policy
 * target in, figures and a verdict out.
 */

import type { Objective } from '../backtest/attainment.ts';
import { BEST_TARGET_POLICY } from '../backtest/best-target.ts';
import { boundNotes } from '../backtest/bounds.ts';
import type { LookaheadFits } from '../backtest/policies/lookahead.ts';
import { runBacktest } from '../backtest/run.ts';
import { referenceScenario } from '../backtest/scenario.ts';
import type { Trace } from '../backtest/trace.ts';
import type { PolicySummary } from '../backtest/types.ts';
import type { SloOutcome } from '../backtest/verdict.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import type { Variant } from './variants.ts';
import { judge, type Outcome } from './verdict.ts';

export const GOVERNOR = 'governor';
export const BASELINE = 'aws-target-tracking';

/** One policy's figures in a cell. */
export interface CellFigures {
  instanceMinutes: number;
  costVsOracle: number;
  violationMinutes: number;
  violationRatio: number;
  scalingActions: number;
  /** Share of minutes within the SLO as judged: 1 - violationRatio, or the worst window's on a trace longer than the window. */
  attainment: number;
  meetsObjective: boolean;
}

/** Target tracking at its best target: the cheapest swept target that meets the objective. */
export interface BestFigures extends CellFigures {
  /** The target, x muSat. */
  fraction: number;
}

export interface CellResult {
  trace: string;
  variant: string;
  minutes: number;
  objective: Objective;
  governor: CellFigures;
  /** Target tracking as AWS recommends (0.5 x saturation). */
  baseline: CellFigures;
  /** Target tracking at its best target; null: no swept target meets the objective. */
  best: BestFigures | null;
  /** (target tracking's cost at Governor's attainment - Governor's) / target tracking's; null: no target reaches it. */
  savingAtEqualSlo: number | null;
  /** Won: Governor meets the objective and costs no more than the best target that meets it (or none does). */
  outcome: SloOutcome;
  /** Why a loss is one ("misses the objective: 92.23 % of minutes", "costs 3.1 % more than ..."), '' otherwise. */
  reason: string;
  /** The verdict in one sentence, as the backtest's first line. */
  sentence: string;
  /** Governor against AWS's recommended target by dominance (the suite's rule before the objective). */
  dominance: Outcome;
  /** Lines the backtest would print beside its table (bounds that bound). */
  notes: string[];
  /** Governor's decisions per reason code, for reading a loss. */
  reasonCounts: Partial<Record<string, number>>;
}

const figures = (s: PolicySummary): CellFigures => ({
  instanceMinutes: s.instanceMinutes,
  costVsOracle: s.costVsOracle,
  violationMinutes: s.violationMinutes,
  violationRatio: s.violationRatio,
  scalingActions: s.scalingActions,
  attainment: s.attainment ?? 1 - s.violationRatio,
  meetsObjective: s.meetsObjective ?? false,
});

/**
 * `fits`: forecasts and noise fits shared with the trace's other cells (contentFits: keyed by
 * what they are computed from, so sharing never changes a figure).
 */
export function runCell(
  trace: Trace,
  target: TargetPolicy,
  variant: Variant,
  fits?: LookaheadFits,
): CellResult {
  const options = { ...referenceScenario(target), ...variant.options };
  const result = runBacktest({
    trace,
    target,
    options,
    only: [GOVERNOR, BASELINE, BEST_TARGET_POLICY],
    ...(fits ? { fits } : {}),
  });
  const by = (name: string) => {
    const run = result.policies.find((p) => p.summary.name === name);
    if (!run) throw new Error(`the backtest ran no ${name} policy`);
    return run.summary;
  };
  const governor = by(GOVERNOR);
  const baseline = by(BASELINE);
  const slo = result.slo;
  if (!slo?.verdict) throw new Error('the backtest judged no verdict: it ran no sweep of target tracking');
  const best = slo.best ? { ...figures(by(BEST_TARGET_POLICY)), fraction: slo.best.fraction } : null;
  return {
    trace: trace.name,
    variant: variant.id,
    minutes: result.trace.minutes,
    objective: slo.objective,
    governor: figures(governor),
    baseline: figures(baseline),
    best,
    savingAtEqualSlo: slo.savingAtEqualSlo,
    outcome: slo.verdict.outcome,
    reason: slo.verdict.reason,
    sentence: slo.verdict.sentence,
    dominance: judge(governor, baseline),
    notes: boundNotes(result, target),
    reasonCounts: governor.reasonCounts ?? {},
  };
}
