/**
 * Retirements in flight, reconciled against their group, pure (issue 18: a retired instance is
 * terminated once its replacement is in service). The spot-events function raised the group's
 * desired capacity by one for each retiring instance and recorded it (SpotState.retiring,
 * ./retire.ts); the mix function, every 5 minutes, reads each group back and calls this, then
 * acts (functions/mix/retirements.ts). The group is the truth, so a run that failed half way, or
 * whose write was lost, is finished by the next one:
 *
 *  - gone: the instance is no longer in its group, or is leaving it (Terminating*, Detaching,
 *    Detached, Terminated: our own call of a run before, AWS retiring it, a scale-in), or the
 *    group itself is gone: its entry is cleared, nothing called.
 *  - ready: the group serves without its retiring instances, others >= desired - retiring, where
 *    others are its InService instances that are not retiring and retiring those still in it:
 *    terminated with ShouldDecrementDesiredCapacity=true, which takes the surge back, so the
 *    group ends at the size it had before the retirement.
 *  - waiting: not yet (the replacements still launching); overdue once retiring for
 *    RETIREMENT_OVERDUE_MS, reported (RetirementsOverdue, an alarm) and still waited for.
 *
 * Worked example (tests/interruptions/retirements.test.ts): desired 12 after a surge of 2, the
 * 2 retiring and 8 others InService, 2 Pending: 8 < 10, waiting. Once the 2 serve: 10 >= 10,
 * both terminated; desired 10.
 */
import type { Retiring } from './state.ts';

/**
 * How long a retirement may wait for its replacement before it is reported: an hour, four times
 * the 15 minutes a GPU instance is planned to take to serve (replacementLeadTimeMinutes' default)
 * and twelve mix runs. The surge costs one instance for as long as it waits.
 */
export const RETIREMENT_OVERDUE_MS = 60 * 60_000;

/** A group as DescribeAutoScalingGroups gives it: desired capacity, each instance's LifecycleState. */
export interface RetirementGroup {
  desired: number;
  instances: ReadonlyMap<string, string>;
}

export const RETIREMENT_REASON_CODES = [
  /** Its group serves without it: terminated, desired capacity decremented. */
  'RetirementTerminated',
  /** No longer in its group (or leaving it, or the group is gone): cleared, nothing called. */
  'RetirementGone',
  /** The replacements do not serve yet: kept in the group. */
  'RetirementWaiting',
  /** Waiting for longer than RETIREMENT_OVERDUE_MS: reported. */
  'RetirementOverdue',
] as const;
export type RetirementReason = (typeof RETIREMENT_REASON_CODES)[number];

export interface RetirementPlan {
  terminate: { instanceId: string; group: string }[];
  gone: string[];
  waiting: string[];
  overdue: string[];
  reasons: RetirementReason[];
  message: string;
}

/** A LifecycleState on the way out of the group (the API's enum: Terminat*, Detach*, Warmed:Terminat*). */
export const leavingGroup = (state: string): boolean => /^(Warmed:)?(Terminat|Detach)/.test(state);

const list = (ids: readonly string[]) =>
  ids.slice(0, 5).join(', ') + (ids.length > 5 ? ` and ${ids.length - 5} more` : '');

/**
 * What to do with each retirement in flight. `groups`: each group named by an entry, as read;
 * null when DescribeAutoScalingGroups did not find it. A group absent from the map could not be
 * read: its entries wait (they are not overdue for it). Entries are taken in id order.
 */
export function planRetirements(
  retiring: Readonly<Record<string, Retiring>>,
  groups: ReadonlyMap<string, RetirementGroup | null>,
  now: number,
): RetirementPlan {
  const plan: RetirementPlan = {
    terminate: [],
    gone: [],
    waiting: [],
    overdue: [],
    reasons: [],
    message: '',
  };
  const byGroup = new Map<string, string[]>();
  for (const id of Object.keys(retiring).sort()) {
    const g = retiring[id]!.group;
    byGroup.set(g, [...(byGroup.get(g) ?? []), id]);
  }
  for (const [name, ids] of byGroup) {
    const group = groups.get(name);
    if (group === undefined) {
      // spread-ok: a group's retiring ids, at most MAX_RETIRING (1,000, ./state.ts)
      plan.waiting.push(...ids);
      continue;
    }
    const inGroup = group
      ? ids.filter((id) => {
          const state = group.instances.get(id);
          return state !== undefined && !leavingGroup(state);
        })
      : [];
    // spread-ok: a group's retiring ids, at most MAX_RETIRING (1,000, ./state.ts)
    plan.gone.push(...ids.filter((id) => !inGroup.includes(id)));
    if (!group || inGroup.length === 0) continue;
    const others = [...group.instances].filter(
      ([id, state]) => state === 'InService' && !Object.hasOwn(retiring, id),
    ).length;
    const replaced = others >= group.desired - inGroup.length;
    for (const instanceId of inGroup) {
      if (replaced) plan.terminate.push({ instanceId, group: name });
      else {
        plan.waiting.push(instanceId);
        if (now - retiring[instanceId]!.at >= RETIREMENT_OVERDUE_MS) plan.overdue.push(instanceId);
      }
    }
  }
  plan.reasons = [
    ...(plan.terminate.length > 0 ? (['RetirementTerminated'] as const) : []),
    ...(plan.gone.length > 0 ? (['RetirementGone'] as const) : []),
    ...(plan.waiting.length > 0 ? (['RetirementWaiting'] as const) : []),
    ...(plan.overdue.length > 0 ? (['RetirementOverdue'] as const) : []),
  ];
  plan.message = describeRetirements(plan);
  return plan;
}

/** One sentence for the plan: what is terminated, cleared, and still waited for. */
export function describeRetirements(p: Omit<RetirementPlan, 'message'>): string {
  const parts: string[] = [];
  if (p.terminate.length > 0)
    parts.push(
      `Terminating ${p.terminate.length} retiring instances, decrementing desired capacity, since their group serves without them: ${list(p.terminate.map((x) => x.instanceId))}`,
    );
  if (p.gone.length > 0)
    parts.push(`Cleared ${p.gone.length} retirements no longer in their group: ${list(p.gone)}`);
  if (p.waiting.length > 0) {
    const overdue =
      p.overdue.length > 0
        ? `, ${p.overdue.length} of them for over ${RETIREMENT_OVERDUE_MS / 60_000} minutes (${list(p.overdue)}): check the group's scaling activities for launches that fail`
        : '';
    parts.push(
      `Kept ${p.waiting.length} retiring instances in their group until their replacements serve${overdue}`,
    );
  }
  return parts.length > 0 ? `${parts.join('; ')}.` : 'No retirement in flight.';
}
