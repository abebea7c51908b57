/**
 * The Health disruption budget in front of a target's events (issue 18): in active mode,
 * retirements beyond healthDisruptionBudget, less the group's shortfall or its retirements still
 * in flight, are held, their messages returned for SQS to redeliver, and the rest go on
 * (./target.ts) with the group as read, which their surge starts from. The rule and its worked
 * example are in ../../shared/interruptions/retire.ts.
 */
import { clip } from '../../shared/events/bounded.ts';
import { describeHold, judgeHealthBudget } from '../../shared/interruptions/retire.ts';
import { errorLine } from '../../shared/invocation/errors.ts';
import { emptyReport, handleEvents, type TargetStep } from './target.ts';

/**
 * One target's events. In active mode, retirements beyond the Health disruption budget
 * (../../shared/interruptions/retire.ts) are held first: their messages come back through SQS.
 */
export const handleTarget: TargetStep = async (deps, m, tagged, start, now, killedBy) => {
  const active = deps.config.GOVERNOR_MODE !== 'shadow' && !killedBy;
  if (!active || !tagged.some((t) => t.event.kind === 'retirement'))
    return handleEvents(deps, m, tagged, start, now, killedBy);
  const budget = m.policy.mix.interruptions.healthDisruptionBudget;
  const group = await deps.ports.groups.health(m.region, m.groupName).catch((e: unknown) => {
    deps.telemetry.error(`spot ${m.policy.targetId}: ${clip(errorLine(e))}`, { targetId: m.policy.targetId });
    return null;
  });
  // Retirements of this group still in flight (raised for, not yet terminated) count against the budget.
  const retiring = Object.entries(start.spot?.retiring ?? {})
    .filter(([, x]) => x.group === m.groupName)
    .map(([id]) => id);
  const j = judgeHealthBudget(
    tagged.map((t) => t.event),
    budget,
    group,
    retiring,
  );
  const held = new Set(j.held);
  const heldMessages = [...new Set(tagged.filter((t) => held.has(t.event)).map((t) => t.messageId))];
  if (held.size > 0)
    deps.telemetry.decision({
      kind: 'hold',
      targetId: m.policy.targetId,
      groupName: clip(m.groupName),
      at: new Date(now).toISOString(),
      outcome: 'applied',
      reasons: ['HealthBudgetHeld'],
      message: describeHold(
        j,
        budget,
        [...new Set(j.held.map((e) => (e as { instanceId: string }).instanceId))],
        retiring,
      ),
    });
  const rest = tagged.filter((t) => !held.has(t.event));
  const report =
    rest.length > 0
      ? await handleEvents(deps, m, rest, start, now, killedBy, group)
      : { ...emptyReport(m.policy.targetId, 'applied'), detail: 'every retirement held by the budget' };
  report.failedMessages = [...new Set([...report.failedMessages, ...heldMessages])];
  return report;
};
