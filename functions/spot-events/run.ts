/**
 * One SQS batch of spot events (docs/interruptions.md):
 *   parse every record (malformed: recorded, not retried) -> screen the origin (another account
 *   or region: ignored, no call) -> the policy's managed ec2-asg targets with capacityMix.spot in
 *   this region (none: everything ignored, no call) -> one batched DescribeAutoScalingInstances
 *   for the instances named (an instance in no managed group: ignored) -> group by target ->
 *   kill switch (active mode) -> SPOT and PLAN items, one BatchGetItem each -> per target:
 *   handleSpotBatch -> DetachInstances once per target (chunks of 20) -> the shifted
 *   MixedInstancesPolicy -> SPOT written on condition of its version; on conflict re-read and
 *   redo once (what was already done is not done again); still in conflict, or a call failed:
 *   those messages are batch item failures, so SQS redelivers them. An instance is marked
 *   handled only once its DetachInstances call succeeded, so a redelivery is safe.
 * Shadow mode writes SPOT (the availability and breaker timeline as active would have it) and
 * calls nothing else that writes. The kill switch writes nothing at all and records `killed`.
 */

import { instanceOf, parseSpotBody } from '../../shared/interruptions/events.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import { resolveMixPolicy } from '../../shared/mix/types.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import { handleTarget } from './target.ts';
import type {
  IgnoreReason,
  Managed,
  SpotEventsDeps,
  SpotEventsResult,
  SqsBatch,
  Tagged,
  TargetReport,
} from './types.ts';

/** The managed targets of this region: ec2-asg with capacityMix.spot, by group name. */
export function managedGroups(policy: PolicyFile, region: string): Map<string, Managed> {
  const out = new Map<string, Managed>();
  for (const t of policy.targets) {
    if (t.kind !== 'ec2-asg' || t.region !== region || !t.capacityMix?.spot) continue;
    const mix = resolveMixPolicy(t);
    if (mix) out.set(t.autoScalingGroupName, { policy: mix, groupName: t.autoScalingGroupName, region });
  }
  return out;
}

export function createSpotEventsHandler(deps: SpotEventsDeps) {
  const { config, ports, telemetry } = deps;
  let cached: { policy: PolicyFile; at: number } | null = null;
  const policyAt = async (now: number): Promise<PolicyFile> => {
    if (cached && now - cached.at < config.POLICY_CACHE_SECONDS * 1000) return cached.policy;
    const merged = await readPolicy(ports.parameters, config.POLICY_PARAMETER_NAME);
    if (!merged.ok) throw new Error(`no valid policy: ${merged.problems.join('; ')}`);
    cached = { policy: merged.policy, at: now };
    return merged.policy;
  };

  return async (batch: SqsBatch, now: number, home: { account?: string } = {}): Promise<SpotEventsResult> => {
    const ignored: Record<IgnoreReason, number> = {
      Malformed: 0,
      ForeignAccount: 0,
      ForeignRegion: 0,
      NotManaged: 0,
      NotInGroup: 0,
      NotEc2Instance: 0,
    };
    const ignore = (reason: IgnoreReason, messageId: string, detail: string) => {
      ignored[reason]++;
      telemetry.decision({
        kind: 'ignored',
        reasons: [reason],
        messageId,
        message: detail,
        at: new Date(now).toISOString(),
      });
    };
    const candidates = screen(batch, config.AWS_REGION, home.account, ignore);
    const byTarget = candidates.length > 0 ? await route(candidates, await policyAt(now), ignore) : new Map();
    telemetry.count(
      'ForeignIgnored',
      ignored.ForeignAccount + ignored.ForeignRegion + ignored.NotManaged + ignored.NotInGroup,
    );
    const targets: TargetReport[] = [];
    if (byTarget.size > 0) {
      const killed =
        config.GOVERNOR_MODE === 'shadow'
          ? null
          : await readKillSwitch((n) => ports.parameters.get(n), config.KILL_SWITCH_PARAMETER_NAME);
      const ids = [...byTarget.keys()];
      const [spots, plans] = await Promise.all([ports.spot.getMany(ids), ports.plans.getMany(ids)]);
      for (const [id, { managed, events }] of byTarget) {
        const stored = spots.get(id) ?? null;
        const start = {
          spot: stored?.spot ?? null,
          version: stored?.version ?? 0,
          plan: plans.get(id)?.state.plan ?? null,
        };
        targets.push(
          await handleTarget(deps, managed, events, start, now, killed?.on === true ? killed.message : null),
        );
      }
    }
    return {
      batchItemFailures: targets
        .flatMap((t) => t.failedMessages)
        .map((itemIdentifier) => ({ itemIdentifier })),
      targets,
      ignored,
    };
  };

  /** Parsed events of this account and region. */
  function screen(
    batch: SqsBatch,
    region: string,
    account: string | undefined,
    ignore: (r: IgnoreReason, m: string, d: string) => void,
  ): Tagged[] {
    const out: Tagged[] = [];
    for (const r of batch.Records) {
      const parsed = parseSpotBody(r.body);
      if (!parsed.ok) {
        ignore('Malformed', r.messageId, parsed.problem);
        continue;
      }
      if (parsed.events.length === 0)
        ignore('NotEc2Instance', r.messageId, 'a Health event of another service');
      for (const event of parsed.events) {
        if (account !== undefined && event.account !== account)
          ignore('ForeignAccount', r.messageId, `event ${event.eventId} from account ${event.account}`);
        else if (event.region !== region)
          ignore('ForeignRegion', r.messageId, `event ${event.eventId} from region ${event.region}`);
        else out.push({ messageId: r.messageId, event });
      }
    }
    return out;
  }

  /** Events by managed target: instances looked up in one batched call, failed launches by group name. */
  async function route(
    tagged: Tagged[],
    policy: PolicyFile,
    ignore: (r: IgnoreReason, m: string, d: string) => void,
  ): Promise<Map<string, { managed: Managed; events: Tagged[] }>> {
    const groups = managedGroups(policy, config.AWS_REGION);
    const out = new Map<string, { managed: Managed; events: Tagged[] }>();
    const instances = [
      ...new Set(tagged.map((t) => instanceOf(t.event)).filter((i): i is string => i !== null)),
    ];
    const groupOf =
      groups.size > 0 && instances.length > 0
        ? await ports.groups.groupsOf(config.AWS_REGION, instances)
        : new Map<string, string>();
    for (const t of tagged) {
      const instance = instanceOf(t.event);
      const group =
        t.event.kind === 'launch-failed' ? t.event.groupName : instance ? groupOf.get(instance) : undefined;
      const managed = group ? groups.get(group) : undefined;
      if (!managed) {
        if (instance && !group)
          ignore(
            'NotInGroup',
            t.messageId,
            `${instance}: in no Auto Scaling group now (already detached, or never in one)`,
          );
        else
          ignore('NotManaged', t.messageId, `${group}: not a managed ec2-asg target with capacityMix.spot`);
        continue;
      }
      const entry = out.get(managed.policy.targetId) ?? { managed, events: [] };
      entry.events.push(t);
      out.set(managed.policy.targetId, entry);
    }
    return out;
  }
}
