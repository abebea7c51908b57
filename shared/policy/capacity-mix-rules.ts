/**
 * Cross-field rules of a target's `capacityMix` section, checked after each field is valid on its
 * own. Each message names the path and the fix; tests/policy/capacity-mix-fixtures.test.ts pins every
 * one through the file in tests/policy/fixtures/capacity-mix/ that breaks it.
 */
import { bandRank } from './capacity-mix-schema.ts';
import { zoneProblems } from './capacity-mix-zones.ts';
import type { TargetPolicy } from './schema.ts';

type Path = (string | number)[];
type Add = (path: Path, message: string) => void;

/** What the committed base costs every hour, USD (its effective rate, else the pool's on-demand). */
export function committedUsdPerHour(mix: NonNullable<TargetPolicy['capacityMix']>): number {
  const { instances, instanceType, usdPerHour } = mix.committed;
  const pool = mix.pools.find((p) => p.instanceType === instanceType);
  return instances * (usdPerHour ?? pool?.onDemandUsdPerHour ?? 0);
}

function poolProblems(t: TargetPolicy, at: Path, add: Add): void {
  const mix = t.capacityMix;
  if (!mix) return;
  const seen = new Map<string, number>();
  mix.pools.forEach((p, i) => {
    const first = seen.get(p.instanceType);
    if (first !== undefined)
      add(
        [...at, 'pools', i, 'instanceType'],
        `repeats ${p.instanceType} (already pools[${first}]): list each type once`,
      );
    seen.set(p.instanceType, i);
    if (!mix.spot) return;
    for (const field of ['spotUsdPerHour', 'interruption'] as const) {
      if (p[field] === undefined)
        add(
          [...at, 'pools', i, field],
          "is required when spot is allowed (price-capacity-optimized may put spot in any listed type): give the type's spot price and Spot Instance Advisor band, or remove the pool",
        );
    }
  });
}

function committedProblems(t: TargetPolicy, at: Path, add: Add): void {
  const mix = t.capacityMix;
  if (!mix) return;
  const c = mix.committed;
  const path = [...at, 'committed'];
  if (c.instances > t.scaling.maxCapacity)
    add(
      [...path, 'instances'],
      `(${c.instances}) is greater than scaling.maxCapacity (${t.scaling.maxCapacity}): instances paid for could never run; raise maxCapacity or commit fewer`,
    );
  if (c.instances > 0 && c.instanceType === undefined)
    add([...path, 'instanceType'], 'is required when instances > 0: name the pool the commitment covers');
  const pool = mix.pools.find((p) => p.instanceType === c.instanceType);
  if (c.instanceType !== undefined && !pool) {
    const types = mix.pools.map((p) => p.instanceType).join(', ');
    add(
      [...path, 'instanceType'],
      `"${c.instanceType}" is not one of the pools: use one of ${types}, or add it`,
    );
  }
  if (mix.spot && pool?.interruption && bandRank(pool.interruption) > bandRank(mix.spot.maxInterruption))
    add(
      [...path, 'instanceType'],
      `${pool.instanceType} is in interruption band ${pool.interruption}, riskier than spot.maxInterruption (${mix.spot.maxInterruption}): the committed type is always listed, so it would receive spot; raise maxInterruption or commit another type`,
    );
  const base = committedUsdPerHour(mix);
  if (mix.maxUsdPerHour !== undefined && mix.maxUsdPerHour < base)
    add(
      [...at, 'maxUsdPerHour'],
      `(${mix.maxUsdPerHour}) is below what the committed base costs every hour (${base.toFixed(2)} USD): the budget could never be met; raise it to at least that`,
    );
}

function fallbackProblems(t: TargetPolicy, at: Path, add: Add): void {
  const fb = t.capacityMix?.variantFallback;
  if (!fb) return;
  const path = [...at, 'variantFallback'];
  if (t.kind !== 'sagemaker-variant') {
    add(
      path,
      `is for sagemaker-variant targets, not ${t.kind}: on an Auto Scaling group list the types in capacityMix.pools, whose MixedInstancesPolicy falls back between them`,
    );
    return;
  }
  const types = t.capacityMix?.pools.map((p) => p.instanceType) ?? [];
  const seen = new Map<string, number>();
  fb.variants.forEach((v, i) => {
    const here = [...path, 'variants', i];
    if (v.variantName === t.variantName)
      add(
        [...here, 'variantName'],
        `"${v.variantName}" is the target's own variant: name another production variant of endpoint ${t.endpointName}`,
      );
    const first = seen.get(v.variantName);
    if (first !== undefined)
      add(
        [...here, 'variantName'],
        `repeats "${v.variantName}" (already variants[${first}]): list each variant once`,
      );
    else seen.set(v.variantName, i);
    if (!types.includes(v.instanceType))
      add(
        [...here, 'instanceType'],
        `"${v.instanceType}" is not one of capacityMix.pools: add it with its price, or use one of ${types.join(', ')}`,
      );
  });
}

/** Every cross-field problem of one field-valid target's capacityMix. */
export function capacityMixProblems(t: TargetPolicy, at: Path, add: Add): void {
  const mix = t.capacityMix;
  if (!mix) return;
  const here = [...at, 'capacityMix'];
  if (mix.spot && t.kind !== 'ec2-asg')
    add(
      [...here, 'spot'],
      `is not available on kind ${t.kind} (SageMaker real-time inference has no spot capacity): remove spot and keep the committed base and on-demand, or serve the burst from an ec2-asg target, whose MixedInstancesPolicy runs spot`,
    );
  // On an ec2-asg target every capacityMix, on-demand only included, is written to the group as
  // a MixedInstancesPolicy (functions/mix applies the plan whatever its spot share), and PutWarmPool
  // "cannot be called on an Auto Scaling group that has a mixed instances policy or a launch
  // template or launch configuration that requests Spot Instances" (AWS's API reference).
  if (t.kind === 'ec2-asg' && t.warmPool?.enabled)
    add(
      [...at, 'warmPool'],
      mix.spot
        ? 'cannot be used with capacityMix.spot: AWS refuses a warm pool on a group whose MixedInstancesPolicy requests spot; remove warmPool, or remove spot'
        : 'cannot be used with capacityMix on an ec2-asg target, even without spot: Governor writes the mix to the group as a MixedInstancesPolicy, and AWS refuses a warm pool on a group that has one (PutWarmPool); remove warmPool (keep warm capacity with the forecast floor), or remove capacityMix',
    );
  if (mix.horizonHours < mix.damping.minHoursBetweenChanges)
    add(
      [...here, 'horizonHours'],
      `(${mix.horizonHours}) is shorter than damping.minHoursBetweenChanges (${mix.damping.minHoursBetweenChanges}): a plan may be held that long, so it must cover it; raise horizonHours or lower minHoursBetweenChanges`,
    );
  const headroom = mix.spot?.overProvision ?? 0;
  if (headroom > 0 && headroom >= t.scaling.maxCapacity)
    add(
      [...here, 'spot', 'overProvision'],
      `(${headroom}) is not below scaling.maxCapacity (${t.scaling.maxCapacity}): the headroom alone would fill the group; hold fewer spot instances or raise maxCapacity`,
    );
  poolProblems(t, here, add);
  committedProblems(t, here, add);
  fallbackProblems(t, here, add);
  zoneProblems(t, here, add);
}
