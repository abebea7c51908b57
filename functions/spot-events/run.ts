/**
 * One SQS batch of spot events (docs/interruptions.md), one record at a time:
 *   parse every record (malformed: returned alone in batchItemFailures, for the dead-letter
 *   queue) -> screen the origin (another account or region: ignored, no call) -> the policy's
 *   managed ec2-asg targets with capacityMix.spot in this region (none: everything ignored, no
 *   call) -> one batched DescribeAutoScalingInstances for the instances named (an instance in no
 *   managed group, or leaving it: ignored) -> group by target -> kill switch (active mode) ->
 *   the targets' items (MIX#<target>/PLAN: mix state and SPOT state), one BatchGetItem -> per
 *   target (./target.ts): handleSpotBatch -> the item written first, on its version -> Detach-
 *   Instances (chunks of 20) -> the shifted MixedInstancesPolicy -> a correction only when a
 *   call failed. What fails (the policy, the lookup, the items, a target's calls) fails only the
 *   records that needed it; the run never throws.
 * Shadow mode writes the item (the availability and breaker timeline as active would have it)
 * and calls nothing else that writes. The kill switch writes nothing at all and records `killed`.
 */

import { clip } from '../../shared/events/bounded.ts';
import { instanceOf, type ParsedBody, parseSpotBody } from '../../shared/interruptions/events.ts';
import { errorLine } from '../../shared/invocation/errors.ts';
import { readKillSwitch } from '../../shared/invocation/kill-switch.ts';
import { initialMixState } from '../../shared/mix/plan.ts';
import { resolveMixPolicy } from '../../shared/mix/types.ts';
import type { PolicyFile } from '../../shared/policy/schema.ts';
import { readPolicy } from '../../shared/policy-store/read.ts';
import { handleTarget } from './hold.ts';
import type {
  FailReason,
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
      NotActionable: 0,
    };
    const at = new Date(now).toISOString();
    const ignore = (reason: IgnoreReason, messageId: string, detail: string) => {
      ignored[reason]++;
      telemetry.decision({
        kind: 'ignored',
        reasons: [reason],
        messageId: clip(messageId),
        message: clip(detail),
        at,
      });
    };
    // Records that must come back: malformed (they reach the dead-letter queue after their
    // retries, where the alarm sees them) or failed. Each alone: never the batch.
    const failed = new Set<string>();
    const fail = (reason: FailReason, messageIds: Iterable<string>, detail: string) => {
      const ids = [...messageIds];
      if (ids.length === 0) return;
      if (reason === 'Malformed') ignored.Malformed += ids.length;
      for (const id of ids) failed.add(id);
      telemetry.error(`${reason}: ${clip(detail)}`, {
        reason,
        messageIds: ids.slice(0, 10).map((i) => clip(i)),
      });
    };
    const targets: TargetReport[] = [];
    const candidates = screen(batch, config.AWS_REGION, home.account, ignore, fail);
    let byTarget = new Map<string, { managed: Managed; events: Tagged[] }>();
    if (candidates.length > 0) {
      try {
        byTarget = await route(candidates, await policyAt(now), ignore, fail);
      } catch (e) {
        fail('PolicyUnreadable', messagesOf(candidates), `the policy cannot be read: ${errorLine(e)}`);
      }
    }
    telemetry.count(
      'ForeignIgnored',
      ignored.ForeignAccount + ignored.ForeignRegion + ignored.NotManaged + ignored.NotInGroup,
    );
    if (byTarget.size > 0) {
      try {
        targets.push(...(await handleTargets(byTarget, now)));
      } catch (e) {
        const all = [...byTarget.values()].flatMap((x) => x.events);
        fail(
          'StateUnreadable',
          messagesOf(all),
          `the targets' items (MIX#<target>) cannot be read: ${errorLine(e)}`,
        );
      }
    }
    for (const t of targets) for (const m of t.failedMessages) failed.add(m);
    return {
      // In the batch's own order, each record once.
      batchItemFailures: batch.Records.filter((r) => failed.has(r.messageId)).map((r) => ({
        itemIdentifier: r.messageId,
      })),
      targets,
      ignored,
    };
  };

  /** Each target's events; a target that throws fails its own messages, no other's. */
  async function handleTargets(byTarget: Map<string, { managed: Managed; events: Tagged[] }>, now: number) {
    const killed =
      config.GOVERNOR_MODE === 'shadow'
        ? null
        : await readKillSwitch((n) => ports.parameters.get(n), config.KILL_SWITCH_PARAMETER_NAME);
    const ids = [...byTarget.keys()];
    const items = await ports.items.getMany(ids);
    const unmigrated = ids.filter((id) => !items.get(id)?.spot);
    const legacy = unmigrated.length > 0 ? await ports.legacySpot.getMany(unmigrated) : new Map();
    const out: TargetReport[] = [];
    for (const [id, { managed, events }] of byTarget) {
      const item = items.get(id);
      const start = {
        state: item?.state ?? initialMixState(),
        spot: item?.spot ?? legacy.get(id)?.spot ?? null,
        version: item?.version ?? 0,
      };
      try {
        out.push(
          await handleTarget(deps, managed, events, start, now, killed?.on === true ? killed.message : null),
        );
      } catch (e) {
        out.push(
          failedTarget(id, messagesOf(events), `the target's events were not handled: ${errorLine(e)}`),
        );
        telemetry.error(`spot ${id}: the target's events were not handled: ${clip(errorLine(e))}`, {
          targetId: id,
        });
      }
    }
    return out;
  }

  /** Parsed events of this account and region; a record that cannot be parsed fails alone. */
  function screen(
    batch: SqsBatch,
    region: string,
    account: string | undefined,
    ignore: (r: IgnoreReason, m: string, d: string) => void,
    fail: (r: FailReason, m: Iterable<string>, d: string) => void,
  ): Tagged[] {
    const out: Tagged[] = [];
    for (const r of batch.Records) {
      const parsed = safeParse(r.body);
      if (!parsed.ok) {
        fail('Malformed', [r.messageId], parsed.problem);
        continue;
      }
      if (parsed.events.length === 0)
        ignore(
          parsed.skipped?.reason ?? 'NotEc2Instance',
          r.messageId,
          parsed.skipped?.detail ?? 'no instance named',
        );
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

  /**
   * Events by managed target: instances looked up in one batched call, failed launches by group
   * name. A failed lookup fails the records that name instances, not the failed launches.
   */
  async function route(
    tagged: Tagged[],
    policy: PolicyFile,
    ignore: (r: IgnoreReason, m: string, d: string) => void,
    fail: (r: FailReason, m: Iterable<string>, d: string) => void,
  ): Promise<Map<string, { managed: Managed; events: Tagged[] }>> {
    const groups = managedGroups(policy, config.AWS_REGION);
    const out = new Map<string, { managed: Managed; events: Tagged[] }>();
    const instances = [
      ...new Set(tagged.map((t) => instanceOf(t.event)).filter((i): i is string => i !== null)),
    ];
    let groupOf = new Map<string, string>();
    let lookupFailed = false;
    if (groups.size > 0 && instances.length > 0) {
      try {
        groupOf = await ports.groups.groupsOf(config.AWS_REGION, instances);
      } catch (e) {
        lookupFailed = true;
        const named = tagged.filter((t) => instanceOf(t.event) !== null);
        fail('LookupFailed', messagesOf(named), `the instances' groups cannot be read: ${errorLine(e)}`);
      }
    }
    for (const t of tagged) {
      const instance = instanceOf(t.event);
      if (instance && lookupFailed) continue;
      const group =
        t.event.kind === 'launch-failed' ? t.event.groupName : instance ? groupOf.get(instance) : undefined;
      const managed = group !== undefined ? groups.get(group) : undefined;
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

/** The distinct messages of some events. */
const messagesOf = (tagged: readonly Tagged[]): string[] => [...new Set(tagged.map((t) => t.messageId))];

/** A body to its events; a parser bug is this record's problem, never the batch's. */
function safeParse(body: unknown): ParsedBody {
  try {
    if (typeof body !== 'string') return { ok: false, problem: 'the record has no body' };
    return parseSpotBody(body);
  } catch (e) {
    return { ok: false, problem: `the body could not be parsed: ${errorLine(e)}` };
  }
}

function failedTarget(targetId: string, failedMessages: string[], detail: string): TargetReport {
  return {
    targetId,
    outcome: 'failed',
    replaced: [],
    duplicates: 0,
    poolsMarked: [],
    breakerOpened: false,
    shifted: false,
    failedMessages,
    detail: clip(detail),
  };
}
