/**
 * The commitment of a mix backtest (run.ts): its rate, and how many instances, given or planned.
 * `--committed auto` plans with governor commit's model (shared/commit/plan.ts: hour by hour, the
 * committed rate against on-demand) on the fleet "governor, all on-demand" ran over the same
 * trace: in-sample, and the table says so.
 */
import { type CommitPlan, hourlyUsage, planCommitment } from '../../commit/plan.ts';
import type { TargetPolicy } from '../../policy/schema.ts';

/** What a run is asked to commit (SpotOptions' two fields). */
interface Asked {
  committed: number | 'auto';
  committedUsdPerHour: number | null;
}

export class MixInputError extends Error {
  override name = 'MixInputError';
}

/**
 * The committed rate, USD per instance-hour: the policy's, else --committed-price, else the
 * on-demand price (no discount). Refused before any run when auto has nothing to plan against.
 */
export function committedRate(target: TargetPolicy, spot: Asked, onDemand: number): number | null {
  const own = target.capacityMix?.committed;
  const rate = own
    ? (own.usdPerHour ?? null)
    : (spot.committedUsdPerHour ?? (spot.committed === 'auto' ? null : onDemand));
  if (spot.committed === 'auto' && rate === null)
    throw new MixInputError(
      own
        ? `--committed auto needs the committed rate: set ${target.id}'s capacityMix.committed.usdPerHour`
        : '--committed auto needs the committed rate: add --committed-price USD (one committed instance, USD per hour)',
    );
  return rate;
}

/** The instances committed: the policy's, the flag's, or the plan on `fleet` (billed instances per minute). */
export function commitmentOf(
  target: TargetPolicy,
  spot: Asked,
  rate: number | null,
  onDemandRate: number,
  fleet: Float64Array,
): { instances: number; plan: CommitPlan | null } {
  if (spot.committed !== 'auto' || rate === null)
    return {
      instances: target.capacityMix?.committed.instances ?? (spot.committed === 'auto' ? 0 : spot.committed),
      plan: null,
    };
  const plan = planCommitment(hourlyUsage(fleet), onDemandRate, { term: 'planned', usdPerHour: rate });
  return { instances: plan.instances, plan };
}
