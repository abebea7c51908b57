/**
 * The commitments that exist, planned on (issue 22, item 2; docs/capacity-mix.md, "Commitments
 * that exist"): the commitments function stores each region's read hourly (COMMIT#<region>); the
 * mix function reads it once per run and plans each target on min(its policy's committed
 * instances, what exists) while the read is under 3 hours old (shared/commit/exists.ts), on the
 * policy's own number otherwise. A read that fails is no read: the policy's number, as before.
 */
import type { CommitmentsStorePort } from '../../shared/aws/commitments-store.ts';
import { type CommitCheck, checkCommitment, type ExistingCommitments } from '../../shared/commit/exists.ts';
import type { MixPolicy } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';

/** Each region's stored read (null: none, or unreadable), one GetItem per region. */
export async function commitmentsByRegion(
  port: Pick<CommitmentsStorePort, 'read'> | undefined,
  targets: readonly TargetPolicy[],
): Promise<Map<string, ExistingCommitments | null>> {
  const out = new Map<string, ExistingCommitments | null>();
  if (!port) return out;
  for (const region of new Set(targets.map((t) => t.region)))
    out.set(region, await port.read(region).catch(() => null));
  return out;
}

/** The planner's policy with the committed base it may count on, and the check that said so. */
export function withExistingCommitment(
  policy: MixPolicy,
  t: TargetPolicy,
  read: ExistingCommitments | null,
  now: number,
): { policy: MixPolicy; check: CommitCheck | null } {
  const committed = policy.mix.committed;
  if (committed.instances === 0 || committed.instanceType === undefined) return { policy, check: null };
  const check = checkCommitment(
    {
      targetId: t.id,
      region: t.region,
      zones: policy.mix.zones ?? null,
      instances: committed.instances,
      instanceType: committed.instanceType,
    },
    read,
    now,
  );
  if (check.planned === committed.instances) return { policy, check };
  return {
    policy: { ...policy, mix: { ...policy.mix, committed: { ...committed, instances: check.planned } } },
    check,
  };
}
