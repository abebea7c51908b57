/**
 * The MixedInstancesPolicy of an EC2 Auto Scaling group, written from a capacity mix plan
 * (shared/mix, docs/capacity-mix.md "Actuation"). Reads: DescribeAutoScalingGroups and
 * DescribeWarmPool; write: UpdateAutoScalingGroup with only AutoScalingGroupName and the WHOLE
 * MixedInstancesPolicy. The policy is replaced as a unit (a field left out takes its default), so
 * every write carries the group's own launch template and every kept setting; MinSize, MaxSize,
 * DesiredCapacity and everything else are never sent, so they are never changed.
 *
 * Kept from the group: its launch template (id or name, and version as given), each planned
 * type's own LaunchTemplateSpecification and ImageId, and SpotMaxPrice. Dropped: overrides of
 * types the plan does not list. Refused before any write, one line naming the field and the fix:
 * see refusalFor(). Not checkable here: whether the launch template (AMI, architecture, network
 * interfaces) can launch every planned type; AWS answers that at launch, in scaling activities.
 */
import {
  type AutoScalingClient,
  type AutoScalingGroup,
  DescribeAutoScalingGroupsCommand,
  DescribeWarmPoolCommand,
  type LaunchTemplateOverrides,
  type LaunchTemplateSpecification,
  type MixedInstancesPolicy,
  UpdateAutoScalingGroupCommand,
} from '@aws-sdk/client-auto-scaling';
import type { MixPlan } from '../mix/types.ts';
import { MalformedResponseError } from './capacity.ts';
import { errorName } from './clients.ts';

/** What the group has that the write must keep or that decides a refusal. */
export interface GroupMixSettings {
  groupName: string;
  /** The group's launch template, from MixedInstancesPolicy when it has one; null without one. */
  launchTemplate: LaunchTemplateSpecification | null;
  launchConfigurationName: string | null;
  /** The policy in force, as DescribeAutoScalingGroups returns it; null when the group has none. */
  policy: MixedInstancesPolicy | null;
  hasWarmPool: boolean;
  /** The group's Availability Zones (AvailabilityZones); empty when DescribeAutoScalingGroups gave none. */
  availabilityZones?: string[];
}

export type MixApplyResult =
  | { status: 'applied'; policy: MixedInstancesPolicy }
  | { status: 'unchanged' }
  /** Nothing was written: `message` names the field and the fix. */
  | { status: 'refused'; message: string }
  /** AWS refused because the group is mid-update or being deleted: retry next tick. */
  | { status: 'busy'; message: string };

export interface MixedInstancesPort {
  current(region: string, groupName: string): Promise<GroupMixSettings>;
  /** `read`: the group as this run already read it (its zones, before planning), so it is not read twice. */
  apply(region: string, groupName: string, plan: MixPlan, read?: GroupMixSettings): Promise<MixApplyResult>;
}

/** An Auto Scaling call failed after the SDK's retries: one line naming the IAM action and group. */
export class MixedInstancesCallError extends Error {
  override name = 'MixedInstancesCallError';
}

/** DescribeAutoScalingGroups' group to GroupMixSettings (a launch template spec without id and name is malformed). */
export function groupMixSettingsFrom(group: AutoScalingGroup, hasWarmPool: boolean): GroupMixSettings {
  const name = group.AutoScalingGroupName ?? '(unnamed group)';
  const policy = group.MixedInstancesPolicy ?? null;
  const spec = policy?.LaunchTemplate?.LaunchTemplateSpecification ?? group.LaunchTemplate ?? null;
  if (spec && !spec.LaunchTemplateId && !spec.LaunchTemplateName)
    throw new MalformedResponseError(`DescribeAutoScalingGroups ${name} launch template has no id or name`);
  return {
    groupName: name,
    launchTemplate: spec,
    launchConfigurationName: group.LaunchConfigurationName ?? null,
    policy,
    hasWarmPool,
    availabilityZones: group.AvailabilityZones ?? [],
  };
}

/**
 * Zones the plan spread spot over that the group does not run in (issue 22, item 3): the
 * planner's loss cover counts on a spread the group cannot give. Listing fewer of the group's
 * zones is conservative and allowed.
 */
function zonesNotInGroup(current: GroupMixSettings, plan: MixPlan): string[] {
  const group = current.availabilityZones ?? [];
  if (group.length === 0 || !plan.pools) return [];
  const planned = new Set(plan.pools.map((k) => k.split('@')[1]).filter((z): z is string => z !== undefined));
  return [...planned].filter((z) => !group.includes(z)).sort();
}

/** Why the plan cannot be written to this group, in one line, or null. */
export function refusalFor(current: GroupMixSettings, plan: MixPlan): string | null {
  const g = `group ${current.groupName}`;
  if (!current.launchTemplate)
    return `${g} LaunchConfigurationName ${current.launchConfigurationName ?? '(none)'}: a launch configuration cannot mix instance types or purchase options; move the group to a launch template`;
  // PutWarmPool "cannot be called on an Auto Scaling group that has a mixed instances policy or
  // ... requests Spot Instances": the two exclude each other whatever the plan's spot.
  if (current.hasWarmPool)
    return `${g} has a warm pool: AWS refuses a warm pool with a MixedInstancesPolicy; delete the warm pool (DeleteWarmPool) or leave this group out of capacityMix`;
  const strange = zonesNotInGroup(current, plan);
  if (strange.length > 0)
    return `${g} does not run in ${strange.join(', ')} (its AvailabilityZones: ${(current.availabilityZones ?? []).join(', ')}), but capacityMix.zones lists it: the plan's loss cover counts on spot there; list only the group's own zones`;
  if (plan.mixedInstancesPolicy.overrides.length === 0)
    return `plan for ${g}: mixedInstancesPolicy.overrides is empty; capacityMix.pools must list at least one instance type`;
  const old = current.policy;
  if (old?.InstancesDistribution?.DistributionSegments?.length)
    return `${g} InstancesDistribution.DistributionSegments is set: the planner does not model capacity reservations; remove it or leave this group out of capacityMix`;
  for (const o of old?.LaunchTemplate?.Overrides ?? []) {
    if (o.InstanceRequirements)
      return `${g} Overrides[].InstanceRequirements is set: the planner lists instance types, not attributes; replace it with InstanceType overrides`;
    if (o.WeightedCapacity !== undefined && o.WeightedCapacity !== '1')
      return `${g} override ${o.InstanceType} has WeightedCapacity ${o.WeightedCapacity}: the planner counts every type as one instance; remove the weight or use types that serve alike`;
  }
  return null;
}

/** Id or name (AWS takes one, and returns both), and the version only when the group gave one. */
const specOf = (s: LaunchTemplateSpecification): LaunchTemplateSpecification => ({
  ...(s.LaunchTemplateId
    ? { LaunchTemplateId: s.LaunchTemplateId }
    : { LaunchTemplateName: s.LaunchTemplateName }),
  ...(s.Version !== undefined ? { Version: s.Version } : {}),
});

/** A planned type's override, keeping its own launch template and AMI when the group had them. */
function overrideFor(instanceType: string, old: readonly LaunchTemplateOverrides[]): LaunchTemplateOverrides {
  const had = old.find((o) => o.InstanceType === instanceType);
  return {
    InstanceType: instanceType,
    ...(had?.LaunchTemplateSpecification
      ? { LaunchTemplateSpecification: specOf(had.LaunchTemplateSpecification) }
      : {}),
    ...(had?.ImageId ? { ImageId: had.ImageId } : {}),
  };
}

/**
 * The whole MixedInstancesPolicy for `plan` on this group. Pure; call refusalFor() first (a group
 * without a launch template throws here). Overrides in the plan's order: with `prioritized`
 * on-demand that order is the priority, the committed type first.
 */
export function mixedInstancesPolicyFor(current: GroupMixSettings, plan: MixPlan): MixedInstancesPolicy {
  if (!current.launchTemplate) throw new Error(`group ${current.groupName} has no launch template`);
  const m = plan.mixedInstancesPolicy;
  const old = current.policy?.LaunchTemplate?.Overrides ?? [];
  const maxPrice = current.policy?.InstancesDistribution?.SpotMaxPrice;
  return {
    LaunchTemplate: {
      LaunchTemplateSpecification: specOf(current.launchTemplate),
      Overrides: m.overrides.map((o) => overrideFor(o.instanceType, old)),
    },
    InstancesDistribution: {
      OnDemandAllocationStrategy: m.onDemandAllocationStrategy,
      OnDemandBaseCapacity: m.onDemandBaseCapacity,
      OnDemandPercentageAboveBaseCapacity: m.onDemandPercentageAboveBaseCapacity,
      SpotAllocationStrategy: m.spotAllocationStrategy,
      ...(maxPrice ? { SpotMaxPrice: maxPrice } : {}),
    },
  };
}

/**
 * The fields Governor writes, in a fixed shape: two policies that give the same key are the same
 * policy. SpotInstancePools is left out (it applies to lowest-price only), and so is the launch
 * template's name when an id is there (DescribeAutoScalingGroups returns both).
 */
export function policyKey(p: MixedInstancesPolicy | null): string {
  if (!p) return 'null';
  const d = p.InstancesDistribution ?? {};
  const lt = p.LaunchTemplate;
  return JSON.stringify([
    lt?.LaunchTemplateSpecification ? specOf(lt.LaunchTemplateSpecification) : null,
    (lt?.Overrides ?? []).map((o) => [
      o.InstanceType,
      o.LaunchTemplateSpecification ? specOf(o.LaunchTemplateSpecification) : null,
      o.ImageId ?? null,
      o.WeightedCapacity ?? null,
    ]),
    d.OnDemandAllocationStrategy ?? null,
    d.OnDemandBaseCapacity ?? null,
    d.OnDemandPercentageAboveBaseCapacity ?? null,
    d.SpotAllocationStrategy ?? null,
    d.SpotMaxPrice || null,
  ]);
}

const BUSY = new Set(['ScalingActivityInProgressFault', 'ResourceInUseFault']);

/** Runs one call; a failure becomes one line naming the IAM action, the group and what to check. */
async function call<T>(action: string, region: string, group: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (BUSY.has(errorName(error))) throw error;
    const detail = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    const grant = action.includes('Describe')
      ? 'granted on *'
      : `granted on autoScalingGroupName/${group}, with ec2:RunInstances on its launch template (and iam:PassRole if it names an instance profile)`;
    throw new MixedInstancesCallError(
      `autoscaling:${action} on group ${group} in ${region} failed (${errorName(error) || 'error'}: ${detail}); check the role has autoscaling:${action} ${grant}`,
      { cause: error },
    );
  }
}

export function mixedInstancesAdapter(clientFor: (region: string) => AutoScalingClient): MixedInstancesPort {
  const current = async (region: string, groupName: string): Promise<GroupMixSettings> => {
    const client = clientFor(region);
    const out = await call('DescribeAutoScalingGroups', region, groupName, () =>
      client.send(new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: [groupName] })),
    );
    const group = out.AutoScalingGroups?.find((g) => g.AutoScalingGroupName === groupName);
    if (!group)
      throw new MixedInstancesCallError(
        `group ${groupName} not found in ${region}: check autoScalingGroupName and region`,
      );
    const pool = await call('DescribeWarmPool', region, groupName, () =>
      client.send(new DescribeWarmPoolCommand({ AutoScalingGroupName: groupName })),
    );
    return groupMixSettingsFrom(group, pool.WarmPoolConfiguration !== undefined);
  };
  return {
    current,
    async apply(region, groupName, plan, read) {
      const now = read ?? (await current(region, groupName));
      const refusal = refusalFor(now, plan);
      if (refusal) return { status: 'refused', message: refusal };
      const policy = mixedInstancesPolicyFor(now, plan);
      if (policyKey(policy) === policyKey(now.policy)) return { status: 'unchanged' };
      try {
        await call('UpdateAutoScalingGroup', region, groupName, () =>
          clientFor(region).send(
            new UpdateAutoScalingGroupCommand({
              AutoScalingGroupName: groupName,
              MixedInstancesPolicy: policy,
            }),
          ),
        );
      } catch (error) {
        if (BUSY.has(errorName(error))) return { status: 'busy', message: (error as Error).message };
        throw error;
      }
      return { status: 'applied', policy };
    },
  };
}
