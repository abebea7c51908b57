/**
 * One evaluation of the error-budget control, as both shells run it (the evaluator every minute
 * in AWS, the governor policy every simulated minute): record the SLI minutes delivered since the
 * last evaluation in the ledger, read the budget, and move the headroom. The ledger is the
 * caller's (the evaluator loads and stores it with the target's state; the backtest keeps one per
 * run): it is the one argument changed; time is an argument.
 */
import type { BudgetStatus } from './budget.ts';
import { budgetStatus } from './budget.ts';
import { controlHeadroom, type HeadroomDecision, type HeadroomState } from './control.ts';
import type { SliLedger, SliSample } from './ledger.ts';
import type { ResolvedSlo } from './objective.ts';

export interface SloStep {
  headroom: HeadroomDecision;
  status: BudgetStatus;
  /** Minutes recorded by this step (redelivered or older minutes are not). */
  recorded: number;
}

/** A minute's SLI from its latency reading: good when within sloMs; none for a missing reading. */
export function sliSample(
  minute: number,
  latencyMs: number,
  sloMs: number,
  requests: number,
): SliSample | null {
  if (!Number.isFinite(latencyMs) || latencyMs < 0) return null;
  return {
    minute,
    good: latencyMs <= sloMs,
    requests: Number.isFinite(requests) && requests > 0 ? requests : 0,
  };
}

export function stepSlo(
  ledger: SliLedger,
  prev: HeadroomState | undefined,
  samples: readonly SliSample[],
  slo: ResolvedSlo & { control: NonNullable<ResolvedSlo['control']> },
  now: number,
): SloStep {
  let recorded = 0;
  let newBad = 0;
  for (const s of samples) {
    if (!ledger.record(s)) continue;
    recorded++;
    if (!s.good) newBad++;
  }
  ledger.advanceTo(Math.floor(now / 60_000));
  const status = budgetStatus(ledger, slo, slo.control.slowWindowMinutes, Math.floor(now / 60_000));
  const headroom = controlHeadroom(prev, { status, newBad, control: slo.control, now });
  return { headroom, status, recorded };
}
