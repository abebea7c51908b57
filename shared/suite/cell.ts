/**
 * One cell of the suite: one trace under one scenario variant, Governor against AWS target
 * tracking (as AWS recommends configuring it), both as ratios to the oracle. Pure: a parsed
 * trace and a policy target in, figures and a verdict out.
 */
import { boundNotes } from '../backtest/bounds.ts';
import { runBacktest } from '../backtest/run.ts';
import { referenceScenario } from '../backtest/scenario.ts';
import type { Trace } from '../backtest/trace.ts';
import type { PolicySummary } from '../backtest/types.ts';
import type { TargetPolicy } from '../policy/schema.ts';
import type { Variant } from './variants.ts';
import { judge, lossReason, type Outcome } from './verdict.ts';

export const GOVERNOR = 'governor';
export const BASELINE = 'aws-target-tracking';

/** One policy's figures in a cell. */
export interface CellFigures {
  instanceMinutes: number;
  costVsOracle: number;
  violationMinutes: number;
  violationRatio: number;
  scalingActions: number;
}

export interface CellResult {
  trace: string;
  variant: string;
  minutes: number;
  governor: CellFigures;
  baseline: CellFigures;
  outcome: Outcome;
  /** Why a loss is one ("costs 3.1 % more"), '' otherwise. */
  reason: string;
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
});

export function runCell(trace: Trace, target: TargetPolicy, variant: Variant): CellResult {
  const options = { ...referenceScenario(target), ...variant.options };
  const result = runBacktest({ trace, target, options, only: [GOVERNOR, BASELINE] });
  const by = (name: string) => {
    const run = result.policies.find((p) => p.summary.name === name);
    if (!run) throw new Error(`the backtest ran no ${name} policy`);
    return run.summary;
  };
  const governor = by(GOVERNOR);
  const baseline = by(BASELINE);
  const outcome = judge(governor, baseline);
  return {
    trace: trace.name,
    variant: variant.id,
    minutes: result.trace.minutes,
    governor: figures(governor),
    baseline: figures(baseline),
    outcome,
    reason: outcome === 'loss' ? lossReason(governor, baseline) : '',
    notes: boundNotes(result, target),
    reasonCounts: governor.reasonCounts ?? {},
  };
}
