/**
 * The strategies the failover backtest compares, each a failover group built from the policy's
 * target and a mirror of it in a second region (docs/failover.md, "The backtest"):
 *
 *   pilot-light   primary + standby at warm floor 0; the standby scales to zero while idle
 *   warm-standby  primary + standby at the warm floor (default: the policy's, at least 1)
 *   active-active both regions at 50 %, each sized by its own governor on its half
 *   route-only    primary + a cold standby (as pilot light), no planner: traffic moves at once
 *                 when Route 53's health check of the primary fails, and back when it passes
 *   no-failover   one region with the outage: what the outage costs with nothing to fail to
 *   one-region    one region, no outage: the cost reference
 *
 * The group's health and shift settings are the policy's own when a failover group of the file
 * has the target as a member, else the schema's defaults (docs/failover.md lists them).
 */
import { type ResolvedGroup, resolveFailoverGroups } from '../../failover/group.ts';
import {
  type FailoverGroup,
  FailoverHealthSchema,
  FailoverSchema,
  FailoverShiftSchema,
} from '../../policy/failover-schema.ts';
import { ActivationSchema, type PolicyFile, type TargetPolicy } from '../../policy/schema.ts';

export const STRATEGY_NAMES = [
  'pilot-light',
  'warm-standby',
  'active-active',
  'route-only',
  'no-failover',
  'one-region',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** The second region: us-west-2 for a primary in us-east-1, else us-east-1. */
export const mirrorRegion = (primary: string): string =>
  primary === 'us-east-1' ? 'us-west-2' : 'us-east-1';

/**
 * Warm standby's default floor: the standby's warmFloor in the file's failover group that has the
 * target, else the target's minCapacity (the planner's own default, shared/failover/group.ts), and
 * at least 1: a standby with an instance can be seen to be healthy by every signal, latency too.
 * Not a fraction of the primary's need: the planner prescales the whole need before the first
 * step, so a larger floor buys no recovery time, only cost (docs/failover.md, "The backtest").
 */
export function defaultWarmFloor(policy: PolicyFile | undefined, target: TargetPolicy): number {
  const group = policy?.failover?.groups.find((g) => g.members.some((m) => m.targetId === target.id));
  const standby = group?.members.find((m) => m.targetId !== target.id && m.warmFloor !== undefined);
  return Math.max(1, standby?.warmFloor ?? target.scaling.minCapacity);
}

/**
 * The target in the other region. A standby at warm floor 0 must be able to hold 0 instances,
 * so it scales to zero and wakes on invocations (as a SageMaker inference component can; a
 * variant cannot go below 1); every other setting is the primary's.
 */
export function mirrorTarget(target: TargetPolicy, region: string, scaleToZero: boolean): TargetPolicy {
  const scaling = scaleToZero
    ? {
        ...target.scaling,
        minCapacity: 0,
        scaleToZero: true,
        activation: ActivationSchema.parse({ metric: 'invocations', threshold: 0 }),
      }
    : target.scaling;
  return { ...target, id: `${target.id}-${region}`, region, scaling };
}

/** The file's own health and shift settings for a group that has the target, else the defaults. */
export function groupSettings(
  policy: PolicyFile | undefined,
  targetId: string,
): Pick<FailoverGroup, 'health' | 'shift'> {
  const own = policy?.failover?.groups.find((g) => g.members.some((m) => m.targetId === targetId));
  return {
    health: own?.health ?? FailoverHealthSchema.parse({}),
    shift: own?.shift ?? FailoverShiftSchema.parse({}),
  };
}

export interface StrategyGroup {
  group: ResolvedGroup;
  targets: TargetPolicy[];
}

/** A two-region group for a planner-driven strategy: the primary (or first active) member first. */
export function strategyGroup(
  name: 'pilot-light' | 'warm-standby' | 'active-active',
  target: TargetPolicy,
  settings: Pick<FailoverGroup, 'health' | 'shift'>,
  warmFloor: number,
): StrategyGroup {
  const region = mirrorRegion(target.region);
  const mirror = mirrorTarget(target, region, name === 'pilot-light');
  const routing = {
    kind: 'route53-weighted' as const,
    hostedZoneId: 'ZBACKTEST',
    recordName: 'backtest.invalid',
    setIdentifiers: { [target.region]: 'primary', [region]: 'standby' },
  };
  const members =
    name === 'active-active'
      ? [
          { targetId: target.id, weight: 50 },
          { targetId: mirror.id, weight: 50 },
        ]
      : [
          { targetId: target.id, role: 'primary' as const },
          {
            targetId: mirror.id,
            role: 'standby' as const,
            warmFloor: name === 'pilot-light' ? 0 : warmFloor,
          },
        ];
  const failover = FailoverSchema.parse({
    groups: [
      {
        id: `backtest-${name}`,
        mode: name === 'active-active' ? 'active-active' : 'primary-standby',
        members,
        routing,
        ...settings,
      },
    ],
  });
  const file: PolicyFile = { version: 1, targets: [target, mirror], failover };
  return { group: resolveFailoverGroups(file)[0]!, targets: [target, mirror] };
}
