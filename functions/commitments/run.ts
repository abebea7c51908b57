/**
 * The commitments function's flow, once an hour (docs/capacity-mix.md, "Commitments that exist"):
 * read the policy; for each region its capacity-mix targets run in, read what is committed there
 * (one read for every type the targets commit: Reserved Instances, capacity reservations, Savings
 * Plans), store it (COMMIT#<region>, which the mix function plans on) and check each target's
 * commitment against it (shared/commit/exists.ts): its shortfall is the CommitmentShortfall
 * metric, alarmed in template.yaml, and its sentence a log line. A region whose read fails is
 * counted (CommitmentReadFailures) and its targets are checked on the last stored read while it is
 * fresh, else as unread; the other regions go on.
 */

import type { CommitmentsPort } from '../../shared/aws/commitments.ts';
import type { CommitmentsStorePort } from '../../shared/aws/commitments-store.ts';
import type { MixItemPort, StoredMixItem } from '../../shared/aws/mix-item.ts';
import { type CommitCheck, checkCommitment, type ExistingCommitments } from '../../shared/commit/exists.ts';
import { errorText } from '../../shared/invocation/errors.ts';
import { zonedAsPlanned } from '../../shared/mix/pools.ts';
import { resolveMixPolicy } from '../../shared/mix/types.ts';
import type { TargetPolicy } from '../../shared/policy/schema.ts';
import type { ParametersPort } from '../../shared/policy-store/parameters.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import type { CommitmentsConfig } from './config.ts';

export interface CommitmentsPorts {
  parameters: ParametersPort;
  commitments: CommitmentsPort;
  store: CommitmentsStorePort;
  /**
   * The targets' PLAN items (MIX#<id>): an ec2-asg target whose policy lists no zones is checked
   * in the zones its plan in force was spread over (the mix function reads them from the group,
   * functions/mix/zones.ts), so zonal reservations there count as the mix function counts them.
   */
  plans?: Pick<MixItemPort, 'getMany'>;
}

export interface CommitmentsTelemetry {
  /** One per target: the check, logged whole; its shortfall (instances) as a metric. */
  checked(check: CommitCheck): void;
  /** A region's read or store failed: counted and logged. */
  readFailed(region: string, message: string): void;
}

export interface CommitmentsReport {
  regions: { region: string; read: boolean }[];
  checks: CommitCheck[];
}

export class CommitmentsPolicyError extends Error {
  override name = 'CommitmentsPolicyError';
}

/**
 * The zones each plan in force was spread over, for the ec2-asg targets whose policy lists none:
 * one BatchGetItem of their PLAN items per run. A target absent from the map (no plan yet, a plan
 * by type, a SageMaker target, or the read failed) counts no zonal reservation, and its check's
 * sentence says to list capacityMix.zones.
 */
async function plannedZones(
  plans: CommitmentsPorts['plans'],
  targets: readonly TargetPolicy[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const unzoned = targets.filter((t) => t.kind === 'ec2-asg' && !t.capacityMix?.zones);
  if (!plans || unzoned.length === 0) return out;
  const items = await plans.getMany(unzoned.map((t) => t.id)).catch(() => new Map<string, StoredMixItem>());
  for (const t of unzoned) {
    const policy = resolveMixPolicy(t);
    const zones = policy && zonedAsPlanned(policy, items.get(t.id)?.state.plan ?? null).mix.zones;
    if (zones) out.set(t.id, [...zones]);
  }
  return out;
}

/** The targets a commitment can be checked for: a capacityMix naming its committed type. */
const committing = (t: TargetPolicy) => t.capacityMix?.committed.instanceType !== undefined;

export function createCommitmentsRunner(deps: {
  config: CommitmentsConfig;
  ports: CommitmentsPorts;
  telemetry: CommitmentsTelemetry;
}) {
  return async (now: number): Promise<CommitmentsReport> => {
    const merged = await readPolicy(deps.ports.parameters, deps.config.POLICY_PARAMETER_NAME);
    if (!merged.ok) throw new CommitmentsPolicyError(`no valid policy: ${merged.problems.join('; ')}`);
    const targets = merged.policy.targets.filter(committing);
    const regions = [...new Set(targets.map((t) => t.region))].sort();
    const report: CommitmentsReport = { regions: [], checks: [] };
    const zonesOf = await plannedZones(deps.ports.plans, targets);
    for (const region of regions) {
      const here = targets.filter((t) => t.region === region);
      const types = [...new Set(here.map((t) => t.capacityMix!.committed.instanceType!))].sort();
      let read: ExistingCommitments | null = null;
      try {
        read = await deps.ports.commitments.read(region, types, now);
        await deps.ports.store.write(read);
      } catch (error) {
        deps.telemetry.readFailed(region, errorText(error));
        // The last stored read still decides while it is fresh (checkCommitment: 3 hours).
        read = await deps.ports.store.read(region).catch(() => null);
      }
      report.regions.push({ region, read: read !== null && read.readAt === now });
      for (const t of here) {
        const mix = t.capacityMix!;
        const check = checkCommitment(
          {
            targetId: t.id,
            region,
            zones: mix.zones ?? zonesOf.get(t.id) ?? null,
            instances: mix.committed.instances,
            instanceType: mix.committed.instanceType ?? null,
          },
          read,
          now,
        );
        deps.telemetry.checked(check);
        report.checks.push(check);
      }
    }
    return report;
  };
}
