/**
 * Retirements in flight, finished by the mix function every 5 minutes (issue 18: a retired
 * instance is terminated once its replacement serves). The spot-events function raised the group
 * by one for each retiring instance and recorded it in the target's item (spot.retiring); this
 * run reads each such group back, decides (../../shared/interruptions/retirements.ts) and acts:
 *  1. Read: DescribeAutoScalingGroups of each group named (only when something is retiring: a
 *     target with nothing retiring costs no call). A group that cannot be read waits.
 *  2. Act (active, kill switch off): TerminateInstanceInAutoScalingGroup with
 *     ShouldDecrementDesiredCapacity=true for each instance whose group serves without it. An
 *     instance AWS finds in no group is 'gone', as wanted. A refused call keeps its entry: the
 *     next run tries again.
 *  3. Clear: the entries terminated or gone, removed from the item re-read now (this run's mix
 *     step may have written it), on condition of its version; on conflict re-read and redo once.
 *     A write that does not land loses nothing: the next run finds the instances terminating or
 *     gone (the group is the truth) and clears them then, calling nothing.
 * Shadow mode and the kill switch: read and decide, nothing terminated or cleared. Overdue
 * retirements (RETIREMENT_OVERDUE_MS) are counted every run (RetirementsOverdue, the template's
 * retirements-overdue alarm), in every mode.
 */
import type { StoredMixItem } from '../../shared/aws/mix-item.ts';
import { clip } from '../../shared/events/bounded.ts';
import { planRetirements, type RetirementGroup } from '../../shared/interruptions/retirements.ts';
import { clearRetiring } from '../../shared/interruptions/state.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { MixRunContext, RetirementRecord } from './record.ts';

const PUT_ATTEMPTS = 2;

/** The target's retirements in flight, reconciled; null when it has none (no call made). */
export async function reconcileRetirements(
  ctx: MixRunContext,
  t: TargetPolicy,
  stored: StoredMixItem | null,
): Promise<RetirementRecord | null> {
  const retiring = stored?.spot?.retiring ?? {};
  if (t.kind !== 'ec2-asg' || Object.keys(retiring).length === 0) return null;
  const failed: string[] = [];
  // The adapter's lines name the action, the group and the grant already (its AWS message cut
  // at 300 characters): no class name before them, and not clipped to an event field's 200.
  const line = (e: unknown) => (e instanceof Error ? e.message.split('\n')[0]! : String(e)).slice(0, 1_000);
  const groups = new Map<string, RetirementGroup | null>();
  for (const name of new Set(Object.values(retiring).map((x) => x.group))) {
    try {
      groups.set(name, await ctx.ports.retirements.read(t.region, name));
    } catch (e) {
      failed.push(line(e));
    }
  }
  const plan = planRetirements(retiring, groups, ctx.now);
  const acting = ctx.withheld === null;
  const terminated: string[] = [];
  const cleared = acting ? [...plan.gone] : [];
  for (const x of acting ? plan.terminate : []) {
    try {
      const out = await ctx.ports.retirements.terminate(t.region, x.group, x.instanceId, true);
      (out === 'terminated' ? terminated : cleared).push(x.instanceId);
    } catch (e) {
      failed.push(line(e));
    }
  }
  const done = [...terminated, ...cleared];
  const withheld = acting
    ? ''
    : ` Nothing terminated or cleared: ${ctx.withheld === 'shadow' ? 'shadow mode' : 'the kill switch is on'}.`;
  return {
    reasons: plan.reasons,
    message:
      plan.message +
      withheld +
      (failed.length > 0 ? ` ${failed.length} calls failed: the next run tries again.` : ''),
    terminated,
    cleared,
    waiting: plan.waiting,
    overdue: plan.overdue,
    failed,
    stored: done.length > 0 ? await clearStored(ctx, t.id, done) : 'unchanged',
  };
}

/** Step 3: the done entries out of the item as it is now, on its version; redone once on conflict. */
async function clearStored(ctx: MixRunContext, targetId: string, done: string[]): Promise<string> {
  try {
    for (let attempt = 1; attempt <= PUT_ATTEMPTS; attempt++) {
      const now = await ctx.ports.items.get(targetId);
      if (!now?.spot) return 'unchanged';
      const next = { state: now.state, spot: clearRetiring(now.spot, done) };
      if ((await ctx.ports.items.put(targetId, next, now.version)) === 'written') return 'written';
    }
    return 'conflict: the next run clears them (the group shows them gone)';
  } catch (e) {
    return `not written (${clip(errorText(e))}): the next run clears them (the group shows them gone)`;
  }
}
