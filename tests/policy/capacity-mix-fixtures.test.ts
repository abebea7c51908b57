/**
 * `governor validate` on the capacity mix fixtures in tests/policy/fixtures/capacity-mix/: each
 * invalid file breaks one rule of shared/policy/capacity-mix-rules.ts (or one field) and gets
 * exactly its line; the valid ones and examples/capacity-mix.yaml pass. Every fixture has a case.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

const DIR = 'tests/policy/fixtures/capacity-mix';

const validate = (file: string) => runCli(['validate', file]);

const VALID = [
  'valid-on-demand-only.yaml',
  'valid-sagemaker-committed.yaml',
  'valid-sagemaker-variant-fallback.yaml',
  'valid-spot-zones.yaml',
];

const INVALID: { file: string; line: string }[] = [
  {
    file: 'invalid-budget-below-committed.yaml',
    line: 'targets[0].capacityMix.maxUsdPerHour (3) is below what the committed base costs every hour (4.85 USD): the budget could never be met; raise it to at least that',
  },
  {
    file: 'invalid-committed-above-max.yaml',
    line: 'targets[0].capacityMix.committed.instances (12) is greater than scaling.maxCapacity (10): instances paid for could never run; raise maxCapacity or commit fewer',
  },
  {
    file: 'invalid-committed-type-not-a-pool.yaml',
    line: 'targets[0].capacityMix.committed.instanceType "g5.4xlarge" is not one of the pools: use one of g5.2xlarge, g6.2xlarge, or add it',
  },
  {
    file: 'invalid-committed-type-too-risky.yaml',
    line: 'targets[0].capacityMix.committed.instanceType g5.2xlarge is in interruption band 5-10%, riskier than spot.maxInterruption (<5%): the committed type is always listed, so it would receive spot; raise maxInterruption or commit another type',
  },
  {
    file: 'invalid-committed-without-type.yaml',
    line: 'targets[0].capacityMix.committed.instanceType is required when instances > 0: name the pool the commitment covers',
  },
  {
    file: 'invalid-duplicate-pool.yaml',
    line: 'targets[0].capacityMix.pools[1].instanceType repeats g5.2xlarge (already pools[0]): list each type once',
  },
  {
    file: 'invalid-fallback-duplicate-variant.yaml',
    line: 'targets[0].capacityMix.variantFallback.variants[1].variantName repeats "g6" (already variants[0]): list each variant once',
  },
  {
    file: 'invalid-fallback-on-group.yaml',
    line: 'targets[0].capacityMix.variantFallback is for sagemaker-variant targets, not ec2-asg: on an Auto Scaling group list the types in capacityMix.pools, whose MixedInstancesPolicy falls back between them',
  },
  {
    file: 'invalid-fallback-own-variant.yaml',
    line: `targets[0].capacityMix.variantFallback.variants[0].variantName "g5" is the target's own variant: name another production variant of endpoint chat`,
  },
  {
    file: 'invalid-fallback-type-not-a-pool.yaml',
    line: 'targets[0].capacityMix.variantFallback.variants[0].instanceType "ml.g4dn.2xlarge" is not one of capacityMix.pools: add it with its price, or use one of ml.g5.2xlarge, ml.g6.2xlarge',
  },
  {
    file: 'invalid-horizon-shorter-than-change-rate.yaml',
    line: 'targets[0].capacityMix.horizonHours (2) is shorter than damping.minHoursBetweenChanges (3): a plan may be held that long, so it must cover it; raise horizonHours or lower minHoursBetweenChanges',
  },
  {
    file: 'invalid-interruption-band.yaml',
    line: 'targets[0].capacityMix.pools[0].interruption must be one of "<5%", "5-10%", "10-15%", "15-20%", ">20%"',
  },
  {
    file: 'invalid-pool-without-spot-price.yaml',
    line: "targets[0].capacityMix.pools[0].spotUsdPerHour is required when spot is allowed (price-capacity-optimized may put spot in any listed type): give the type's spot price and Spot Instance Advisor band, or remove the pool",
  },
  {
    file: 'invalid-spot-on-sagemaker.yaml',
    line: 'targets[0].capacityMix.spot is not available on kind sagemaker-variant (SageMaker real-time inference has no spot capacity): remove spot and keep the committed base and on-demand, or serve the burst from an ec2-asg target, whose MixedInstancesPolicy runs spot',
  },
  {
    file: 'invalid-warm-pool-with-on-demand-mix.yaml',
    line: 'targets[0].warmPool cannot be used with capacityMix on an ec2-asg target, even without spot: Governor writes the mix to the group as a MixedInstancesPolicy, and AWS refuses a warm pool on a group that has one (PutWarmPool); remove warmPool (keep warm capacity with the forecast floor), or remove capacityMix',
  },
  {
    file: 'invalid-warm-pool-with-spot.yaml',
    line: 'targets[0].warmPool cannot be used with capacityMix.spot: AWS refuses a warm pool on a group whose MixedInstancesPolicy requests spot; remove warmPool, or remove spot',
  },
  {
    file: 'invalid-zone-repeated.yaml',
    line: 'targets[0].capacityMix.zones[2] repeats us-east-1a (already zones[0]): list each zone of the group once',
  },
  {
    file: 'invalid-zone-other-region.yaml',
    line: "targets[0].capacityMix.zones[1] us-west-2b is not in the target's region us-east-1: list the group's own Availability Zones (AvailabilityZones in DescribeAutoScalingGroups)",
  },
  {
    file: 'invalid-zones-on-sagemaker.yaml',
    line: "targets[0].capacityMix.zones is for ec2-asg targets, not sagemaker-variant: SageMaker places a variant's instances itself; remove zones",
  },
  {
    file: 'invalid-loss-domain-zone-without-zones.yaml',
    line: "targets[0].capacityMix.spot.lossDomain is 'zone' but capacityMix.zones is not set: list the group's Availability Zones, or use lossDomain 'pool'",
  },
  {
    file: 'invalid-max-pool-share.yaml',
    line: 'targets[0].capacityMix.spot.maxPoolShare must be at most 100 (percent); remove it for no cap',
  },
  {
    file: 'invalid-over-provision.yaml',
    line: 'targets[0].capacityMix.spot.overProvision must be a whole number, got 1.5',
  },
  {
    file: 'invalid-over-provision-fills-group.yaml',
    line: 'targets[0].capacityMix.spot.overProvision (10) is not below scaling.maxCapacity (10): the headroom alone would fill the group; hold fewer spot instances or raise maxCapacity',
  },
];

describe('capacity mix fixtures through governor validate', () => {
  it.each(VALID)('%s exits 0', async (file) => {
    const { code, err } = await validate(`${DIR}/${file}`);
    expect({ code, err }).toEqual({ code: 0, err: [] });
  });

  it('examples/capacity-mix.yaml exits 0', async () => {
    const { code, err } = await validate('examples/capacity-mix.yaml');
    expect({ code, err }).toEqual({ code: 0, err: [] });
  });

  it.each(INVALID)('$file exits 2 with one line naming the path and the fix', async ({ file, line }) => {
    const { code, out, err } = await validate(`${DIR}/${file}`);
    expect({ code, out, err }).toEqual({ code: 2, out: [], err: [`${DIR}/${file}: ${line}`] });
  });

  it('every fixture in the folder has a case here', () => {
    expect(readdirSync(DIR).sort()).toEqual([...VALID, ...INVALID.map((c) => c.file)].sort());
  });
});
