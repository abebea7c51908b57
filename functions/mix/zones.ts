/**
 * The Availability Zones a target's spot is planned over (issue 22, item 3: a spot pool is an
 * instance type in one zone). capacityMix.zones when the policy lists them (the adapter refuses a
 * plan spread over a zone the group does not run in, shared/aws/mixed-instances.ts); otherwise the
 * group's own AvailabilityZones, read (DescribeAutoScalingGroups) before planning, so the loss
 * cover is sized on the spread AWS really gives the group: with nine pools over three zones it
 * covers the largest one, a ninth of the spot, where a pool per type across the zones (the plan
 * without zones) covers a third. A read that fails keeps the zones of the plan in force; with
 * none (no plan yet, or a plan by type), or a group that names no zone: planned as before, a pool
 * per type (conservative), and the record says why. A plan whose zones the group has left is
 * re-planned at once (PoolsChanged, shared/mix/plan.ts). SageMaker targets and targets
 * without spot have no pools to spread: nothing is read.
 */
import type { GroupMixSettings } from '../../shared/aws/mixed-instances.ts';
import { errorLine } from '../../shared/invocation/errors.ts';
import { zonedAsPlanned } from '../../shared/mix/pools.ts';
import type { MixPlan, MixPolicy } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { MixRunContext, ZonesUsed } from './record.ts';

/** The zones for a policy without capacityMix.zones, from the group's read (pure). */
export function zonesFromGroup(group: readonly string[] | Error, groupName: string): ZonesUsed {
  if (group instanceof Error)
    return {
      source: 'types',
      zones: null,
      detail: `the zones of ${groupName} are unreadable (${group.message}): planned with a pool per type across its zones, the larger loss cover`,
    };
  const zones = [...new Set(group)].sort();
  if (zones.length === 0)
    return {
      source: 'types',
      zones: null,
      detail: `${groupName} names no Availability Zone: planned with a pool per type across its zones`,
    };
  return {
    source: 'group',
    zones,
    detail: `spot planned over the zones ${groupName} runs in (${zones.join(', ')}), read from the group: capacityMix.zones is not set`,
  };
}

/**
 * The planner's policy spread over the zones used, which they were, and the group as read (the
 * apply reuses it: one Describe per run); null: no spot to spread.
 */
export async function withGroupZones(
  ctx: MixRunContext,
  t: TargetPolicy,
  policy: MixPolicy,
  held: MixPlan | null,
): Promise<{ policy: MixPolicy; zones: ZonesUsed; group?: GroupMixSettings } | null> {
  if (t.kind !== 'ec2-asg' || !policy.mix.spot) return null;
  if (policy.mix.zones && policy.mix.zones.length > 0)
    return {
      policy,
      zones: {
        source: 'policy',
        zones: [...policy.mix.zones],
        detail: `spot planned over capacityMix.zones (${policy.mix.zones.join(', ')})`,
      },
    };
  const group = await ctx.ports.groups
    .current(t.region, t.autoScalingGroupName)
    .catch((e: unknown) => new Error(errorLine(e)));
  const read = group instanceof Error ? {} : { group };
  // A failed read keeps the zones of the plan in force: one throttled Describe is no reason to
  // re-plan by type (and back at the next run).
  const asPlanned = group instanceof Error ? zonedAsPlanned(policy, held) : policy;
  const kept = asPlanned.mix.zones;
  if (group instanceof Error && kept)
    return {
      policy: asPlanned,
      zones: {
        source: 'plan',
        zones: [...kept],
        detail: `the zones of ${t.autoScalingGroupName} are unreadable (${group.message}): planned over the zones of the plan in force (${kept.join(', ')})`,
      },
    };
  const zones = zonesFromGroup(
    group instanceof Error ? group : (group.availabilityZones ?? []),
    t.autoScalingGroupName,
  );
  if (!zones.zones) return { policy, zones, ...read };
  return { policy: { ...policy, mix: { ...policy.mix, zones: zones.zones } }, zones, ...read };
}
