/**
 * The disruption budget of AWS Health events, pure (issue 18: one Health event could detach a
 * whole group at once). A scheduled retirement names its instances days ahead, so they are
 * replaced a few at a time, like a Kubernetes PodDisruptionBudget's maxUnavailable:
 *
 *   room = healthDisruptionBudget - max(shortfall, retiring), shortfall = max(0, desired - InService)
 *
 * read back from the group (DescribeAutoScalingGroups) before anything is changed; `retiring` is
 * the target's retirements still in flight (raised for, not yet terminated: ./retirements.ts).
 * The first `room` new retirements (by instance id, so a redelivery picks the same ones) are
 * handled; the others are held and their messages come back through SQS, to be judged again once
 * the retirements before them are done. A group that cannot be read has no room: nothing is
 * changed on a guess. Interruption warnings are never held (two minutes is all AWS gives).
 *
 * Worked example (tests/interruptions/retire.test.ts): budget 2, desired 10, 10 InService, a
 * Health event naming 5: 2 handled (desired raised to 12), 3 held. Next delivery: 10 InService of
 * 12 (replacements booting), 2 retiring: room 0. Replacements serve, the mix function terminates
 * the 2 (desired 10, none retiring): the next 2.
 *
 * How a handled retirement is carried out (planSurge): the group's desired capacity is raised by
 * one for each, up to its MaxSize, so the replacement launches while the retiring instance still
 * serves; the mix function terminates it, decrementing, once the group serves without it. A
 * retirement the MaxSize leaves no room for is terminated at once without decrementing: Auto
 * Scaling replaces it after (a dip of one instance, within the budget, as the detach it replaces).
 */
import type { SpotEvent } from './events.ts';

export interface GroupHealth {
  desired: number;
  inService: number;
  /** The group's MaxSize: the surge stops there. */
  maxSize: number;
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
  group: Pick<GroupHealth, 'desired' | 'inService'> | null,
  retiring: readonly string[] = [],
): BudgetJudgement {
  const shortfall = group ? Math.max(0, group.desired - group.inService) : null;
  const room = shortfall === null ? 0 : Math.max(0, budget - Math.max(shortfall, retiring.length));
  // An instance already retiring takes no room: its event goes on, to be found a duplicate.
  const inFlight = new Set(retiring);
  const instances = [
    ...new Set(
      events.flatMap((e) => (e.kind === 'retirement' && !inFlight.has(e.instanceId) ? [e.instanceId] : [])),
    ),
  ].sort();
  const allowed = new Set([...instances.slice(0, room), ...inFlight]);
  const handled: SpotEvent[] = [];
  const held: SpotEvent[] = [];
  for (const e of events) {
    if (e.kind === 'retirement' && !allowed.has(e.instanceId)) held.push(e);
    else handled.push(e);
  }
  return { handled, held, room, shortfall };
}

/** The sentence of a hold: "Held 3 retiring instances of 5 ...". */
export function describeHold(
  j: BudgetJudgement,
  budget: number,
  ids: readonly string[],
  retiring: readonly string[] = [],
): string {
  const why =
    j.shortfall === null
      ? 'the group could not be read back, so nothing is changed on a guess'
      : `the group is ${j.shortfall} instances short of its desired capacity, ${retiring.length} retirements are still in flight, and healthDisruptionBudget is ${budget}`;
  const shown = ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');
  return `Held ${ids.length} retiring instances for later (${shown}): ${why}; their Health event comes back through SQS and they are replaced once the replacements serve`;
}

/** How a batch's retirements are carried out on their group (see the top comment). */
export interface SurgePlan {
  /** Kept in the group, desired raised by one each: terminated once replaced. */
  surged: string[];
  /** No room under MaxSize: terminated now, Auto Scaling replaces them after. */
  terminateNow: string[];
  /** The group's desired capacity after the surge (its own when nothing is surged). */
  desired: number;
}

/**
 * The retirements raised for and those terminated at once. Worked example
 * (tests/interruptions/retire.test.ts): desired 9, MaxSize 10, 2 retiring: 1 surged (desired 10),
 * 1 terminated now. Ids sorted, so a redelivery splits them the same way.
 */
export function planSurge(
  ids: readonly string[],
  group: Pick<GroupHealth, 'desired' | 'maxSize'>,
): SurgePlan {
  const sorted = [...new Set(ids)].sort();
  const room = Math.max(0, group.maxSize - group.desired);
  const surged = sorted.slice(0, room);
  return { surged, terminateNow: sorted.slice(room), desired: group.desired + surged.length };
}
