/**
 * Cross-field rules of `capacityMix.zones` and the spot loss bound (issue 22, item 3): the zones
 * are the group's own, each once, in the target's region; a loss domain of a zone needs them.
 * Each message names the path and the fix; tests/policy/capacity-mix-fixtures.test.ts pins them.
 */
import type { TargetPolicy } from './schema.ts';

type Path = (string | number)[];
type Add = (path: Path, message: string) => void;

export function zoneProblems(t: TargetPolicy, here: Path, add: Add): void {
  const mix = t.capacityMix;
  if (!mix) return;
  if (mix.zones && t.kind !== 'ec2-asg') {
    add(
      [...here, 'zones'],
      `is for ec2-asg targets, not ${t.kind}: SageMaker places a variant's instances itself; remove zones`,
    );
    return;
  }
  const seen = new Map<string, number>();
  (mix.zones ?? []).forEach((zone, i) => {
    const first = seen.get(zone);
    if (first !== undefined)
      add(
        [...here, 'zones', i],
        `repeats ${zone} (already zones[${first}]): list each zone of the group once`,
      );
    seen.set(zone, i);
    if (!zone.startsWith(t.region))
      add(
        [...here, 'zones', i],
        `${zone} is not in the target's region ${t.region}: list the group's own Availability Zones (AvailabilityZones in DescribeAutoScalingGroups)`,
      );
  });
  if (mix.spot?.lossDomain === 'zone' && !mix.zones)
    add(
      [...here, 'spot', 'lossDomain'],
      "is 'zone' but capacityMix.zones is not set: list the group's Availability Zones, or use lossDomain 'pool'",
    );
}
