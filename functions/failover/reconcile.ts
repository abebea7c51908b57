/**
 * The evaluation's reconciliation (issue 18, item 1), around the pure verdict of
 * shared/failover/reconcile.ts: what the group's item remembers of the newest execution (its
 * decision id, the generation the state machine checks; its input, to start it again; the
 * planner's state before it, to go back to), reading the routing and that execution's end, and
 * settling the planner's next state and what to start.
 */

import { clip } from '../../shared/events/bounded.ts';
import { baseWeights, type ResolvedGroup } from '../../shared/failover/group.ts';
import {
  type LastExecution,
  type ReconcileAct,
  type ReconcileVerdict,
  reconcile,
} from '../../shared/failover/reconcile.ts';
import { describeTruth, driftedRegions, type RoutingTruth } from '../../shared/failover/truth.ts';
import {
  type FailoverState,
  FailoverStateSchema,
  type FailoverStepResult,
} from '../../shared/failover/types.ts';
import { clipped } from './observe.ts';
import type { FailoverPorts } from './ports.ts';

/** What the group's item keeps of the newest execution, beside the planner's state. */
export interface Memory {
  /** The decision id of the newest execution started (the generation), or null. */
  generation: string | null;
  /** That execution's input as JSON, to start it again. */
  generationInput: string | null;
  /** The planner's state before that execution's decision: where a killed one leaves the routing. */
  prior: FailoverState | null;
  attempts: number;
  driftSince: number | null;
}

export const NO_MEMORY: Memory = {
  generation: null,
  generationInput: null,
  prior: null,
  attempts: 0,
  driftSince: null,
};

const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0);

/** The memory fields of a stored item; a malformed field reads as absent. */
export function memoryOf(item: Record<string, unknown> | undefined): Memory {
  if (!item) return NO_MEMORY;
  const prior = FailoverStateSchema.safeParse(item.prior);
  return {
    generation: typeof item.generation === 'string' ? item.generation : null,
    generationInput: typeof item.generationInput === 'string' ? item.generationInput : null,
    prior: prior.success ? prior.data : null,
    attempts: count(item.attempts),
    driftSince:
      typeof item.driftSince === 'number' && Number.isFinite(item.driftSince) ? item.driftSince : null,
  };
}

/** The kept input, or null when there is none or it does not parse (then it cannot be started again). */
export function inputOf(memory: Memory): Record<string, unknown> | null {
  if (memory.generationInput === null) return null;
  try {
    const parsed: unknown = JSON.parse(memory.generationInput);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export interface Observed {
  truth: RoutingTruth | null;
  last: LastExecution;
  verdict: ReconcileVerdict;
  /** 'us-east-1 50, us-west-2 50' or 'unread'. */
  truthText: string;
  drifted: string;
}

/** Reads the routing and the newest execution's end, and judges them against the intent. */
export async function observeRouting(
  ports: Pick<FailoverPorts, 'routing' | 'executions'>,
  stateMachineArn: string,
  g: ResolvedGroup,
  intent: FailoverState,
  memory: Memory,
  killed: boolean,
  now: number,
  log: (message: string) => void,
): Promise<Observed> {
  let truth: RoutingTruth | null = null;
  try {
    truth = await ports.routing.read(
      g.routing,
      g.members.map((m) => m.region),
    );
  } catch (e) {
    log(`${g.id}: the routing could not be read (${clipped(e)})`);
  }
  let last: LastExecution = { status: 'none', outcome: null };
  if (memory.generation !== null) {
    try {
      last = await ports.executions.describe(stateMachineArn, memory.generation);
    } catch (e) {
      log(`${g.id}: execution ${clip(memory.generation, 64)} could not be read (${clipped(e)})`);
      last = { status: 'unreadable', outcome: null };
    }
  }
  const input = inputOf(memory);
  const base = baseWeights(g);
  const verdict = reconcile({
    kind: g.routing.kind,
    intent: intent.weights,
    base,
    truth,
    last,
    hasInput: input !== null,
    carriesWork:
      input !== null &&
      ((Array.isArray(input.prescale) && input.prescale.length > 0) || input.alarm !== undefined),
    hasPrior: memory.prior !== null,
    killed,
    attempts: memory.attempts,
    driftSince: memory.driftSince,
    now,
  });
  const drifted = truth === null ? '' : driftedRegions(intent.weights, base, truth).join(', ');
  return { truth, last, verdict, truthText: truth === null ? 'unread' : describeTruth(truth), drifted };
}

export interface Settlement {
  /** What this evaluation does: the planner's move, a hold, a rebase or a redo. */
  act: ReconcileAct;
  next: FailoverState;
  memory: Omit<Memory, 'generationInput'>;
}

/**
 * The planner's next state and the memory, from the verdict. A rollback the planner decides
 * (ShiftRolledBack) goes ahead of any hold or redo: a safety move is never held back by a step
 * that did not land. Pure.
 */
export function settle(
  verdict: ReconcileVerdict,
  last: LastExecution,
  prev: FailoverState,
  result: FailoverStepResult,
  memory: Memory,
  killed: boolean,
): Settlement {
  const held = { ...prev, health: result.state.health };
  const kept = { ...memory, driftSince: verdict.driftSince };
  const rollback = !killed && result.decision.reasons.includes('ShiftRolledBack');
  const act = verdict.act !== 'plan' && verdict.act !== 'rebase' && rollback ? 'plan' : verdict.act;
  switch (act) {
    case 'rebase':
      return {
        act,
        next: { ...(memory.prior ?? prev), health: result.state.health },
        memory: { ...NO_MEMORY, driftSince: null },
      };
    case 'hold':
      return { act, next: held, memory: kept };
    case 'redo-execution':
    case 'redo-routing':
      return { act, next: held, memory: { ...kept, attempts: memory.attempts + 1 } };
    case 'plan': {
      const settled = verdict.inSync === true && (last.status === 'succeeded' || last.status === 'none');
      return {
        act,
        next: killed ? held : result.state,
        memory: { ...kept, attempts: settled ? 0 : memory.attempts },
      };
    }
  }
}
