/**
 * The disruption budget of AWS Health events, pure (issue 18: one Health event could detach a
 * whole group at once). A scheduled retirement names its instances days ahead, so they are
 * replaced a few at a time, like a Kubernetes PodDisruptionBudget's maxUnavailable:
 *
 *   room = healthDisruptionBudget - shortfall, shortfall = max(0, desired - InService)
 *
 * read back from the group (DescribeAutoScalingGroups) before anything is detached. The first
 * `room` new retirements (by instance id, so a redelivery picks the same ones) are detached; the
 * others are held and their messages come back through SQS, to be judged again once the
 * replacements serve. A group that cannot be read has no room: nothing is detached on a guess.
 * Interruption warnings are never held (two minutes is all AWS gives).
 *
 * Worked example (tests/interruptions/retire.test.ts): budget 2, desired 10, 10 InService, a
 * Health event naming 5: 2 detached, 3 held. Next delivery: 8 InService (replacements booting):
 * shortfall 2, room 0, all held. Then 10 InService: the next 2.
 */
import type { SpotEvent } from './events.ts';

export interface GroupHealth {
  desired: number;
  inService: number;
}

export interface BudgetJudgement {
  /** Events to handle now: every non-retirement, and the retirements within the room. */
  handled: SpotEvent[];
  /** Retirements held back, for redelivery. */
  held: SpotEvent[];
  room: number;
  shortfall: number | null;
}

/** The retirements of one target's batch, judged against the budget and the group as read. */
export function judgeHealthBudget(
  events: readonly SpotEvent[],
  budget: number,
  group: GroupHealth | null,
): BudgetJudgement {
  const shortfall = group ? Math.max(0, group.desired - group.inService) : null;
  const room = shortfall === null ? 0 : Math.max(0, budget - shortfall);
  const instances = [
    ...new Set(events.flatMap((e) => (e.kind === 'retirement' ? [e.instanceId] : []))),
  ].sort();
  const allowed = new Set(instances.slice(0, room));
  const handled: SpotEvent[] = [];
  const held: SpotEvent[] = [];
  for (const e of events) {
    if (e.kind === 'retirement' && !allowed.has(e.instanceId)) held.push(e);
    else handled.push(e);
  }
  return { handled, held, room, shortfall };
}

/** The sentence of a hold: "Held 3 retiring instances of 5 ...". */
export function describeHold(j: BudgetJudgement, budget: number, ids: readonly string[]): string {
  const why =
    j.shortfall === null
      ? 'the group could not be read back, so nothing is detached on a guess'
      : `the group is ${j.shortfall} instances short of its desired capacity and healthDisruptionBudget is ${budget}`;
  const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
  return `Held ${ids.length} retiring instances for later (${shown}): ${why}; their Health event comes back through SQS and they are replaced once the replacements serve`;
}
