/**
 * The failover evaluation's records beside the planner: the decision record of one group and one
 * evaluation (what the planner decided, what the reconciliation saw and did, the outcome), and
 * the input of a redo.
 */
import { clip } from '../../shared/events/bounded.ts';
import { baseWeights, type ResolvedGroup } from '../../shared/failover/group.ts';
import { redoInput } from '../../shared/failover/machine-input.ts';
import { describeReconcile, type ReconcileAct } from '../../shared/failover/reconcile.ts';
import { risingRegions } from '../../shared/failover/truth.ts';
import type { FailoverState, FailoverStepResult } from '../../shared/failover/types.ts';
import { inputOf, type Memory, type Observed, type Settlement } from './reconcile.ts';

export interface RecordArgs {
  g: ResolvedGroup;
  at: string;
  decisionId: string;
  mode: string;
  outcome: string;
  prev: FailoverState;
  settled: Settlement;
  result: FailoverStepResult;
  seen: Observed | null;
  memory: Memory;
  detail: string;
  expiresAt: number;
}

/** One decision record (sk DECISION#<at>#<id>): the planner's reasons first when it planned, else the reconciliation's. */
export function decisionRecord(a: RecordArgs) {
  const { g, at, decisionId, mode, outcome, prev, settled, result, seen, memory, detail, expiresAt } = a;
  const reasons =
    settled.act === 'plan'
      ? [...result.decision.reasons, ...(seen ? [seen.verdict.reason] : [])]
      : [seen!.verdict.reason];
  const message =
    settled.act === 'plan'
      ? result.decision.message
      : `${g.id} (${settled.next.phase}): ${describeReconcile(seen!.verdict, memory.attempts, seen!.drifted)}.`;
  return {
    pk: `FAILOVER#${g.id}`,
    sk: `DECISION#${at}#${decisionId}`,
    decisionId,
    groupId: g.id,
    at,
    mode,
    outcome,
    phase: settled.next.phase,
    previousPhase: prev.phase,
    reasons,
    message,
    weights: settled.next.weights,
    actions: outcome === 'started' ? result.actions : [],
    planned: result.actions,
    health: Object.fromEntries(
      Object.entries(result.decision.health).map(([r, h]) => [
        r,
        { status: h.status, reasons: h.reasons, message: clip(h.message) },
      ]),
    ),
    ...(seen
      ? {
          routing: {
            seen: clip(seen.truthText),
            execution: seen.last.status,
            outcome: seen.last.outcome,
            driftMinutes: seen.verdict.driftMinutes,
            attempts: memory.attempts,
          },
        }
      : {}),
    detail,
    expiresAt,
  };
}

/** The input of a redo: the lost or failed execution's own, renamed, or one step to the intent. */
export function redoOf(
  act: ReconcileAct,
  memory: Memory,
  decisionId: string,
  g: ResolvedGroup,
  intent: FailoverState,
  seen: Observed,
  killSwitchValue: string,
  now: number,
  expiresAt: number,
): Record<string, unknown> {
  const kept = inputOf(memory);
  if (act === 'redo-execution' && kept !== null)
    return {
      ...kept,
      decisionId,
      killSwitchValue,
    };
  return redoInput({
    decisionId,
    group: g,
    intent: intent.weights,
    rising: seen.truth === null ? [] : risingRegions(intent.weights, baseWeights(g), seen.truth),
    detail: `redo: ${describeReconcile(seen.verdict, memory.attempts + 1, seen.drifted)}`,
    killSwitchValue,
    now,
    expiresAt,
  });
}
