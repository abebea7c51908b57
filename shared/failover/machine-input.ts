/**
 * The failover state machine's input (statemachines/failover.asl.json) from one planner step's
 * actions. Pure. The planner paces the move (one step per period, checkMinutes between steps);
 * an execution carries that period's actions: a prescale and its bounded wait, or one routing
 * step with its check and its rollback (the weights before it), or the planner's alarm.
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

const targetRef = (t: TargetPolicy | undefined) =>
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
  const steps = a.actions.flatMap((x) =>
    x.kind === 'set-weights' || x.kind === 'set-routing-controls' || x.kind === 'set-dials'
      ? [{ action: x, rollback: routingAction(group.routing.kind, group.id, a.previousWeights, base) }]
      : [],
  );
  const alarm = a.actions.find((x) => x.kind === 'alarm');
  const gaining = Object.entries(a.decision.weights)
    .filter(([r, w]) => w > (a.previousWeights[r] ?? 0))
    .map(([r]) => r);
  return {
    decisionId: a.decisionId,
    groupId: group.id,
    requestedAt: new Date(a.now).toISOString(),
    expiresAt: a.expiresAt,
    killSwitchValue: a.killSwitchValue,
    routing: group.routing,
    prescale,
    prescaleDetail: a.decision.message,
    readyPolls: Math.ceil((group.shift.prescaleTimeoutMinutes * 60) / READY_POLL_SECONDS),
    steps,
    check: {
      regions: gaining,
      targets: group.members.filter((m) => gaining.includes(m.region)).map((m) => m.targetId),
      waitSeconds: 60,
      errorRatePercent: group.health.errorRatePercent,
      ...(group.health.p95LatencyMs !== undefined ? { p95LatencyMs: group.health.p95LatencyMs } : {}),
      staleAfterSeconds: group.health.staleAfterSeconds,
    },
    finishedDetail: a.decision.message,
    ...(alarm ? { alarm: { message: alarm.message } } : {}),
  };
}
