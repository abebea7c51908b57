/**
 * A batch's Health retirements carried out on their group (../../shared/interruptions/retire.ts
 * planSurge decided which): SetDesiredCapacity raises the group by one for each retiring instance
 * it keeps (the mix function terminates them once replaced, functions/mix/retirements.ts), and
 * TerminateInstanceInAutoScalingGroup without decrementing takes those the MaxSize left no room
 * for. What fails is named per instance, nothing thrown: ./target.ts unmarks them, so the
 * redelivered message acts again.
 */
import type { SpotAction } from '../../shared/interruptions/handle.ts';
import { errorLine } from '../../shared/invocation/errors.ts';
import type { Managed, SpotEventsDeps } from './types.ts';

export interface RetireOutcome {
  /** Raised for, or terminated (or already gone): handled. */
  done: string[];
  failed: { instanceIds: string[]; error: string }[];
}

export async function actRetire(
  deps: SpotEventsDeps,
  m: Managed,
  a: Extract<SpotAction, { kind: 'retire' }>,
): Promise<RetireOutcome> {
  const out: RetireOutcome = { done: [], failed: [] };
  if (a.surged.length > 0) {
    try {
      const set = await deps.ports.capacity.setDesiredCapacity(m.region, a.groupName, a.desired);
      if (set.status === 'busy') throw new Error(set.message);
      // spread-ok: one event's retirements, at most the Health disruption budget
      out.done.push(...a.surged);
    } catch (e) {
      out.failed.push({
        instanceIds: a.surged,
        error: `autoscaling:SetDesiredCapacity ${a.desired} on group ${a.groupName} in ${m.region} failed (${errorLine(e)}); check the role has autoscaling:SetDesiredCapacity granted on autoScalingGroupName/${a.groupName}`,
      });
    }
  }
  for (const id of a.terminateNow) {
    try {
      await deps.ports.retirements.terminate(m.region, a.groupName, id, false);
      out.done.push(id);
    } catch (e) {
      out.failed.push({ instanceIds: [id], error: errorLine(e) });
    }
  }
  return out;
}
