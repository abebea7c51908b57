/**
 * The act function's input held to the policy (issue 18, item 3): an execution input is data the
 * function did not write, so what it may change comes from the policy, not from the input.
 *   prescale / ready: the target must be the policy's (same id, region and names), and the ask is
 *     clamped to its maxCapacity (a prescale of 2^31 asks for maxCapacity, and says so);
 *   route: the action's group must be a failover group of the policy and its routing exactly the
 *     group's (hosted zone, record, set identifiers, routing controls, cluster endpoints, endpoint
 *     groups); the call is made with the policy's routing, never the input's.
 * A refusal is NotInPolicy naming the field. Pure: the policy is read by the port.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ResolvedGroup } from '../../shared/failover/group.ts';
import { targetRef } from '../../shared/failover/machine-input.ts';
import type { RoutingAction } from '../../shared/failover/types.ts';
import type { FailoverRouting } from '../../shared/policy/failover-schema.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import { ActError } from './act-errors.ts';

/** A prescale item as the act event carries it (./act.ts PrescaleItem). */
interface PrescaleLike {
  targetId: string;
  region: string;
  desired: number;
  target: unknown;
}

export interface PolicyView {
  groups: readonly ResolvedGroup[];
  targets: readonly TargetPolicy[];
}

const refuse = (message: string) => new ActError('NotInPolicy', message);
const shown = (v: unknown) => JSON.stringify(v).slice(0, 200);

/** The prescale item as the policy allows it, and a note when its ask was clamped. */
export function scopedPrescale<P extends PrescaleLike>(p: P, policy: PolicyView): { item: P; note: string } {
  const t = policy.targets.find((x) => x.id === p.targetId);
  if (!t) throw refuse(`prescale.targetId ${shown(p.targetId)} is not a target of the policy`);
  if (p.region !== t.region)
    throw refuse(`prescale.region is ${shown(p.region)}, but target ${t.id} is in ${t.region} in the policy`);
  const ref = targetRef(t);
  if (!isDeepStrictEqual(p.target, ref))
    throw refuse(`prescale.target is ${shown(p.target)}, but the policy's target ${t.id} is ${shown(ref)}`);
  const max = t.scaling.maxCapacity;
  if (p.desired <= max) return { item: p, note: '' };
  return { item: { ...p, desired: max }, note: ` (asked ${p.desired}, clamped to maxCapacity ${max})` };
}

/** The policy's routing of the action's group, when the input's is exactly it. */
export function scopedRouting(
  routing: FailoverRouting,
  action: RoutingAction,
  policy: PolicyView,
): FailoverRouting {
  const g = policy.groups.find((x) => x.id === action.groupId);
  if (!g) throw refuse(`action.groupId ${shown(action.groupId)} is not a failover group of the policy`);
  const own = g.routing as Record<string, unknown>;
  const given = routing as Record<string, unknown>;
  const field = [...new Set([...Object.keys(own), ...Object.keys(given)])].find(
    (k) => !isDeepStrictEqual(own[k], given[k]),
  );
  if (field !== undefined)
    throw refuse(
      `routing.${field} is ${shown(given[field])}, but group ${g.id}'s in the policy is ${shown(own[field])}: only the group's own routing is changed`,
    );
  const members = new Set(g.members.map((m) => m.region));
  const stranger = Object.keys(action.weights).find((r) => !members.has(r));
  if (stranger !== undefined)
    throw refuse(`action.weights names ${shown(stranger)}, which is not a member region of group ${g.id}`);
  return g.routing;
}
