/**
 * Reconcile, don't remember (issue 18, item 1): what one evaluation does about the difference
 * between the planner's intent (the weights it stored) and the routing as read back, given how
 * the newest execution for the group ended. Pure; the shell (functions/failover/reconcile.ts)
 * reads the routing and the execution, and applies the verdict.
 *
 *   kill switch on                      -> hold (nothing changes, no drift is counted); a killed
 *                                          execution first puts the planner back where it was
 *                                          before that decision (rebase: where the routing is)
 *   routing differs, execution running  -> hold (ExecutionInFlight): its step may still land
 *   routing differs, execution killed   -> rebase (RebasedToRouting): the step was never made
 *     or rolled back by its check
 *   routing differs, otherwise          -> redo (RoutingRedo / ExecutionRedo), at most
 *                                          MAX_REDO_ATTEMPTS times, then hold (RedoExhausted)
 *                                          while the RoutingDrift metric rises to its alarm
 *   routing agrees (or cannot be read)  -> plan as usual; a lost or failed execution that carried
 *                                          a prescale or an alarm is redone first
 * The planner never takes a step forward on routing it has not seen land: while the routing
 * differs it holds, except that its own rollback (ShiftRolledBack) may supersede a redo (the shell
 * decides that, it needs the planner's result).
 *
 * Bounded: with evaluations a minute apart, 3 redos take 3 evaluations; the 4th sees 3 minutes of
 * drift, and the RoutingDrift alarm (>= DRIFT_ALARM_MINUTES, template.yaml) pages
 * (tests/failover/reconcile.test.ts pins the table, tests/statemachines/failover-races.test.ts the
 * races end to end).
 */
import type { FailoverRoutingKind } from '../policy/failover-schema.ts';
import { inSync, type RoutingTruth } from './truth.ts';
import type { Weights } from './types.ts';

export const MAX_REDO_ATTEMPTS = 3;
/** Minutes of disagreement the RoutingDrift alarm fires at: MAX_REDO_ATTEMPTS evaluations a minute apart. */
export const DRIFT_ALARM_MINUTES = 3;

export const EXECUTION_STATUSES = ['none', 'running', 'succeeded', 'failed', 'lost', 'unreadable'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** The newest execution for the group: its status and, once it succeeded, the outcome it reported. */
export interface LastExecution {
  status: ExecutionStatus;
  /** finished, halted, killed, rolled-back, returned-unhealthy, superseded (statemachines/failover.asl.json). */
  outcome: string | null;
}

export const RECONCILE_REASON_CODES = [
  'RoutingInSync',
  'RoutingUnreadable',
  'ExecutionInFlight',
  'RoutingRedo',
  'ExecutionRedo',
  'RedoExhausted',
  'RebasedToRouting',
  'KillSwitchHold',
] as const;
export type ReconcileReasonCode = (typeof RECONCILE_REASON_CODES)[number];

export type ReconcileAct = 'plan' | 'hold' | 'rebase' | 'redo-execution' | 'redo-routing';

export interface ReconcileArgs {
  kind: FailoverRoutingKind;
  intent: Weights;
  base: Weights;
  /** Null: the routing could not be read this evaluation. */
  truth: RoutingTruth | null;
  last: LastExecution;
  /** The newest execution's input is kept (it can be started again). */
  hasInput: boolean;
  /** That input carries work besides routing: a prescale or the planner's alarm. */
  carriesWork: boolean;
  /** The planner's state before the newest execution's decision is kept (it can be restored). */
  hasPrior: boolean;
  killed: boolean;
  attempts: number;
  driftSince: number | null;
  now: number;
}

export interface ReconcileVerdict {
  act: ReconcileAct;
  reason: ReconcileReasonCode;
  /** True / false when the routing was read, null when it could not be. */
  inSync: boolean | null;
  driftSince: number | null;
  /** The RoutingDrift metric: minutes intent and routing have disagreed (0 in sync); null: not read. */
  driftMinutes: number | null;
}

export function reconcile(a: ReconcileArgs): ReconcileVerdict {
  const synced = a.truth === null ? null : inSync(a.intent, a.base, a.truth);
  const driftSince =
    a.killed || synced === true ? null : synced === null ? a.driftSince : (a.driftSince ?? a.now);
  const driftMinutes =
    synced === null ? null : driftSince === null ? 0 : Math.round((a.now - driftSince) / 6_000) / 10;
  const verdict = (act: ReconcileAct, reason: ReconcileReasonCode): ReconcileVerdict => ({
    act,
    reason,
    inSync: synced,
    driftSince,
    driftMinutes,
  });
  const ended = (outcome: string) => a.last.status === 'succeeded' && a.last.outcome === outcome;
  const broke = a.last.status === 'failed' || a.last.status === 'lost';
  if (ended('killed') && a.hasPrior) return verdict('rebase', 'RebasedToRouting');
  if (a.killed) return verdict('hold', 'KillSwitchHold');
  if (synced === false) {
    if (a.last.status === 'running' || a.last.status === 'unreadable')
      return verdict('hold', 'ExecutionInFlight');
    if (ended('rolled-back') && a.hasPrior) return verdict('rebase', 'RebasedToRouting');
    if (a.attempts >= MAX_REDO_ATTEMPTS) return verdict('hold', 'RedoExhausted');
    return broke && a.hasInput
      ? verdict('redo-execution', 'ExecutionRedo')
      : verdict('redo-routing', 'RoutingRedo');
  }
  if (broke && a.carriesWork && a.hasInput && a.attempts < MAX_REDO_ATTEMPTS)
    return verdict('redo-execution', 'ExecutionRedo');
  return verdict('plan', synced === null ? 'RoutingUnreadable' : 'RoutingInSync');
}

/** The one sentence for the decision record, from the verdict and its numbers. */
export function describeReconcile(v: ReconcileVerdict, attempts: number, drifted: string): string {
  const since = v.driftMinutes === null ? '' : ` for ${v.driftMinutes} min`;
  switch (v.reason) {
    case 'RoutingInSync':
      return 'the routing is as the planner intends';
    case 'RoutingUnreadable':
      return 'the routing could not be read: the planner goes on from what it last applied';
    case 'ExecutionInFlight':
      return `the routing differs from the intent (${drifted})${since} while the last execution still runs: waiting for it`;
    case 'RoutingRedo':
    case 'ExecutionRedo':
      return `the routing differs from the intent (${drifted})${since}, or the last execution did not finish its work: redoing it (attempt ${attempts} of ${MAX_REDO_ATTEMPTS})`;
    case 'RedoExhausted':
      return `the routing still differs from the intent (${drifted})${since} after ${MAX_REDO_ATTEMPTS} redos: no more attempts, the RoutingDrift alarm pages at ${DRIFT_ALARM_MINUTES} min`;
    case 'RebasedToRouting':
      return `the last execution changed no routing (killed, or rolled back by its check): the planner goes back to where the routing is (${drifted || 'in sync'})`;
    case 'KillSwitchHold':
      return 'the kill switch is on: nothing is changed or redone, and the planner keeps its phase and weights';
  }
}
