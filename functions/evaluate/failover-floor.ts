/**
 * The failover floors of a tick's targets, from the FAILOVER#<group> items of the groups they
 * belong to (written by functions/failover in the standby region). Pure. A member is held at
 * capacityFloors(group, state) (shared/failover/plan.ts): a standby's warm floor in steady, the
 * prescale while traffic moves or has moved, so its own scale-in never undoes them.
 *
 * No item (the primary region's table, or a group never evaluated), an item left unprocessed, a
 * failed read or a malformed state: no floor, and the record's inputs say why. A state planned
 * in shadow mode is a dry run (no prescale happened): only the warm floor of steady applies.
 */
import { type ResolvedGroup, resolveFailoverGroups } from '../../shared/failover/group.ts';
import { capacityFloors, initialFailoverState } from '../../shared/failover/plan.ts';
import { FailoverStateSchema } from '../../shared/failover/types.ts';
import type { PolicyFile, TargetPolicy } from '../../shared/policy/schema.ts';

/** What the decision record says of a member's failover floor (inputs.failoverFloor). */
export interface FailoverFloorInput {
  groupId: string;
  /** The stored phase, or null when there was no state to read. */
  phase: string | null;
  /** The floor given to the engine, or null: none. */
  capacity: number | null;
  detail: string;
}

/** The groups with a member among `targets`; none without a failover block (then no read at all). */
export function failoverGroupsOf(policy: PolicyFile, targets: readonly TargetPolicy[]): ResolvedGroup[] {
  if (!policy.failover) return [];
  const ids = new Set(targets.map((t) => t.id));
  return resolveFailoverGroups(policy).filter((g) => g.members.some((m) => ids.has(m.targetId)));
}

/** One group's floors by target id, with the phase the engine names and the sentence recorded. */
function groupFloors(
  g: ResolvedGroup,
  items: ReadonlyMap<string, Record<string, unknown> | undefined> | Error,
): Map<string, FailoverFloorInput> {
  const none = (detail: string) =>
    new Map(g.members.map((m) => [m.targetId, { groupId: g.id, phase: null, capacity: null, detail }]));
  const key = `FAILOVER#${g.id}`;
  if (items instanceof Error) return none(`the read of ${key} failed (${items.message}): no failover floor`);
  if (!items.has(g.id)) return none(`${key} was left unprocessed by BatchGetItem: no failover floor`);
  const item = items.get(g.id);
  if (!item) return none(`no ${key} item in this region's state table: no failover floor`);
  const parsed = FailoverStateSchema.safeParse(item.state);
  if (!parsed.success) return none(`${key} holds a malformed state: no failover floor`);
  const shadow = item.mode === 'shadow';
  const state = shadow ? initialFailoverState(g) : parsed.data;
  const floors = capacityFloors(g, state);
  const why = shadow
    ? ` (planned in shadow mode: ${parsed.data.phase} is a dry run, the warm floor only)`
    : '';
  return new Map(
    g.members.map((m) => {
      const n = floors[m.targetId];
      return [
        m.targetId,
        n === undefined
          ? {
              groupId: g.id,
              phase: state.phase,
              capacity: null,
              detail: `no floor for this member in ${state.phase}${why}`,
            }
          : {
              groupId: g.id,
              phase: state.phase,
              capacity: n,
              detail: `held at ${n} or more in ${state.phase}${why}`,
            },
      ];
    }),
  );
}

/**
 * Per target id, its failover floor: the highest of its groups' (a target in two groups is held
 * at the higher). Targets in no group are absent.
 */
export function failoverFloors(
  groups: readonly ResolvedGroup[],
  items: ReadonlyMap<string, Record<string, unknown> | undefined> | Error,
): Map<string, FailoverFloorInput> {
  const out = new Map<string, FailoverFloorInput>();
  for (const g of groups) {
    for (const [id, f] of groupFloors(g, items)) {
      const had = out.get(id);
      if (!had || (f.capacity ?? -1) > (had.capacity ?? -1)) out.set(id, f);
    }
  }
  return out;
}
