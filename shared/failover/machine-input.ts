/**
 * The failover state machine's input (statemachines/failover.asl.json) from one planner step's
 * actions. Pure. The planner paces the move (one step per period, checkMinutes between steps);
 * an execution carries that period's actions: a prescale and its bounded wait, or one routing
 * step with its check and its rollback (the weights before it), or the planner's alarm. A redo
 * (./reconcile.ts) is one step to the planner's intent.
 */

import type { TargetPolicy } from '../policy/schema.ts';
import type { ResolvedGroup } from './group.ts';
import { routingAction } from './routing.ts';
import type { FailoverAction, FailoverDecision, Weights } from './types.ts';

/** The readiness wait: prescaleTimeoutMinutes of 30 s checks. 10 min -> 20 checks. */
export const READY_POLL_SECONDS = 30;

export interface FailoverInputArgs {
  decisionId: string;
  group: ResolvedGroup;
  targets: readonly TargetPolicy[];
  decision: FailoverDecision;
  actions: readonly FailoverAction[];
  /** The weights in force before this step (the rollback). */
  previousWeights: Weights;
  killSwitchValue: string;
  now: number;
  expiresAt: number;
}

/** The names the act function changes a target by (functions/failover/act.ts TargetRef). */
export const targetRef = (t: TargetPolicy | undefined) =>
  t?.kind === 'sagemaker-variant'
    ? { kind: t.kind, endpointName: t.endpointName, variantName: t.variantName }
    : t?.kind === 'sagemaker-inference-component'
      ? { kind: t.kind, endpointName: t.endpointName, inferenceComponentName: t.inferenceComponentName }
      : t?.kind === 'ec2-asg'
        ? { kind: t.kind, autoScalingGroupName: t.autoScalingGroupName }
        : null;

/** True when the actions need the state machine (anything at all: routing, prescale, alarm). */
export const needsExecution = (actions: readonly FailoverAction[]) => actions.length > 0;

export function failoverInput(a: FailoverInputArgs): Record<string, unknown> {
  const { group } = a;
  const base = Object.fromEntries(group.members.map((m) => [m.region, m.baseWeight]));
  const prescale = a.actions.flatMap((x) =>
    x.kind === 'prescale'
      ? [
          {
            targetId: x.targetId,
            region: x.region,
            desired: x.desired,
            target: targetRef(a.targets.find((t) => t.id === x.targetId)),
          },
        ]
      : [],
  );
  // A rollback is judged by the regions traffic returns to, and never itself rolled back: rolling
  // it back would send traffic again onto the region that just breached (issue 18: every region
  // failing mid-shift re-rolled 100/0 to 90/10). Its check is recorded; the planner decides next.
  const backward = a.decision.reasons.includes('ShiftRolledBack');
  const steps = a.actions.flatMap((x) =>
    x.kind === 'set-weights' || x.kind === 'set-routing-controls' || x.kind === 'set-dials'
      ? [
          backward
            ? { action: x }
            : { action: x, rollback: routingAction(group.routing.kind, group.id, a.previousWeights, base) },
        ]
      : [],
  );
  const alarm = a.actions.find((x) => x.kind === 'alarm');
  const gaining = Object.entries(a.decision.weights)
    .filter(([r, w]) => w > (a.previousWeights[r] ?? 0))
    .map(([r]) => r);
  return {
    ...common(a.decisionId, group, a.now, a.expiresAt, a.killSwitchValue, gaining, a.decision.message),
    prescale,
    prescaleDetail: a.decision.message,
    steps,
    ...(alarm ? { alarm: { message: alarm.message } } : {}),
  };
}

function common(
  decisionId: string,
  group: ResolvedGroup,
  now: number,
  expiresAt: number,
  killSwitchValue: string,
  checked: readonly string[],
  detail: string,
) {
  return {
    decisionId,
    groupId: group.id,
    requestedAt: new Date(now).toISOString(),
    expiresAt,
    killSwitchValue,
    routing: group.routing,
    readyPolls: Math.ceil((group.shift.prescaleTimeoutMinutes * 60) / READY_POLL_SECONDS),
    check: {
      regions: [...checked],
      targets: group.members.filter((m) => checked.includes(m.region)).map((m) => m.targetId),
      waitSeconds: 60,
      errorRatePercent: group.health.errorRatePercent,
      ...(group.health.p95LatencyMs !== undefined ? { p95LatencyMs: group.health.p95LatencyMs } : {}),
      staleAfterSeconds: group.health.staleAfterSeconds,
    },
    finishedDetail: detail,
  };
}

export interface RedoInputArgs {
  decisionId: string;
  group: ResolvedGroup;
  /** The planner's intent, which the routing does not hold. */
  intent: Weights;
  /** Regions the intent sends more than the routing does (./truth.ts risingRegions): checked after. */
  rising: readonly string[];
  detail: string;
  killSwitchValue: string;
  now: number;
  expiresAt: number;
}

/**
 * A redo of the routing (./reconcile.ts, RoutingRedo): one step to the intent, checked on the
 * regions it raises, with no rollback (the intent is the planner's: a regression is recorded and
 * the next evaluation decides) and no prescale.
 */
export function redoInput(a: RedoInputArgs): Record<string, unknown> {
  const base = Object.fromEntries(a.group.members.map((m) => [m.region, m.baseWeight]));
  const action = routingAction(a.group.routing.kind, a.group.id, a.intent, base);
  return {
    ...common(a.decisionId, a.group, a.now, a.expiresAt, a.killSwitchValue, a.rising, a.detail),
    prescale: [],
    prescaleDetail: a.detail,
    steps: [{ action }],
  };
}
