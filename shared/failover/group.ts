/**
 * A failover group resolved against its targets: everything the planner needs, in one value,
 * so the planner never looks a target up. Built once per policy load.
 */
import type { FailoverGroup } from '../policy/failover-schema.ts';
import type { PolicyFile } from '../policy/schema.ts';
import type { Weights } from './types.ts';

export interface ResolvedMember {
  targetId: string;
  region: string;
  role: 'primary' | 'standby' | 'active';
  /** Percent of traffic when every region is healthy: 100 for the primary, 0 for a standby. */
  baseWeight: number;
  /** Instances kept while not serving: warmFloor, else the target's minCapacity. */
  warmFloor: number;
  minCapacity: number;
  maxCapacity: number;
}

export interface ResolvedGroup {
  id: string;
  mode: FailoverGroup['mode'];
  routing: FailoverGroup['routing'];
  health: FailoverGroup['health'];
  shift: FailoverGroup['shift'];
  rtoMinutes: number;
  members: ResolvedMember[];
}

/** Every failover group of a validated policy, resolved. Throws only on a policy that skipped validation. */
export function resolveFailoverGroups(policy: PolicyFile): ResolvedGroup[] {
  return (policy.failover?.groups ?? []).map((g) => ({
    id: g.id,
    mode: g.mode,
    routing: g.routing,
    health: g.health,
    shift: g.shift,
    rtoMinutes: g.rtoMinutes,
    members: g.members.map((m) => {
      const t = policy.targets.find((x) => x.id === m.targetId);
      if (!t)
        throw new Error(
          `failover group ${g.id}: target ${m.targetId} is not in the policy (validate it first)`,
        );
      const role = g.mode === 'active-active' ? 'active' : m.role === 'primary' ? 'primary' : 'standby';
      return {
        targetId: t.id,
        region: t.region,
        role,
        baseWeight: role === 'active' ? (m.weight ?? 0) : role === 'primary' ? 100 : 0,
        warmFloor: m.warmFloor ?? t.scaling.minCapacity,
        minCapacity: t.scaling.minCapacity,
        maxCapacity: t.scaling.maxCapacity,
      };
    }),
  }));
}

export const baseWeights = (g: ResolvedGroup): Weights =>
  Object.fromEntries(g.members.map((m) => [m.region, m.baseWeight]));

export const memberIn = (g: ResolvedGroup, region: string): ResolvedMember | undefined =>
  g.members.find((m) => m.region === region);
